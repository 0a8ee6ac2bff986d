/** `locus run`: build a workload, simulate it on a platform under chosen policies, report. */
import { parseCoherence, runtimeVersion } from '../coherence/versions.ts';
import type { CoherenceOptions } from '../core/engine.ts';
import type { TaskGraph } from '../core/graph.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { attachDisk, resolveDisk, withHostMemory } from '../platform/disk.ts';
import { loadPlatform } from '../platform/load.ts';
import { parsePolicySpec } from '../report/policy-spec.ts';
import { type BlockMapping, handleOwnerNodes, parseMapping } from '../sched/mapping.ts';
import { simulateAsync } from '../sim/simulate.ts';
import type { ChromeTrace } from '../trace/chrome.ts';
import { parseIdlePolicy } from '../trace/energy.ts';
import type { RunReport } from '../trace/report.ts';
import { generateWorkload } from '../workloads/index.ts';
import { prefixGraph } from '../workloads/prefix.ts';
import { forFlag, isInterrupted } from './errors.ts';
import { formatReport } from './format.ts';
import { Interrupt } from './interrupt.ts';
import { checkOptionTable, runKind } from './option-table.ts';
import { checkHtmlFile, checkPriorities, checkTraceFile, workloadParams } from './run-inputs.ts';
import { type SimulationFlags, schedulerOptionsFrom } from './sim-options.ts';

/** The size options each workload reads; giving another is an error, not silently ignored. */
const WORKLOAD_OPTIONS: Record<string, readonly (keyof RunOptions)[]> = {
  matmul2d: ['tiles', 'tileSize', 'inner', 'precision', 'keepOutputs'],
  gemm: ['tiles', 'tileSize', 'precision'],
  cholesky: ['tiles', 'tileSize', 'precision', 'order'],
  lu: ['tiles', 'tileSize', 'precision'],
  lupp: ['tiles', 'tileSize', 'precision'],
  stencil: ['tiles', 'tileSize', 'inner', 'precision', 'iterations'],
  jacobi: ['tiles', 'tileSize', 'precision', 'iterations'],
  random: ['tasks', 'data', 'degree', 'shared', 'tileSize', 'precision'],
  taskbench: [
    'pattern',
    'width',
    'steps',
    'kernel',
    'iterations',
    'radix',
    'period',
    'outputBytes',
    'imbalance',
    'scratchBytes',
  ],
};

const FLAG: Partial<Record<keyof RunOptions, string>> = {
  tiles: '--tiles',
  tileSize: '--tile-size',
  inner: '--inner',
  precision: '--precision',
  keepOutputs: '--keep-outputs',
  iterations: '--iterations',
  tasks: '--tasks',
  data: '--data',
  degree: '--degree',
  shared: '--shared',
  order: '--order',
  pattern: '--pattern',
  width: '--width',
  steps: '--steps',
  kernel: '--kernel',
  radix: '--radix',
  period: '--period',
  outputBytes: '--output-bytes',
  imbalance: '--imbalance',
  scratchBytes: '--scratch-bytes',
};

/** Rejects size options the chosen workload does not read. */
export function checkWorkloadOptions(o: RunOptions): void {
  const allowed = WORKLOAD_OPTIONS[o.workload];
  if (!allowed) return; // an unknown workload is reported by generateWorkload
  for (const key of Object.keys(FLAG) as (keyof RunOptions)[]) {
    if (o[key] !== undefined && !allowed.includes(key)) {
      throw new LocusError(
        'LOCUS_OPTION_CONFLICT',
        `${FLAG[key]} does not apply to ${o.workload}, which reads ${allowed.map((k) => FLAG[k]).join(', ')}`,
      );
    }
  }
}

