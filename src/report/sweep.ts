/**
 * Parameter sweeps: one workload at several sizes (values of `--tiles`), under several policy
 * specs, repeated with seeds seed, seed+1, ..., on one platform; one row per simulated run and
 * an aggregate (mean, standard deviation, min, max over the repetitions) per size and policy.
 * Runs can be skipped (rows already known, to resume an interrupted sweep), reported one by one
 * as they end (to write them at once), and interrupted between two runs (an AbortSignal).
 *
 * Each workload instance is built once per size and reused by every policy and repetition:
 * the engine only reads the graph (it copies what it mutates: predecessor counts, task
 * states, replica tables; only a task source's run recycles records out of its graph), so
 * runs cannot see each other.
 *
 * Over 500 lines: the sweep loop, its resumable rows and the aggregation share one row model.
 */
import type { TaskGraph } from '../core/graph.ts';
import type { Platform } from '../core/platform.ts';
import {
  checkSchedulerOptions,
  schedulerOptionsFor,
  unreadSchedulerOptions,
} from '../core/scheduler-option-readers.ts';
import { LocusError } from '../core/types.ts';
import { attachDisk, resolveDisk, withHostMemory } from '../platform/disk.ts';
import { resolvePlatform } from '../platform/presets.ts';
import type { SchedulerOptions } from '../sched/index.ts';
import { type RunSettings, simulate } from '../sim/simulate.ts';
import { generateWorkload, WORKLOADS, type WorkloadParams } from '../workloads/index.ts';
import { type PolicySpec, parsePolicySpecs } from './policy-spec.ts';

/** What a sweep runs; the RunSettings apply to every run. */
export interface SweepSpec extends RunSettings {
  /** Workload generator name (see WORKLOADS). */
  workload: string;
  /** Workload parameters other than the size (tileSize, inner, precision, keepOutputs, ...). */
  params?: Omit<WorkloadParams, 'tiles' | 'seed'>;
  /** The sizes: values of the workload's `tiles` parameter. */
  sizes: readonly number[];
  /** Policy specs: `scheduler` or `scheduler+eviction` (see parsePolicySpec). */
  policies: readonly string[];
  /** Repetitions per size and policy, with seeds seed, seed+1, ... (default 1). */
  reps?: number;
  /** First seed (default 1); also the seed of randomly generated workloads. */
  seed?: number;
  /** Preset name or platform file (default 'v100x2'). */
  platform?: string;
  /** GPUs of the preset. */
  gpus?: number;
  /** CPU workers of the preset. */
  cpus?: number;
  /** Capacity of every GPU memory, bytes. */
  gpuMem?: number;
  /** Relative spread of task durations (see simulate()). */
  noise?: number;
  /** Charge the schedulers' wall-clock decision cost to the workers (see simulate()). */
  chargeScheduling?: boolean;
  /** Task priorities: none (default) or bottom-level (set once per size, before every run). */
  priorities?: 'none' | 'bottom-level';
  /** Out of core: host memory's capacity, bytes (`--host-mem`). */
  hostMem?: number;
  /**
   * Out of core: a disk preset or a disk node of the platform file (`--disk`), attached below
   * host memory for the sizes whose data exceed it (as `locus run --disk` does).
   */
  disk?: string;
}

/** One simulated run. */
export interface SweepRow {
  workload: string;
  /** The platform's name (preset or file). */
  platform: string;
  /** Capacity of the (first) GPU memory, bytes; 0 without GPUs. */
  gpuMemBytes: number;
  tiles: number;
  workingSetBytes: number;
  /** The policy spec's label ("darts+luf"). */
  policy: string;
  scheduler: string;
  /** The eviction policy in effect (a scheduler may bring its own). */
  eviction: string;
  seed: number;
  tasks: number;
  makespanS: number;
  gflops: number;
  bytesToDevices: number;
  bytesFromDevices: number;
  bytesDeviceToDevice: number;
  loads: number;
  evictions: number;
  /** Write-backs home (evicted modified data and end of run) and their bytes. */
  writebacks: number;
  writebackBytes: number;
  /** Energy in joules under the poll idle policy, when the platform has power figures; else null. */
  energyJ: number | null;
  totalFlops: number;
  /** Wall-clock seconds spent in scheduler calls when they are charged, else 0. */
  schedulingS: number;
  /** Wall-clock seconds the simulation took. */
  wallS: number;
  /**
   * Out of core (a sweep with a disk): bytes written to and read from the disk, 0 for a size
   * whose data fit in host memory. Absent without a disk (and not in runs.csv).
   */
  bytesToDisk?: number;
  bytesFromDisk?: number;
}

