/**
 * Task Bench as a workload (`-w taskbench --pattern P --width W --steps S --kernel K
 * --iterations I`; Slaughter et al., SC20): a graph of `steps` timesteps of up to `width`
 * points, point x of timestep t writing its own output (`outputBytes`, default Task Bench's 16)
 * and reading the outputs of the points of timestep t-1 that the pattern gives (pattern.ts,
 * Task Bench's rules exactly), so that the dependencies Locus infers are Task Bench's. A task's
 * flops are Task Bench's count for its kernel: compute_bound 2 x 64 x iterations + 64,
 * load_imbalance the same with each task's iterations drawn as Task Bench draws them (SipHash of
 * graph, timestep and point, spread by `imbalance`), empty, busy_wait and memory_bound none (in a
 * simulation they take no time: their cost is not in flops). Real runs run Task Bench's kernels
 * (src/kernels/taskbench.ts: each task checks its inputs' timesteps); memory_bound streams
 * through `scratchBytes` of scratch memory per task (one buffer per worker thread).
 */
import { AccessMode, LocusError } from '../../core/types.ts';
import { TASKBENCH_KERNEL_CODES } from '../../kernels/taskbench.ts';
import { CPU_GPU, intParam } from '../common.ts';
import { defineWorkload } from '../define.ts';
import type { SubmitAccess, Submitter } from '../submitter.ts';
import type { Workload, WorkloadInstance, WorkloadParams } from '../types.ts';
import {
  checkShape,
  needsPeriod,
  offsetAt,
  pointDependencies,
  TASKBENCH_PATTERNS,
  type TaskBenchPattern,
  type TaskBenchShape,
  uniform,
  widthAt,
} from './pattern.ts';

/** Task Bench's kernels (its `-kernel`) that the workload models. */
export const TASKBENCH_KERNELS = [
  'empty',
  'busy_wait',
  'compute_bound',
  'memory_bound',
  'load_imbalance',
] as const;

/** One of TASKBENCH_KERNELS. */
export type TaskBenchKernel = (typeof TASKBENCH_KERNELS)[number];

/** Task Bench's defaults (core.cc): a 4 x 4 trivial graph, empty kernel, 16-byte outputs. */
export const TASKBENCH_DEFAULTS = {
  pattern: 'trivial',
  width: 4,
  steps: 4,
  kernel: 'empty',
  iterations: 0,
  radix: 3,
  outputBytes: 16,
  imbalance: 0,
  scratchBytes: 0,
  samples: 16,
} as const;

/** Largest graph the generator builds (steps x width). */
const MAX_TASKS = 20_000_000;

/** A validated Task Bench instance. */
export interface TaskBenchInstance extends WorkloadInstance {
  shape: TaskBenchShape;
  kernel: TaskBenchKernel;
  iterations: number;
  outputBytes: number;
  imbalance: number;
  /** Bytes of each task's scratch memory (memory_bound streams through it). */
  scratchBytes: number;
}

