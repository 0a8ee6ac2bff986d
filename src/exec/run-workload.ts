/**
 * Runs a workload for real: the same generator the simulator reads (src/workloads/) submits
 * its tasks to a Runtime through a RuntimeSubmitter, the worker threads run the kernels of
 * src/kernels/tasks.ts, and the results come home. With `check`, the same generator runs
 * once more through a SequentialSubmitter (every kernel in submission order, in this thread)
 * and the residual is the relative difference over all the workload's data; the
 * factorizations also get their backward error (workload-checks.ts).
 */

import { totalmem } from 'node:os';
import { LocusError } from '../core/types.ts';
import { relativeDifference } from '../kernels/residual.ts';
import type { RunReport } from '../trace/report.ts';
import { formatBytes } from '../workloads/common.ts';
import { WORKLOADS } from '../workloads/index.ts';
import type { WorkloadParams } from '../workloads/types.ts';
import type { OutOfCoreStats, Runtime, RuntimeOptions } from './runtime.ts';
import { RuntimeSubmitter } from './runtime-submitter.ts';
import { SequentialSubmitter } from './sequential-submitter.ts';
import {
  BACKWARD_ERROR_MAX_N,
  type DataByName,
  GPU_ONLY_WORKLOADS,
  REAL_WORKLOADS,
} from './workload-checks.ts';

/** Most bytes of data a real run declares (three 8192 x 8192 float64 matrices). */
export const REAL_MAX_BYTES = 3 * 2 ** 30;

/** Options of a real workload run: the runtime's, and the workload's sizes. */
export interface RealRunOptions extends RuntimeOptions {
  /** Tiles per matrix edge (row blocks of jacobi). */
  tiles: number;
  /** matmul2d's inner dimension, the stencil's grid depth (the generators' defaults when absent). */
  inner?: number | undefined;
  /** Tile edge. */
  tileSize: number;
  /** Element type (default double). */
  precision?: 'double' | 'single' | undefined;
  /** Iterations of iterated workloads (jacobi; default 10). */
  iterations?: number | undefined;
  /** Compare with a sequential run of the same kernels (and report the residuals). */
  check?: boolean | undefined;
  /** Seed of the initial values (default 1). */
  dataSeed?: number | undefined;
  /** wontUse hints where the workload has them (default true; see WorkloadParams.hints). */
  hints?: boolean | undefined;
  /**
   * The workload's own parameters beyond sizes (taskbench's pattern, width, steps, kernel, ...:
   * WorkloadParams), passed to its generator as given.
   */
  workloadParams?: Partial<WorkloadParams> | undefined;
  /**
   * Run on this runtime (its platform, mode and policies; left open) instead of creating one
   * from the options.
   */
  runtime?: Runtime | undefined;
  /** With `trace`: receives the run's Chrome trace (JSON) when it ends. */
  onTrace?: ((json: unknown) => void) | undefined;
}

/** What a real workload run gives back. */
export interface RealRunResult {
  /** The runtime's report. */
  report: RunReport;
  /** With check: ||X - X_seq||_F / ||X_seq||_F over all data against the sequential run. */
  residual?: number;
  /** With check: the factorisation's backward error (||A - L L^T|| / ||A||, ||P A - L U|| / ||A||). */
  backwardError?: number;
  /** One line describing the problem ("cholesky 6x6 tiles of 32, double"). */
  workload: string;
  /** Out of core: the host memory cap, the most host buffers held, the disk's traffic. */
  outOfCore?: OutOfCoreStats;
}

/** Names of the workloads that run for real. */
export const REAL_WORKLOAD_NAMES: readonly string[] = Object.keys(REAL_WORKLOADS);

/**
 * The generator, validated instance and one-line description of workload `name` as a real run
 * builds it from `o` (double precision unless asked; shared by the cluster runner).
 */
export function realInstance(name: string, o: RealRunOptions) {
  const generator = WORKLOADS[name]!;
  const instance = generator.instance({
    tiles: o.tiles,
    tileSize: o.tileSize,
    precision: o.precision ?? 'double',
    iterations: o.iterations,
    dataSeed: o.dataSeed,
    hints: o.hints,
    ...(o.inner !== undefined ? { inner: o.inner } : {}),
    ...o.workloadParams,
    // A checked matmul2d keeps its C blocks (discarded ones never come home to compare).
    ...(name === 'matmul2d' && o.check ? { keepOutputs: true } : {}),
  });
  return { generator, instance, workload: `${name} ${instance.description}` };
}

/**
 * Runs workload `name` for real, through the library Runtime: on worker threads, or with
 * `backend: 'webgpu'` on worker threads and WebGPU devices, its codelets then carrying the
 * tile kernels' WGSL (src/webgpu/tile-kernels.ts). Throws LocusError for a workload without
 * kernels or bad sizes.
 */
