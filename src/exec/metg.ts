/**
 * Task Bench's METG (minimum effective task granularity; Slaughter et al., SC20, section 4) of
 * this runtime on this machine's worker threads: one Task Bench graph (`pattern`, `width`
 * points, `steps` timesteps) run for real again and again with fewer kernel iterations each
 * time (halving), so that tasks get shorter until the runtime's own cost per task dominates.
 * For each run:
 *
 * - task granularity = wall time x workers / tasks (the average time a task held a core,
 *   the runtime's overhead included);
 * - efficiency = the run's work rate (kernel work / wall time: flops for compute_bound, iterations
 *   for busy_wait) over the peak rate, the highest rate of any run (Task Bench takes the peak
 *   from its largest problem sizes, which the longest tasks approximate);
 *
 * and METG(50%) is the granularity at which efficiency falls to 50%: interpolated in
 * log(granularity) between the smallest-granularity run still at or above 50% and the next run
 * below it (undefined when no run falls below 50%, or none reaches it). The wall time of a run
 * covers submission and execution (Task Bench's elapsed time), on a Runtime opened once, so
 * thread start-up is paid before the first run; one unrecorded run at the largest size warms
 * the threads' compiled code first, and each point keeps the shortest of `rounds` runs (other
 * processes only ever make a run longer). Cost: `rounds` real runs per point.
 */
import { LocusError } from '../core/types.ts';
import { taskbenchGenerator } from '../workloads/taskbench/workload.ts';
import { runWorkload } from './run-workload.ts';
import type { Runtime } from './runtime.ts';

/** What measureMetg() runs. */
export interface MetgOptions {
  /** The runtime to run on (its workers are the cores counted; left open). */
  runtime: Runtime;
  /** Worker threads of the runtime (the cores of the granularity). */
  workers: number;
  /** Task Bench pattern (default stencil_1d). */
  pattern?: string;
  /** compute_bound (default) or busy_wait: a kernel whose work is counted. */
  kernel?: 'compute_bound' | 'busy_wait';
  /** Points per timestep (default: the workers). */
  width?: number;
  /** Timesteps (default 200). */
  steps?: number;
  /** Kernel iterations of the first, longest run (default 2^15); halved down to 1. */
  maxIterations?: number;
  /** Runs per point, the shortest kept (default 3). */
  rounds?: number;
  /** Called after each run. */
  onPoint?: (p: MetgPoint, index: number, total: number) => void;
}

/** One run of the METG sweep. */
export interface MetgPoint {
  /** Kernel iterations per task. */
  iterations: number;
  /** Tasks in the graph. */
  tasks: number;
  /** Wall time of the run, submission included (s). */
  wallS: number;
  /** Task granularity: wall x workers / tasks (µs). */
  granularityUs: number;
  /** Kernel work per second (flops, or busy_wait iterations). */
  workRate: number;
  /** workRate over the sweep's peak rate. */
  efficiency: number;
}

/** The sweep's result. */
export interface MetgResult {
  pattern: string;
  kernel: string;
  width: number;
  steps: number;
  workers: number;
  points: MetgPoint[];
  /** The highest work rate of the sweep. */
  peakRate: number;
  /** METG(50%) in µs, when the sweep crosses 50%. */
  metgUs: number | undefined;
}

/**
 * Tasks of a Task Bench graph: one per point, each writing one output (a runtime's report
 * counts every task since it opened, so the graph says).
 */
function taskCount(pattern: string, width: number, steps: number): number {
  const shape = taskbenchGenerator.instance({ pattern, width, steps });
  return shape.dataBytes / shape.outputBytes;
}

/** Work of one task of `kernel` at `iterations` (Task Bench's flop count, or its iterations). */
function taskWork(kernel: string, iterations: number): number {
  return kernel === 'compute_bound' ? 2 * 64 * iterations + 64 : iterations;
}