function instance(params: WorkloadParams): TaskBenchInstance {
  const pattern = params.pattern ?? TASKBENCH_DEFAULTS.pattern;
  if (!(TASKBENCH_PATTERNS as readonly string[]).includes(pattern))
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `pattern must be one of ${TASKBENCH_PATTERNS.join(', ')} (got '${pattern}')`,
      { params: ['pattern'] },
    );
  const kernel = params.kernel ?? TASKBENCH_DEFAULTS.kernel;
  if (!(TASKBENCH_KERNELS as readonly string[]).includes(kernel))
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `kernel must be one of ${TASKBENCH_KERNELS.join(', ')} (got '${kernel}')`,
      { params: ['kernel'] },
    );
  const p = pattern as TaskBenchPattern;
  const width = intParam('width', params.width, TASKBENCH_DEFAULTS.width, 1, 1_000_000);
  const steps = intParam('steps', params.steps, TASKBENCH_DEFAULTS.steps, 1, 1_000_000);
  const radix = intParam('radix', params.radix, TASKBENCH_DEFAULTS.radix, 0, 1_000_000);
  const period = intParam('period', params.period, needsPeriod(p) ? 3 : 0, 0, 1_000_000);
  const iterations = intParam('iterations', params.iterations, TASKBENCH_DEFAULTS.iterations, 0, 1e12);
  const outputBytes = intParam('outputBytes', params.outputBytes, TASKBENCH_DEFAULTS.outputBytes, 8, 1 << 30);
  if (outputBytes % 8 !== 0)
    throw new LocusError('LOCUS_OPTION_INVALID', `outputBytes must be a multiple of 8 (got ${outputBytes})`, {
      params: ['outputBytes'],
    });
  const imbalance = params.imbalance ?? TASKBENCH_DEFAULTS.imbalance;
  if (!(Number.isFinite(imbalance) && imbalance >= 0 && imbalance <= 2))
    throw new LocusError('LOCUS_OPTION_INVALID', `imbalance must be in [0, 2] (got ${imbalance})`, {
      params: ['imbalance'],
    });
  const scratchBytes = intParam(
    'scratchBytes',
    params.scratchBytes,
    TASKBENCH_DEFAULTS.scratchBytes,
    0,
    1 << 30,
  );
  if (scratchBytes % 8 !== 0)
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `scratchBytes must be a multiple of 8 (got ${scratchBytes})`,
      {
        params: ['scratchBytes'],
      },
    );
  if (width * steps > MAX_TASKS)
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `width x steps must be at most ${MAX_TASKS} (got ${width} x ${steps})`,
      {
        params: ['width', 'steps'],
      },
    );
  const shape: TaskBenchShape = { pattern: p, steps, width, radix, period, fraction: 0.25, graphIndex: 0 };
  checkShape(shape);
  let points = 0;
  for (let t = 0; t < steps; t++) points += widthAt(shape, t);
  return {
    shape,
    kernel: kernel as TaskBenchKernel,
    iterations,
    outputBytes,
    imbalance,
    scratchBytes,
    description: `${pattern} ${steps} steps x ${width} points, kernel ${kernel} (${iterations} iterations), ${outputBytes}-byte outputs`,
    dataBytes: points * outputBytes,
    params: {
      tiles: width,
      tileSize: 1,
      precision: 'double',
      pattern,
      width,
      steps,
      kernel,
      iterations,
      radix,
      period,
      outputBytes,
      imbalance,
    },
  };
}

/** Task Bench's iterations of a load_imbalance task (core_kernel.cc's select_imbalance_iterations). */
function imbalanceIterations(tb: TaskBenchInstance, t: number, x: number): number {
  const u = uniform([tb.shape.graphIndex, t, x]);
  return Math.round((1 + (u - 0.5) * tb.imbalance) * tb.iterations);
}

/** Submits the graph: timestep by timestep, point by point, as Task Bench's implementations do. */
function submit(s: Submitter, tb: TaskBenchInstance): void {
  const { shape, kernel } = tb;
  if (s.computes && kernel === 'memory_bound' && tb.scratchBytes < 16 * TASKBENCH_DEFAULTS.samples)
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `kernel memory_bound streams through each task's scratch memory: give scratchBytes of at least ${16 * TASKBENCH_DEFAULTS.samples} (got ${tb.scratchBytes})`,
      { params: ['scratchBytes'] },
    );
  const code = TASKBENCH_KERNEL_CODES[kernel];
  const cl = s.codelet({ name: `taskbench_${kernel}`, kinds: CPU_GPU }, 'taskbenchTask');
  const length = tb.outputBytes / 8;
  let previous = new Map<number, number>();
  const accesses: SubmitAccess[] = [];
  for (let t = 0; t < shape.steps; t++) {
    const current = new Map<number, number>();
    const lo = offsetAt(shape, t);
    for (let x = lo; x < lo + widthAt(shape, t); x++) {
      const out = s.data({ name: `out[${t},${x}]`, type: 'float64', length });
      current.set(x, out);
      accesses.length = 0;
      accesses.push([out, AccessMode.W]);
      for (const y of pointDependencies(shape, t, x)) accesses.push([previous.get(y)!, AccessMode.R]);
      const iterations = kernel === 'load_imbalance' ? imbalanceIterations(tb, t, x) : tb.iterations;
      const flops = kernel === 'compute_bound' || kernel === 'load_imbalance' ? 2 * 64 * iterations + 64 : 0;
      s.submit(cl, accesses, {
        flops,
        args: [code, iterations, t, x, tb.scratchBytes, TASKBENCH_DEFAULTS.samples],
        name: `TB(${t},${x})`,
      });
    }
    previous = current;
  }
}

/** The Task Bench generator. */
export const taskbenchGenerator = defineWorkload({
  name: 'taskbench',
  description:
    "Task Bench's dependence patterns and kernels (SC20): steps x width points, each reading its pattern's points of the previous step",
  instance,
  submit,
});

/** Builds a Task Bench workload. */
export function taskbench(params: WorkloadParams = {}): Workload {
  return taskbenchGenerator.generate(params);
}