/** The columns of runs.csv, in order. */
export const RUN_COLUMNS: readonly (keyof SweepRow)[] = [
  'workload',
  'platform',
  'gpuMemBytes',
  'tiles',
  'workingSetBytes',
  'policy',
  'scheduler',
  'eviction',
  'seed',
  'tasks',
  'makespanS',
  'gflops',
  'bytesToDevices',
  'bytesFromDevices',
  'bytesDeviceToDevice',
  'loads',
  'evictions',
  'writebacks',
  'writebackBytes',
  'energyJ',
  'totalFlops',
  'schedulingS',
  'wallS',
];

/** The per-run figures the summary aggregates. */
export const METRICS = [
  'gflops',
  'makespanS',
  'bytesToDevices',
  'bytesFromDevices',
  'bytesDeviceToDevice',
  'loads',
  'evictions',
  'writebackBytes',
  'energyJ',
  'schedulingS',
  'wallS',
] as const;

/** One aggregated metric name. */
export type Metric = (typeof METRICS)[number];

/** The statistics summary.csv gives per metric: mean, sample standard deviation, min, max. */
export const STATS = ['Mean', 'Sd', 'Min', 'Max'] as const;

/**
 * Mean, sample standard deviation (0 for one run), min and max of every metric over the
 * repetitions of one size and policy; null when the metric is null (energy without power figures).
 */
export type SweepSummaryRow = {
  workload: string;
  platform: string;
  gpuMemBytes: number;
  tiles: number;
  workingSetBytes: number;
  policy: string;
  scheduler: string;
  eviction: string;
  /** Runs aggregated. */
  reps: number;
  tasks: number;
  totalFlops: number;
} & Record<`${Exclude<Metric, 'energyJ'>}${(typeof STATS)[number]}`, number> &
  Record<`energyJ${(typeof STATS)[number]}`, number | null>;

/** The columns of summary.csv, in order. */
export const SUMMARY_COLUMNS: readonly (keyof SweepSummaryRow)[] = [
  'workload',
  'platform',
  'gpuMemBytes',
  'tiles',
  'workingSetBytes',
  'policy',
  'scheduler',
  'eviction',
  'reps',
  'tasks',
  'totalFlops',
  ...METRICS.flatMap((m) => STATS.map((st) => `${m}${st}` as const)),
];

/** What a sweep knows about each workload instance. */
export interface SizeInfo {
  tiles: number;
  tasks: number;
  workingSetBytes: number;
  totalFlops: number;
  /** The generator's one-line summary. */
  summary: string;
  /** Flops per codelet name (to find the dominant kernel). */
  codeletFlops: Record<string, number>;
}

/** A checked SweepSpec with its defaults filled in. */
export interface ResolvedSweep {
  workload: string;
  params: Omit<WorkloadParams, 'tiles' | 'seed'>;
  /** Sizes, ascending, without duplicates. */
  sizes: number[];
  policies: PolicySpec[];
  reps: number;
  seed: number;
  platform: string;
  gpus?: number;
  cpus?: number;
  gpuMem?: number;
  noise: number;
  chargeScheduling: boolean;
  schedulerOptions: SchedulerOptions;
  priorities: 'none' | 'bottom-level';
  gpuPipeline?: number;
  gpuLookahead?: number;
  streams?: number;
  cleanFirst?: boolean;
  minClean?: number;
  targetClean?: number;
  hostMem?: number;
  disk?: string;
}

/** A finished sweep. */
export interface SweepResult {
  spec: ResolvedSweep;
  platform: Platform;
  /** One entry per size, in sweep order. */
  sizes: SizeInfo[];
  /** One row per run: sizes x policies x repetitions, in that nesting order. */
  rows: SweepRow[];
  /** One row per size and policy. */
  summary: SweepSummaryRow[];
}

/** Progress of a sweep: called before each run (with `next`) and once at the end. */
export interface SweepProgress {
  /** Runs finished. */
  done: number;
  /** Runs in the sweep. */
  total: number;
  /** The run about to start; absent on the final call. */
  next?: { tiles: number; policy: string; seed: number };
}

function checkInt(what: string, v: number, min: number): number {
  if (!Number.isSafeInteger(v) || v < min) {
    throw new LocusError('LOCUS_OPTION_INVALID', `${what} must be an integer >= ${min} (got ${v})`);
  }
  return v;
}

/**
 * Checks a spec up front (so that a sweep does not fail after an hour): the workload, every
 * size, every policy spec (all unknown names reported at once), the repetitions, the seed,
 * the noise, the priorities and the platform. Throws a one-line LocusError.
 */