/** Runs the sweep (see the file comment). */
export async function measureMetg(o: MetgOptions): Promise<MetgResult> {
  const pattern = o.pattern ?? 'stencil_1d';
  const kernel = o.kernel ?? 'compute_bound';
  if (kernel !== 'compute_bound' && kernel !== 'busy_wait')
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `METG needs a kernel whose work is counted: compute_bound or busy_wait (got '${String(kernel)}')`,
    );
  const width = o.width ?? o.workers;
  const steps = o.steps ?? 200;
  const maxIterations = o.maxIterations ?? 2 ** 15;
  if (!(Number.isInteger(maxIterations) && maxIterations >= 1))
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `maxIterations must be a positive integer (got ${maxIterations})`,
    );
  const rounds = o.rounds ?? 3;
  if (!(Number.isInteger(rounds) && rounds >= 1))
    throw new LocusError('LOCUS_OPTION_INVALID', `rounds must be a positive integer (got ${rounds})`);
  const sweep: number[] = [];
  for (let i = maxIterations; i >= 1; i = Math.floor(i / 2)) sweep.push(i);
  const graphTasks = taskCount(pattern, width, steps);
  const run = async (iterations: number) => {
    const t0 = performance.now();
    await runWorkload('taskbench', {
      runtime: o.runtime,
      tiles: 1,
      tileSize: 1,
      workloadParams: { pattern, kernel, width, steps, iterations },
    });
    return { wallS: (performance.now() - t0) / 1000, tasks: graphTasks };
  };
  await run(maxIterations);
  const raw: Omit<MetgPoint, 'efficiency'>[] = [];
  for (const [index, iterations] of sweep.entries()) {
    let wallS = Number.POSITIVE_INFINITY;
    let tasks = 0;
    for (let k = 0; k < rounds; k++) {
      const r = await run(iterations);
      wallS = Math.min(wallS, r.wallS);
      tasks = r.tasks;
    }
    const point = {
      iterations,
      tasks,
      wallS,
      granularityUs: ((wallS * o.workers) / tasks) * 1e6,
      workRate: (taskWork(kernel, iterations) * tasks) / wallS,
    };
    raw.push(point);
    o.onPoint?.({ ...point, efficiency: Number.NaN }, index, sweep.length);
  }
  const peakRate = Math.max(...raw.map((p) => p.workRate));
  const points = raw.map((p) => ({ ...p, efficiency: p.workRate / peakRate }));
  return { pattern, kernel, width, steps, workers: o.workers, points, peakRate, metgUs: metgOf(points) };
}

/** METG(50%) of points in decreasing granularity (see the file comment), or undefined. */
export function metgOf(
  points: readonly Pick<MetgPoint, 'granularityUs' | 'efficiency'>[],
): number | undefined {
  const sorted = [...points].sort((a, b) => b.granularityUs - a.granularityUs);
  for (let i = 0; i + 1 < sorted.length; i++) {
    const a = sorted[i]!;
    const b = sorted[i + 1]!;
    if (a.efficiency >= 0.5 && b.efficiency < 0.5) {
      const f = (a.efficiency - 0.5) / (a.efficiency - b.efficiency);
      return Math.exp(
        Math.log(a.granularityUs) + f * (Math.log(b.granularityUs) - Math.log(a.granularityUs)),
      );
    }
  }
  return undefined;
}

/**
 * The task granularity of Task Bench's empty kernel (no work: wall x workers / tasks of the
 * shortest of `rounds` runs, after one unrecorded run): the runtime's own cost per task, the
 * floor under any METG on this machine.
 */
export async function measureEmptyGranularity(
  o: Omit<MetgOptions, 'kernel' | 'maxIterations' | 'onPoint'>,
): Promise<{
  pattern: string;
  width: number;
  steps: number;
  workers: number;
  tasks: number;
  wallS: number;
  granularityUs: number;
}> {
  const pattern = o.pattern ?? 'stencil_1d';
  const width = o.width ?? o.workers;
  const steps = o.steps ?? 200;
  const rounds = o.rounds ?? 3;
  const tasks = taskCount(pattern, width, steps);
  let wallS = Number.POSITIVE_INFINITY;
  for (let k = 0; k <= rounds; k++) {
    const t0 = performance.now();
    await runWorkload('taskbench', {
      runtime: o.runtime,
      tiles: 1,
      tileSize: 1,
      workloadParams: { pattern, kernel: 'empty', width, steps },
    });
    if (k > 0) wallS = Math.min(wallS, (performance.now() - t0) / 1000);
  }
  return {
    pattern,
    width,
    steps,
    workers: o.workers,
    tasks,
    wallS,
    granularityUs: ((wallS * o.workers) / tasks) * 1e6,
  };
}
