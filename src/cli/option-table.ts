/**
 * `locus run`'s option table: which kind of run reads each option (a simulation, a simulated
 * cluster, a real run, an MPI run), which schedulers read it (the scheduler options come from
 * SCHEDULER_OPTION_READERS, the table the library checks too) and which other option it needs.
 * Every kind of run checks its options against this one table: an option the run would not
 * read is refused in one line (LOCUS_OPTION_CONFLICT), never silently ignored.
 */
import { SCHEDULER_OPTION_READERS } from '../core/scheduler-option-readers.ts';
import { LocusError } from '../core/types.ts';
import type { RunOptions } from './run-command.ts';

/** The kinds of run: `--mode simulated`, `--cluster sim`, `--mode real`, `--mode real --cluster mpi`. */
export type RunKind = 'sim' | 'cluster-sim' | 'real' | 'mpi';

/** One option's row. */
export interface OptionRule {
  /** The option's flag. */
  readonly flag: string;
  /** The kinds of run that read it. */
  readonly runs: readonly RunKind[];
  /** Why a simulation lacks it (a real-only option), shown after the flag. */
  readonly why?: string;
  /** A real run reads it only for these workloads. */
  readonly realWorkloads?: readonly string[];
  /** Only these schedulers read it; `schedulersWhy` says what it is for them. */
  readonly schedulers?: readonly string[];
  readonly schedulersWhy?: string;
  /** It is read only together with another option (with one of these values, if given); `why` explains. */
  readonly needs?: {
    readonly key: keyof RunOptions;
    readonly flag: string;
    readonly values?: readonly string[];
  };
  /** Why a cluster run (`--cluster sim` or `--cluster mpi`) lacks it, when one machine's runs read it. */
  readonly clusterWhy?: string;
  /** The flag sets the option to false (`--no-record`): given when false. */
  readonly negated?: true;
  /** Given when true and when false (`--prefetch` and `--no-prefetch`). */
  readonly both?: true;
}

const SIMS: readonly RunKind[] = ['sim', 'cluster-sim'];
const ALL: readonly RunKind[] = ['sim', 'cluster-sim', 'real', 'mpi'];
const REAL: readonly RunKind[] = ['real', 'mpi'];
/** Why --host-mem and --disk are refused with --cluster. */
const OUT_OF_CORE_ONE_MACHINE =
  'out of core runs on one machine: a simulation or --mode real on worker threads';