export function resolveSweep(spec: SweepSpec): { spec: ResolvedSweep; platform: Platform } {
  if (!Object.hasOwn(WORKLOADS, spec.workload)) {
    throw new LocusError(
      'LOCUS_NAME_UNKNOWN',
      `unknown workload '${spec.workload}': use one of ${Object.keys(WORKLOADS).join(', ')}`,
    );
  }
  if (spec.sizes.length === 0)
    throw new LocusError('LOCUS_OPTION_INVALID', 'no size given: sizes must list at least one tile count');
  for (const s of spec.sizes) checkInt('every size', s, 1);
  const sizes = [...new Set(spec.sizes)].sort((a, b) => a - b);
  const policies = parsePolicySpecs(spec.policies);
  // A scheduler option that none of the sweep's schedulers reads is refused, not ignored.
  for (const [key, value] of Object.entries(spec.schedulerOptions ?? {})) {
    const option = { [key]: value } as SchedulerOptions;
    if (policies.every((p) => unreadSchedulerOptions(p.scheduler, option).length > 0))
      checkSchedulerOptions(policies.map((p) => p.scheduler).join(', '), option);
  }
  const reps = checkInt('reps', spec.reps ?? 1, 1);
  const seed = checkInt('seed', spec.seed ?? 1, 0);
  if (!Number.isSafeInteger(seed + reps))
    throw new LocusError('LOCUS_OPTION_INVALID', `seed ${seed} + reps ${reps} is too large`);
  const noise = spec.noise ?? 0;
  if (!(noise >= 0 && noise < 1))
    throw new LocusError('LOCUS_OPTION_INVALID', `noise must be in [0, 1) (got ${noise})`);
  const priorities = spec.priorities ?? 'none';
  if (priorities !== 'none' && priorities !== 'bottom-level') {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `priorities must be none or bottom-level (got '${String(priorities)}')`,
    );
  }
  const platformName = spec.platform ?? 'v100x2';
  const loaded = resolvePlatform(platformName, { gpus: spec.gpus, cpus: spec.cpus, gpuMem: spec.gpuMem });
  const platform = spec.hostMem === undefined ? loaded : withHostMemory(loaded, spec.hostMem);
  if (spec.disk !== undefined) resolveDisk(platform, spec.disk);
  return {
    spec: {
      workload: spec.workload,
      params: { ...spec.params },
      sizes,
      policies,
      reps,
      seed,
      platform: platformName,
      gpus: spec.gpus,
      cpus: spec.cpus,
      gpuMem: spec.gpuMem,
      noise,
      chargeScheduling: spec.chargeScheduling ?? false,
      schedulerOptions: { ...spec.schedulerOptions },
      priorities,
      gpuPipeline: spec.gpuPipeline,
      gpuLookahead: spec.gpuLookahead,
      streams: spec.streams,
      cleanFirst: spec.cleanFirst,
      minClean: spec.minClean,
      targetClean: spec.targetClean,
      ...(spec.hostMem !== undefined ? { hostMem: spec.hostMem } : {}),
      ...(spec.disk !== undefined ? { disk: spec.disk } : {}),
    },
    platform,
  };
}

/**
 * The platform of one size: out of core, with the sweep's disk attached when the size's data
 * exceed host memory (a disk never needed leaves the run as it is without it).
 */
function platformFor(s: ResolvedSweep, platform: Platform, graph: TaskGraph): Platform {
  if (s.disk === undefined) return platform;
  let bytes = 0;
  for (let h = 0; h < graph.handleCount; h++) bytes += graph.handleSize.data[h]!;
  return bytes > platform.nodes[platform.homeNode]!.capacity
    ? attachDisk(platform, resolveDisk(platform, s.disk))
    : platform;
}

/**
 * The options of a sweep that its simulations get: as they are, but for the scheduler options,
 * of which each scheduler (when given) gets those it reads (SCHEDULER_OPTION_READERS).
 */
export function runSettings(s: ResolvedSweep, scheduler?: string) {
  return {
    schedulerOptions:
      scheduler === undefined ? s.schedulerOptions : schedulerOptionsFor(scheduler, s.schedulerOptions),
    gpuPipeline: s.gpuPipeline,
    gpuLookahead: s.gpuLookahead,
    streams: s.streams,
    cleanFirst: s.cleanFirst,
    minClean: s.minClean,
    targetClean: s.targetClean,
  };
}

/**
 * With scheduling cost charged, runs every policy once on the smallest size first, unrecorded:
 * the first calls of a JavaScript function run before the JIT compiles it, many times slower,
 * and charging that to the first size would measure the JIT rather than the policy.
 */