/** Options of `locus run` as commander parses them. */
export interface RunOptions extends SimulationFlags {
  workload: string;
  tiles?: number;
  tileSize?: number;
  inner?: number;
  precision?: string;
  iterations?: number;
  tasks?: number;
  data?: number;
  degree?: number;
  shared?: number;
  pattern?: string;
  width?: number;
  steps?: number;
  kernel?: string;
  radix?: number;
  period?: number;
  outputBytes?: number;
  imbalance?: number;
  /** --scratch-bytes (taskbench). */
  scratchBytes?: number;
  keepOutputs?: boolean;
  /** false with --no-hints: the workload gives no wontUse hints. */
  hints?: boolean;
  platform?: string;
  gpus?: number;
  cpus?: number;
  gpuMem?: number;
  /** --host-mem: host memory's capacity in bytes (simulations; real runs out of core). */
  hostMem?: number;
  /**
   * --disk: out of core, a disk preset or a disk node of the platform file (simulations), a
   * directory for the disk's file (real runs).
   */
  disk?: string;
  /** --read-ahead: real runs out of core read the ready tasks' inputs ahead (RuntimeOptions.readAhead). */
  readAhead?: boolean;
  /** Real runs: threads (default) or webgpu. */
  backend?: string;
  /** 'mpi' (real runs) runs distributed over MPI (src/cluster/run-cluster.ts); 'sim' simulates a cluster. */
  cluster?: string;
  /** --cluster sim: nodes used (the first N of the platform's cluster). */
  nodes?: number;
  /** --cluster sim: NIC bandwidth replacing the platform's (bytes/s). */
  nicBandwidth?: number;
  /** --cluster sim: network latency replacing the platform's (seconds). */
  networkLatency?: number;
  /** --cluster sim: received copies stay for the whole run instead of being dropped. */
  keepReceived?: boolean;
  /** --cluster: the data distribution (2d, 2d:PxQ, 1d). */
  distribution?: string;
  /** --cluster: every rank prints its report. */
  verboseRanks?: boolean;
  sched: string;
  eviction?: string;
  seed: number;
  noise?: number;
  chargeScheduling?: boolean;
  submitWindow?: number;
  pipeline?: number;
  /** --ready-first (simulation). */
  readyFirst?: boolean;
  /** --prefetch-window (simulation; EngineOptions.prefetchWindow). */
  prefetchWindow?: number;
  /** --parallel-evictions (simulation; EngineOptions.parallelEvictions). */
  parallelEvictions?: boolean;
  /** --lazy-writebacks (simulation; EngineOptions.lazyWritebacks). */
  lazyWritebacks?: boolean;
  priorities: string;
  mode: string;
  check?: boolean;
  order?: string;
  runtime?: string;
  coherence?: string;
  mapping?: string;
  cacheLines?: number;
  serial?: boolean;
  stopAfter?: number;
  idle?: string;
  wakeLatency?: number;
  calibrate?: boolean;
  /** false with --no-record: a real run does not save its measurements into the models. */
  record?: boolean;
  throttle?: boolean;
  /** --check-accesses: real runs check every kernel's declared accesses. */
  checkAccesses?: boolean;
  /** --task-time-limit, seconds. */
  taskTimeLimit?: number;
  json?: boolean;
  trace?: string;
  /** --html: the run's HTML report (src/html-report). */
  html?: string;
  progress: boolean;
}

/**
 * Runs the command and writes its output; throws LocusError on bad input. Modules only some
 * runs need (the cluster simulator, the progress bar, the platform-file schema) load on demand.
 */
