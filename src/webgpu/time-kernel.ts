/**
 * Times a WGSL kernel on a device the way the kernel benchmarks do (sgemm-measure.ts,
 * trsm-measure.ts): one unrecorded submission (the pipeline's compilation and a first
 * estimate), then `reps` dispatches in one submission timed to `onSubmittedWorkDone`, three
 * times, with `reps` chosen so that a submission holds about `targetS` seconds of work (1 to
 * 64 dispatches). A kernel that does not compile rejects with the compiler's message.
 */
/// <reference types="@webgpu/types" />
import { encodeKernel } from './dispatch.ts';
import type { WgslKernel } from './kernel.ts';

/** The best of three timed submissions. */
export interface KernelTiming {
  /** Dispatches in each timed submission. */
  reps: number;
  /** Seconds of the fastest timed submission. */
  seconds: number;
}

/** Times `kernel` over `buffers` with `args` on `device` (see the file's comment). */
export async function timeKernel(
  device: GPUDevice,
  kernel: WgslKernel,
  buffers: readonly GPUBuffer[],
  args: Float64Array,
  targetS: number,
): Promise<KernelTiming> {
  const run = async (reps: number) => {
    const t0 = performance.now();
    const { params, compileError } = encodeKernel(device, kernel, buffers, args, reps);
    await device.queue.onSubmittedWorkDone();
    const e = await compileError;
    if (e !== undefined) throw new Error(e);
    params.destroy();
    return (performance.now() - t0) / 1000;
  };
  const first = await run(1);
  const reps = Math.max(1, Math.min(64, Math.round(targetS / Math.max(first, 1e-4))));
  let seconds = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 3; r++) seconds = Math.min(seconds, await run(reps));
  return { reps, seconds };
}