function warmUp(s: ResolvedSweep, platform: Platform): void {
  const wl = generateWorkload(s.workload, { ...s.params, tiles: s.sizes[0]!, seed: s.seed });
  if (s.priorities === 'bottom-level') wl.graph.setBottomLevelPriorities();
  for (const policy of s.policies) {
    simulate({
      graph: wl.graph,
      platform,
      scheduler: policy.scheduler,
      eviction: policy.eviction,
      seed: s.seed,
      chargeScheduling: true,
      ...runSettings(s, policy.scheduler),
    });
  }
}

/** The key of one run within a sweep: size, policy label and seed. */
export function runKey(r: { tiles: number; policy: string; seed: number }): string {
  return `${r.tiles}\u0000${r.policy}\u0000${r.seed}`;
}

/** How runSweep and runSweepAsync run a sweep beyond its spec. */
export interface SweepRunOptions {
  /** Called before each run and once at the end. */
  onProgress?: (p: SweepProgress) => void;
  /** Called with each new row as its run ends (to write it out at once). */
  onRow?: (row: SweepRow) => void;
  /**
   * Rows already known (an interrupted sweep's runs.csv): their runs are not run again and
   * the rows stand in the result. A row outside this sweep's grid is a LocusError.
   */
  done?: readonly SweepRow[];
  /** Stops the sweep between two runs (runSweepAsync only checks it; see SweepInterrupted). */
  signal?: AbortSignal;
}

/** Thrown when a sweep's signal aborts it: the rows finished so far, in run order. */
export class SweepInterrupted extends Error {
  constructor(
    /** Rows known when the sweep stopped (the `done` ones included). */
    readonly rows: SweepRow[],
    /** Runs in the whole sweep. */
    readonly total: number,
  ) {
    super(`sweep interrupted after ${rows.length} of ${total} runs`);
    this.name = 'SweepInterrupted';
  }
}

/** The capacity of the platform's first GPU memory, bytes (0 without GPUs). */
function gpuMemoryOf(platform: Platform): number {
  const gpu = platform.nodes.find((n) => n.kind === 'gpu');
  return gpu && Number.isFinite(gpu.capacity) ? gpu.capacity : 0;
}

/** Checks `done` rows against the grid; returns them by run key. */
function knownRows(s: ResolvedSweep, platform: Platform, done: readonly SweepRow[]): Map<string, SweepRow> {
  const grid = new Set<string>();
  for (const tiles of s.sizes)
    for (const p of s.policies)
      for (let rep = 0; rep < s.reps; rep++) grid.add(runKey({ tiles, policy: p.label, seed: s.seed + rep }));
  const known = new Map<string, SweepRow>();
  const gpuMem = gpuMemoryOf(platform);
  for (const r of done) {
    const what = `the run N=${r.tiles} ${r.policy} seed ${r.seed} (${r.workload} on ${r.platform}, GPU memory ${r.gpuMemBytes} B)`;
    if (
      r.workload !== s.workload ||
      r.platform !== platform.name ||
      r.gpuMemBytes !== gpuMem ||
      !grid.has(runKey(r))
    ) {
      throw new LocusError(
        'LOCUS_FILE_INVALID',
        `${what} is not part of this sweep (${s.workload} on ${platform.name}, GPU memory ${gpuMem} B): resume with the options of the interrupted sweep, or write to another output folder`,
      );
    }
    known.set(runKey(r), r);
  }
  return known;
}

/**
 * The sweep as a sequence of steps: each `yield` comes after one new run (so that a caller can
 * give the event loop a turn); returns the result. Rows are kept in grid order.
 */