export async function runCommand(o: RunOptions): Promise<void> {
  if (o.cluster !== undefined && o.cluster !== 'sim')
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `--cluster ${o.cluster}: a simulation takes --cluster sim (a simulated cluster); --cluster mpi applies to --mode real (run it under mpirun)`,
    );
  checkOptionTable(o, runKind(o), parsePolicySpec(o.sched).scheduler);
  if (o.cluster === 'sim') {
    (await import('./cluster-sim-command.ts')).clusterSimCommand(o);
    return;
  }
  if (o.precision !== undefined && o.precision !== 'single' && o.precision !== 'double') {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--precision must be single or double (got '${o.precision}')`,
    );
  }
  checkPriorities(o);
  checkWorkloadOptions(o);
  const policy = parsePolicySpec(o.sched);
  if (policy.eviction !== undefined && o.eviction !== undefined && o.eviction !== policy.eviction) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `--sched ${o.sched} names eviction ${policy.eviction} but --eviction says ${o.eviction}: give one`,
    );
  }
  const eviction = policy.eviction ?? o.eviction ?? 'lru';
  const loaded = await loadPlatform(o.platform ?? 'v100x2', {
    gpus: o.gpus,
    cpus: o.cpus,
    gpuMem: o.gpuMem,
  });
  if (loaded.cluster !== undefined) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `platform ${loaded.name} is a cluster of ${loaded.cluster.nodes.length} nodes: simulate it with --cluster sim (and --nodes N)`,
    );
  }
  checkTraceFile(o.trace);
  checkHtmlFile(o);
  const capped = o.hostMem === undefined ? loaded : withHostMemory(loaded, o.hostMem);
  const disk = o.disk === undefined ? undefined : resolveDisk(capped, o.disk);
  const wl = generateWorkload(o.workload, {
    ...workloadParams(o),
    // Refuse data larger than the host memory (or the disk) before generating the tasks.
    host:
      disk === undefined
        ? capped.nodes[capped.homeNode]!
        : { name: disk.name, capacity: disk.capacity, kind: 'disk' },
  });
  // The disk is attached only when the data do not fit in host memory: a run whose data fit
  // is the same run as without --disk.
  const platform =
    disk !== undefined && handleBytes(wl.graph) > capped.nodes[capped.homeNode]!.capacity
      ? attachDisk(capped, disk)
      : capped;
  if (o.priorities === 'bottom-level') wl.graph.setBottomLevelPriorities();
  const owner = ownerComputes(o, policy.scheduler, platform, wl.graph);
  const graph =
    o.serial || o.stopAfter !== undefined
      ? prefixGraph(wl.graph, o.stopAfter ?? wl.graph.taskCount, o.serial ?? false)
      : wl.graph;
  const total = graph.taskCount;
  const bar =
    o.progress && process.stderr.isTTY && total >= 20_000
      ? new (await import('cli-progress')).SingleBar({
          format: 'simulating [{bar}] {percentage}% | {value}/{total} tasks | {eta}s left',
          stream: process.stderr,
          clearOnComplete: true,
        })
      : undefined;
  const idle = forFlag('--idle', () => parseIdlePolicy(o.idle ?? 'poll'));
  bar?.start(total, 0);
  // Ctrl-C or SIGTERM stops the simulation between two events; the trace then holds what ran.
  const interrupt = new Interrupt();
  const run = simulateAsync(
    {
      graph,
      platform,
      scheduler: policy.scheduler,
      schedulerOptions: { ...schedulerOptionsFrom(o), mapping: owner.mapping },
      coherence: owner.coherence,
      flushAtEnd: o.stopAfter === undefined,
      cleanFirst: o.cleanFirst,
      minClean: o.minClean,
      targetClean: o.targetClean,
      idle,
      wakeLatency: o.wakeLatency,
      eviction,
      seed: o.seed,
      gpuPipeline: o.pipeline,
      gpuLookahead: o.lookahead,
      readyFirst: o.readyFirst,
      prefetchWindow: o.prefetchWindow,
      parallelEvictions: o.parallelEvictions,
      lazyWritebacks: o.lazyWritebacks,
      streams: o.streams,
      noise: o.noise,
      chargeScheduling: o.chargeScheduling,
      submitWindow: o.submitWindow,
      workload: wl.summary,
      // Streamed to the file as the run goes: a trace of millions of events fits no string.
      traceFile: o.trace,
      // --html alone: the trace in memory, for the page.
      trace: o.html !== undefined,
      onProgress: bar ? (done) => bar.update(done) : undefined,
    },
    interrupt.signal,
  );
  let report: RunReport;
  let trace: ChromeTrace | undefined;
  try {
    ({ report, trace } = await run);
  } catch (e) {
    bar?.stop();
    if (!isInterrupted(e)) throw e;
    const trace = o.trace === undefined ? '' : `; the trace of what ran is in ${o.trace}`;
    process.stderr.write(`locus: ${interrupt.verb}: ${(e as Error).message}${trace}\n`);
    process.exitCode = interrupt.exitCode;
    return;
  } finally {
    interrupt.dispose();
  }
  bar?.stop();
  let html: string | undefined;
  if (o.html !== undefined) {
    const { writeRunHtml } = await import('./report-command.ts');
    const json =
      o.trace !== undefined
        ? (await import('../html-report/index.ts')).readTraceFile(o.trace)
        : trace!.toJSON();
    html = await writeRunHtml(o.html, json);
  }
  if (o.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(`${formatReport(report)}\n`);
    if (o.trace) process.stdout.write(`trace written to ${o.trace} (open it in https://ui.perfetto.dev)\n`);
    if (html) process.stdout.write(`${html}\n`);
  }
}

/**
 * The owner-computes settings of a run: `--mapping` (static only) and `--runtime v1..v4`
 * (seed 004's coherence presets, static only), with `--cache-lines` for v3 and v4.
 */
function ownerComputes(
  o: RunOptions,
  scheduler: string,
  platform: Platform,
  graph: TaskGraph,
): { mapping?: BlockMapping; coherence?: CoherenceOptions } {
  const isStatic = scheduler === 'static';
  // (Which scheduler and options --mapping, --runtime and --cache-lines need: OPTION_TABLE.)
  if (o.runtime !== undefined && o.coherence !== undefined) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      '--runtime and --coherence both set the coherence policies: give one',
    );
  }
  if (!isStatic) return {};
  const gpus = platform.workers.filter((w) => w.kind === 'gpu').length;
  const mapping = gpus > 0 ? forFlag('--mapping', () => parseMapping(o.mapping ?? '2d', gpus)) : undefined;
  if (mapping === undefined) return {};
  const owners = () => handleOwnerNodes(graph, platform, mapping);
  if (o.coherence !== undefined)
    return { mapping, coherence: forFlag('--coherence', () => parseCoherence(o.coherence!, owners())) };
  if (o.runtime === undefined) return { mapping };
  return {
    mapping,
    coherence: forFlag('--runtime', () => runtimeVersion(o.runtime!, owners(), o.cacheLines)),
  };
}

/** Bytes of every handle of the graph (what its home node holds). O(handles). */
function handleBytes(graph: TaskGraph): number {
  let bytes = 0;
  for (let h = 0; h < graph.handleCount; h++) bytes += graph.handleSize.data[h]!;
  return bytes;
}
