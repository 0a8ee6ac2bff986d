/**
 * The workloads' task kernels (src/kernels/tasks.ts) as the WebGPU backend runs them: every
 * one keeps its CPU implementation (host workers); GEMM, SYRK and the TRSMs also have a WGSL
 * one (float32), and so do the Jacobi sweep, matmul2d's block product and the stencil's
 * update and halo copy. POTRF, GETRF and the pivoting panels have none
 * and run on the CPU workers, as in the seeds' hybrid runs.
 */

import type { GpuImplementation } from '../exec/runtime-options.ts';
import * as Tasks from '../kernels/tasks.ts';
import type { KernelName } from '../workloads/submitter.ts';
import { gemmWgsl, matmul2dWgsl, syrkWgsl } from './gemm.ts';
import { jacobiWgsl } from './jacobi.ts';
import type { WebGpuKernel, WgslKernel } from './kernel.ts';
import { haloWgsl, stencilWgsl } from './stencil.ts';
import { trsmWgsl } from './trsm.ts';

/** A WGSL kernel with fixed leading arguments (the task's own [n] is dropped: sizes come from the data). */
function withArgs(k: WgslKernel, fixed: readonly number[]): WgslKernel {
  const a = Float64Array.from(fixed);
  return {
    source: k.source,
    workgroups: (bytes) => k.workgroups(bytes, a),
    params: (bytes) => k.params(bytes, a),
  };
}

/** The CPU implementations by name. */
const CPU: Readonly<Record<KernelName, (data: readonly ArrayLike<number>[], args: Float64Array) => void>> = {
  ...Tasks,
};

/** The WGSL implementation of each task kernel that has one. */
const WGSL: Partial<Record<KernelName, WgslKernel>> = {
  gemmTask: withArgs(gemmWgsl, [0, 1, 1]),
  gemmCholeskyTask: withArgs(gemmWgsl, [1, -1, 1]),
  gemmLuTask: withArgs(gemmWgsl, [0, -1, 1]),
  syrkTask: syrkWgsl,
  trsmCholeskyTask: withArgs(trsmWgsl, [0]),
  trsmLuRowTask: withArgs(trsmWgsl, [1]),
  trsmLuColumnTask: withArgs(trsmWgsl, [2]),
  jacobiTask: jacobiWgsl,
  matmul2dTask: matmul2dWgsl,
  stencilTask: stencilWgsl,
  haloTask: haloWgsl,
};

/** The WebGPU kernel of task kernel `name`, its CPU side reading the data through `view`. */
export function tileKernel(
  name: KernelName,
  view: (task: readonly ArrayBuffer[]) => ArrayLike<number>[],
): WebGpuKernel {
  const cpu = CPU[name];
  const gpu = WGSL[name];
  return { name, cpu: (data, args) => cpu(view(data), args), ...(gpu ? { gpu } : {}) };
}

/**
 * The GPU implementation of task kernel `name` as a Runtime codelet carries it (the built-in
 * workloads run through the library with these), or undefined where it has no WGSL.
 */
export function gpuImplementation(name: KernelName): GpuImplementation | undefined {
  const k = WGSL[name];
  return k === undefined ? undefined : { wgsl: k.source, workgroups: k.workgroups, params: k.params };
}

/** Whether task kernel `name` runs on a WebGPU device. */
export function hasWgsl(name: KernelName): boolean {
  return WGSL[name] !== undefined;
}