/** The table: every option of `locus run` that some kind of run does not read. */
export const OPTION_TABLE: { readonly [K in keyof RunOptions]?: OptionRule } = {
  // Simulations only.
  noise: { flag: '--noise', runs: SIMS },
  chargeScheduling: { flag: '--charge-scheduling', runs: ['sim'] },
  streams: { flag: '--streams', runs: SIMS },
  readyFirst: { flag: '--ready-first', runs: ['sim'] },
  prefetchWindow: { flag: '--prefetch-window', runs: ['sim'] },
  parallelEvictions: { flag: '--parallel-evictions', runs: ['sim'] },
  lazyWritebacks: { flag: '--lazy-writebacks', runs: ['sim'] },
  inner: { flag: '--inner', runs: ALL, realWorkloads: ['matmul2d', 'stencil'] },
  iterations: { flag: '--iterations', runs: ALL, realWorkloads: ['jacobi', 'stencil', 'taskbench'] },
  keepOutputs: { flag: '--keep-outputs', runs: SIMS },
  hostMem: { flag: '--host-mem', runs: ['sim', 'real'], clusterWhy: OUT_OF_CORE_ONE_MACHINE },
  disk: { flag: '--disk', runs: ['sim', 'real'], clusterWhy: OUT_OF_CORE_ONE_MACHINE },
  tasks: { flag: '--tasks', runs: SIMS },
  data: { flag: '--data', runs: SIMS },
  degree: { flag: '--degree', runs: SIMS },
  shared: { flag: '--shared', runs: SIMS },
  pattern: { flag: '--pattern', runs: ALL, realWorkloads: ['taskbench'] },
  width: { flag: '--width', runs: ALL, realWorkloads: ['taskbench'] },
  steps: { flag: '--steps', runs: ALL, realWorkloads: ['taskbench'] },
  kernel: { flag: '--kernel', runs: ALL, realWorkloads: ['taskbench'] },
  radix: { flag: '--radix', runs: ALL, realWorkloads: ['taskbench'] },
  period: { flag: '--period', runs: ALL, realWorkloads: ['taskbench'] },
  outputBytes: { flag: '--output-bytes', runs: ALL, realWorkloads: ['taskbench'] },
  imbalance: { flag: '--imbalance', runs: ALL, realWorkloads: ['taskbench'] },
  scratchBytes: { flag: '--scratch-bytes', runs: ALL, realWorkloads: ['taskbench'] },
  order: { flag: '--order', runs: SIMS },
  runtime: { flag: '--runtime', runs: ['sim'], schedulers: ['static'], schedulersWhy: 'owner-computes' },
  coherence: { flag: '--coherence', runs: ['sim'], schedulers: ['static'], schedulersWhy: 'owner-computes' },
  mapping: { flag: '--mapping', runs: ['sim'], schedulers: ['static'], schedulersWhy: 'owner-computes' },
  cacheLines: {
    flag: '--cache-lines',
    runs: ['sim'],
    needs: { key: 'runtime', flag: '--runtime', values: ['v3', 'v4'] },
    why: 'their software cache of alien blocks',
  },
  serial: {
    flag: '--serial',
    runs: ['sim'],
    schedulers: ['static'],
    schedulersWhy:
      "seed 004's step-by-step tables: in a chain of tasks the others see one ready task at a time, and most place it as eager does",
  },
  stopAfter: { flag: '--stop-after', runs: ['sim'] },
  idle: { flag: '--idle', runs: ['sim'] },
  wakeLatency: {
    flag: '--wake-latency',
    runs: ['sim'],
    needs: { key: 'idle', flag: '--idle', values: ['ea1', 'ea1+ea2'] },
  },
  submitWindow: { flag: '--submit-window', runs: ['sim'] },
  html: { flag: '--html', runs: ['sim', 'real'] },
  // Simulated clusters only.
  nodes: { flag: '--nodes', runs: ['cluster-sim'] },
  nicBandwidth: { flag: '--nic-bandwidth', runs: ['cluster-sim'] },
  networkLatency: { flag: '--network-latency', runs: ['cluster-sim'] },
  keepReceived: { flag: '--keep-received', runs: ['cluster-sim'] },
  distribution: { flag: '--distribution', runs: ['cluster-sim', 'mpi'] },
  verboseRanks: { flag: '--verbose-ranks', runs: ['mpi'] },
  // Real runs only.
  check: { flag: '--check', runs: REAL, why: 'a simulation computes no values' },
  calibrate: { flag: '--calibrate', runs: REAL, why: 'a simulation measures nothing' },
  record: { flag: '--no-record', runs: REAL, why: 'a simulation saves no measurements', negated: true },
  readAhead: { flag: '--read-ahead', runs: ['real'], needs: { key: 'disk', flag: '--disk' } },
  throttle: { flag: '--throttle', runs: REAL, why: "a simulation always runs at the links' speed" },
  checkAccesses: { flag: '--check-accesses', runs: REAL, why: 'a simulation runs no kernel' },
  taskTimeLimit: {
    flag: '--task-time-limit',
    runs: REAL,
    why: 'a simulation runs no kernel that could hang',
  },
  backend: { flag: '--backend', runs: REAL, why: 'a simulation has no backend: it replays the platform' },
  // Every kind of run, some schedulers or with another option.
  prefetch: { flag: '--prefetch', runs: ALL, schedulers: SCHEDULER_OPTION_READERS.prefetch, both: true },
  dartsThreshold: {
    flag: '--darts-threshold',
    runs: ALL,
    schedulers: SCHEDULER_OPTION_READERS.dartsThreshold,
  },
  darts3inputs: { flag: '--darts-3inputs', runs: ALL, schedulers: SCHEDULER_OPTION_READERS.darts3inputs },
  dartsOpti: { flag: '--darts-opti', runs: ALL, schedulers: SCHEDULER_OPTION_READERS.dartsOpti },
  dartsPushFree: {
    flag: '--darts-push-free',
    runs: ALL,
    schedulers: SCHEDULER_OPTION_READERS.dartsPushFree,
  },
  dartsOneFromFree: {
    flag: '--darts-one-from-free',
    runs: ALL,
    schedulers: SCHEDULER_OPTION_READERS.dartsOneFromFree,
  },
  dartsOneAway: {
    flag: '--darts-one-away',
    runs: ALL,
    schedulers: SCHEDULER_OPTION_READERS.dartsOneAway,
  },
  dartsStarpuTies: {
    flag: '--darts-starpu-ties',
    runs: ALL,
    schedulers: SCHEDULER_OPTION_READERS.dartsStarpuTies,
  },
  dartsHostLevel: {
    flag: '--darts-host-level',
    runs: ['sim', 'real'],
    schedulers: SCHEDULER_OPTION_READERS.dartsHostLevel,
    both: true,
  },
  dartsHostAhead: {
    flag: '--darts-host-ahead',
    runs: ['sim', 'real'],
    schedulers: SCHEDULER_OPTION_READERS.dartsHostAhead,
  },
  hfpHostStaging: {
    flag: '--hfp-host-staging',
    runs: ['sim', 'real'],
    schedulers: SCHEDULER_OPTION_READERS.hfpHostStaging,
  },
  criticalSlack: { flag: '--critical-slack', runs: ALL, schedulers: SCHEDULER_OPTION_READERS.criticalSlack },
  criticalLocal: { flag: '--critical-local', runs: ALL, schedulers: SCHEDULER_OPTION_READERS.criticalLocal },
  criticalFixed: { flag: '--critical-fixed', runs: ALL, schedulers: SCHEDULER_OPTION_READERS.criticalFixed },
  criticalTail: {
    flag: '--critical-tail',
    runs: ALL,
    schedulers: SCHEDULER_OPTION_READERS.criticalTail,
  },
  targetClean: { flag: '--target-clean', runs: ALL, needs: { key: 'minClean', flag: '--min-clean' } },
};