export async function runWorkload(name: string, o: RealRunOptions): Promise<RealRunResult> {
  const webgpu = o.backend === 'webgpu';
  const real = Object.hasOwn(REAL_WORKLOADS, name)
    ? REAL_WORKLOADS[name]
    : webgpu && GPU_ONLY_WORKLOADS.includes(name)
      ? {}
      : undefined;
  if (real === undefined) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      webgpu
        ? `workload '${name}' does not run with --backend webgpu (it runs ${[...REAL_WORKLOAD_NAMES, ...GPU_ONLY_WORKLOADS].join(', ')})`
        : `workload '${name}' does not run for real: use one of ${REAL_WORKLOAD_NAMES.join(', ')}, or simulate it`,
    );
  }
  if (webgpu) checkWebGpuRun(name, o);
  const { generator, instance, workload } = realInstance(name, webgpu ? { ...o, precision: 'single' } : o);
  // On WebGPU the data live on the devices as they are used: host memory holds each datum twice
  // (the arrays and the runtime's copy), so a third of it.
  const maxBytes = webgpu ? Math.max(REAL_MAX_BYTES, Math.floor(totalmem() / 3)) : REAL_MAX_BYTES;
  if (instance.dataBytes > maxBytes) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `${workload} holds ${formatBytes(instance.dataBytes)} of data, more than a real run here takes (${formatBytes(maxBytes)}): use a smaller tiles or tileSize`,
      { params: ['tiles', 'tileSize'] },
    );
  }
  const { rt, owned } = await openRuntime(o);
  try {
    const gpuOf = webgpu ? (await import('../webgpu/tile-kernels.ts')).gpuImplementation : undefined;
    const submitter = new RuntimeSubmitter(rt, gpuOf);
    generator.submit(submitter, instance);
    const report = await rt.wait();
    // The results may still be on the devices: bring them into the arrays.
    await rt.sync();
    if (o.onTrace && rt.trace) o.onTrace(rt.trace.toJSON());
    report.workload = workload;
    const outOfCore = rt.outOfCore;
    const ooc = outOfCore === undefined ? {} : { outOfCore };
    if (!o.check) return { report, workload, ...ooc };
    const sequential = new SequentialSubmitter(real.backwardError !== undefined);
    generator.submit(sequential, instance);
    const residual = relativeDifference(submitter.arrays, sequential.arrays);
    const { tiles, tileSize } = instance.params;
    // An O(N^3) product: skipped for large matrices, where it would cost more than the run.
    const backwardError =
      real.backwardError && tiles * tileSize <= BACKWARD_ERROR_MAX_N
        ? real.backwardError(
            instance,
            byName(sequential.names, sequential.initial),
            byName(submitter.names, submitter.arrays),
          )
        : undefined;
    return {
      report,
      workload,
      residual,
      ...(backwardError === undefined ? {} : { backwardError }),
      ...ooc,
    };
  } finally {
    if (owned) await rt.close();
  }
}

/**
 * What a WebGPU run refuses before it starts, in one line each: float64 (WGSL has none), tile
 * edges and matmul2d's inner size not multiples of 4 (the WGSL kernels load vec4 columns), GPU
 * memories without a size, no GPU at all.
 */
function checkWebGpuRun(name: string, o: RealRunOptions): void {
  if (o.precision === 'double')
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      '--backend webgpu computes in float32 (WGSL has no float64): use --precision single or leave it out',
    );
  if (o.tileSize % 4 !== 0)
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--backend webgpu: --tile-size must be a multiple of 4 (the WGSL kernels load vec4 columns; got ${o.tileSize})`,
    );
  if (name === 'matmul2d' && o.inner !== undefined && o.inner % 4 !== 0)
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--backend webgpu: --inner must be a multiple of 4 for matmul2d (the WGSL kernel loads vec4 columns; got ${o.inner})`,
    );
  const p = o.platform;
  if (typeof p === 'object') {
    const gpus = p.nodes.filter((n) => n.kind === 'gpu');
    if (gpus.length === 0)
      throw new LocusError('LOCUS_WORKER_MISSING', '--backend webgpu needs GPUs: pass --gpus 1 or more');
    for (const n of gpus)
      if (!Number.isFinite(n.capacity))
        throw new LocusError('LOCUS_PLATFORM_INVALID', `GPU node ${n.name} needs a memory size (--gpu-mem)`);
  }
}

/** The runtime to use and whether the run must close it. */
async function openRuntime(o: RealRunOptions): Promise<{ rt: Runtime; owned: boolean }> {
  if (o.runtime) return { rt: o.runtime, owned: false };
  const { Runtime } = await import('./runtime.ts');
  return { rt: await Runtime.create(o), owned: true };
}

/** Looks data up by name. */
function byName(names: readonly string[], arrays: readonly ArrayLike<number>[]): DataByName {
  const index = new Map(names.map((n, i) => [n, i]));
  return (name) => {
    const i = index.get(name);
    return i === undefined ? undefined : (arrays[i] as ReturnType<DataByName>);
  };
}