function* sweepSteps(spec: SweepSpec, o: SweepRunOptions): Generator<number, SweepResult> {
  const { spec: s, platform } = resolveSweep(spec);
  const total = s.sizes.length * s.policies.length * s.reps;
  const known = knownRows(s, platform, o.done ?? []);
  const gpuMemBytes = gpuMemoryOf(platform);
  const rows: SweepRow[] = [];
  const sizes: SizeInfo[] = [];
  if (s.chargeScheduling && known.size < total) warmUp(s, platform);
  for (const tiles of s.sizes) {
    const wl = generateWorkload(s.workload, { ...s.params, tiles, seed: s.seed });
    const g = wl.graph;
    if (s.priorities === 'bottom-level') g.setBottomLevelPriorities();
    const codeletFlops: Record<string, number> = {};
    for (let t = 0; t < g.taskCount; t++) {
      const name = g.codelets[g.taskCodelet.data[t]!]!.name;
      codeletFlops[name] = (codeletFlops[name] ?? 0) + g.taskFlops.data[t]!;
    }
    const runOn = platformFor(s, platform, g);
    sizes.push({
      tiles,
      tasks: g.taskCount,
      workingSetBytes: wl.workingSetBytes,
      totalFlops: wl.totalFlops,
      summary: wl.summary,
      codeletFlops,
    });
    for (const policy of s.policies) {
      for (let rep = 0; rep < s.reps; rep++) {
        const seed = s.seed + rep;
        const old = known.get(runKey({ tiles, policy: policy.label, seed }));
        if (old) {
          rows.push(old);
          continue;
        }
        if (o.signal?.aborted) throw new SweepInterrupted(rows, total);
        o.onProgress?.({ done: rows.length, total, next: { tiles, policy: policy.label, seed } });
        const { report } = simulate({
          graph: g,
          platform: runOn,
          scheduler: policy.scheduler,
          eviction: policy.eviction,
          seed,
          noise: s.noise,
          chargeScheduling: s.chargeScheduling,
          ...runSettings(s, policy.scheduler),
          workload: wl.summary,
        });
        const row: SweepRow = {
          workload: s.workload,
          platform: platform.name,
          gpuMemBytes,
          tiles,
          workingSetBytes: wl.workingSetBytes,
          policy: policy.label,
          scheduler: policy.scheduler,
          eviction: report.eviction,
          seed,
          tasks: report.tasks,
          makespanS: report.makespanS,
          gflops: report.gflops,
          bytesToDevices: report.bytesToDevices,
          bytesFromDevices: report.bytesFromDevices,
          bytesDeviceToDevice: report.bytesDeviceToDevice,
          loads: report.loads,
          evictions: report.evictions,
          writebacks: report.writebacks,
          writebackBytes: report.writebackBytes,
          energyJ: report.energyJ,
          totalFlops: report.totalFlops,
          schedulingS: report.schedulingS,
          wallS: report.wallS,
          ...(s.disk !== undefined
            ? { bytesToDisk: report.bytesToDisk ?? 0, bytesFromDisk: report.bytesFromDisk ?? 0 }
            : {}),
        };
        rows.push(row);
        o.onRow?.(row);
        yield rows.length;
      }
    }
  }
  o.onProgress?.({ done: rows.length, total });
  return { spec: s, platform, sizes, rows, summary: summarize(rows) };
}

/**
 * Runs every size x policy x repetition of `spec` (but those in `o.done`) and aggregates.
 * The legacy second argument is a progress callback.
 */
export function runSweep(
  spec: SweepSpec,
  o: SweepRunOptions | ((p: SweepProgress) => void) = {},
): SweepResult {
  const steps = sweepSteps(spec, typeof o === 'function' ? { onProgress: o } : o);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * runSweep giving the event loop a turn after every run, so that a signal (Ctrl-C) can stop it:
 * when `o.signal` aborts, it rejects with SweepInterrupted holding the rows finished so far.
 */
export async function runSweepAsync(spec: SweepSpec, o: SweepRunOptions = {}): Promise<SweepResult> {
  const steps = sweepSteps(spec, o);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Mean, sample standard deviation, min and max of `values` (null if any is null). */
function stats(values: readonly (number | null)[]): [number, number, number, number] | null {
  if (values.some((v) => v === null)) return null;
  const xs = values as number[];
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of xs) {
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / xs.length;
  let sq = 0;
  for (const v of xs) sq += (v - mean) ** 2;
  const sd = xs.length > 1 ? Math.sqrt(sq / (xs.length - 1)) : 0;
  return [mean, sd, min, max];
}

/**
 * Aggregates runs per (size, policy), in first-seen order: mean, sample standard deviation,
 * min and max of each metric.
 */
export function summarize(rows: readonly SweepRow[]): SweepSummaryRow[] {
  const groups = new Map<string, SweepRow[]>();
  for (const r of rows) {
    const key = `${r.workload}\u0000${r.tiles}\u0000${r.policy}`;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()].map((runs) => {
    const first = runs[0]!;
    const out: Record<string, number | string | null> = {
      workload: first.workload,
      platform: first.platform,
      gpuMemBytes: first.gpuMemBytes,
      tiles: first.tiles,
      workingSetBytes: first.workingSetBytes,
      policy: first.policy,
      scheduler: first.scheduler,
      eviction: first.eviction,
      reps: runs.length,
      tasks: first.tasks,
      totalFlops: first.totalFlops,
    };
    for (const m of METRICS) {
      const st = stats(runs.map((r) => r[m]));
      STATS.forEach((name, i) => {
        out[`${m}${name}`] = st ? st[i]! : null;
      });
    }
    return out as SweepSummaryRow;
  });
}