/** What each kind of run is called in messages. */
const RUN_NAMES: Record<RunKind, string> = {
  sim: '--mode simulated',
  'cluster-sim': '--cluster sim',
  real: '--mode real',
  mpi: '--cluster mpi',
};

/** Whether option `key` was given (commander leaves absent options undefined). */
function given(o: RunOptions, key: keyof RunOptions, rule: OptionRule): boolean {
  const v = o[key];
  return rule.negated ? v === false : rule.both ? v !== undefined : v !== undefined && v !== false;
}

/** The flag with its spelling as given: `--no-prefetch` for prefetch false. */
function shown(o: RunOptions, key: keyof RunOptions, rule: OptionRule): string {
  if (key === 'prefetch' && o.prefetch === false) return '--no-prefetch';
  if (key === 'dartsHostLevel' && o.dartsHostLevel === false) return '--no-darts-host-level';
  return rule.flag;
}

/** The message refusing `flag` in a run of kind `run`, or undefined when that run reads it. */
function refusal(o: RunOptions, run: RunKind, scheduler: string, key: keyof RunOptions, rule: OptionRule) {
  const flag = shown(o, key, rule);
  if (!rule.runs.includes(run)) {
    if (run === 'cluster-sim' && rule.runs.includes('sim') && !rule.runs.includes('real'))
      return `${flag} does not apply to --cluster sim (the simulated cluster runs every node's whole graph with the default coherence)`;
    if (rule.clusterWhy && (run === 'cluster-sim' || run === 'mpi'))
      return `${flag} does not apply to ${run === 'mpi' ? '--cluster mpi' : '--cluster sim'} (${rule.clusterWhy})`;
    if (rule.runs.length === 1) return `${flag} applies to ${RUN_NAMES[rule.runs[0]!]} only`;
    if (rule.runs.every((r) => r === 'real' || r === 'mpi'))
      return `${flag} applies to --mode real${rule.why ? ` (${rule.why})` : ''}`;
    if (rule.runs.every((r) => r === 'sim' || r === 'cluster-sim'))
      return `${flag} applies to --mode simulated only`;
    return `${flag} applies to ${rule.runs.map((r) => RUN_NAMES[r]).join(' and ')} only`;
  }
  if ((run === 'real' || run === 'mpi') && rule.realWorkloads && !rule.realWorkloads.includes(o.workload))
    return `${flag} applies to --mode simulated only (a real ${o.workload} does not read it)`;
  if (rule.schedulers && !rule.schedulers.includes(scheduler))
    return `${flag} applies to --sched ${rule.schedulers.join(', ')}${rule.schedulersWhy ? ` (${rule.schedulersWhy})` : ''}, not ${scheduler}`;
  const needs = rule.needs;
  if (needs) {
    const v = o[needs.key];
    const ok = needs.values
      ? typeof v === 'string' && needs.values.includes(v)
      : v !== undefined && v !== false;
    if (!ok)
      return needs.values
        ? `${flag} applies to ${needs.flag} ${needs.values.join(' and ')}${rule.why ? ` (${rule.why})` : ''}`
        : `${flag} applies with ${needs.flag} only`;
  }
  return undefined;
}

/**
 * Refuses, in one line, the first option of `o` that a run of kind `run` under scheduler
 * `scheduler` does not read (OPTION_TABLE).
 */
export function checkOptionTable(o: RunOptions, run: RunKind, scheduler: string): void {
  for (const [key, rule] of Object.entries(OPTION_TABLE) as [keyof RunOptions, OptionRule][]) {
    if (!given(o, key, rule)) continue;
    const message = refusal(o, run, scheduler, key, rule);
    if (message !== undefined) throw new LocusError('LOCUS_OPTION_CONFLICT', message);
  }
}

/** The kind of run `o` asks for (after its --mode and --cluster were checked). */
export function runKind(o: RunOptions): RunKind {
  const real = o.mode === 'real';
  if (real) return o.cluster === 'mpi' ? 'mpi' : 'real';
  return o.cluster === 'sim' ? 'cluster-sim' : 'sim';
}
