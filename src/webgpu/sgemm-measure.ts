/**
 * SGEMM throughput of the WGSL GEMM kernel (src/webgpu/gemm.ts) on the adapter found here, for
 * `npm run bench:webgpu` and the device check (scripts/device-check.mjs). One n x n x n
 * product C = A B (beta 0) on one logical device: one unrecorded submission (the pipeline's
 * compilation), then `reps` dispatches in one submission timed to `onSubmittedWorkDone`,
 * three times; the best of the three counts, as 2 n^3 reps / seconds.
 */
import { createLogicalDevice } from './device.ts';
import { gemmWgsl } from './gemm.ts';
import { timeKernel } from './time-kernel.ts';

/** One size's measurement. */
export interface SgemmResult {
  n: number;
  gflops: number;
  /** Dispatches in the best timed submission. */
  reps: number;
  /** Seconds of the best timed submission. */
  seconds: number;
}

/**
 * Measures SGEMM at size `n` (a multiple of 4). The repetitions are chosen so that a timed
 * submission holds about `targetS` seconds of work (at least one dispatch, at most 64).
 */
export async function measureSgemm(n: number, targetS = 1): Promise<SgemmResult> {
  if (!Number.isInteger(n) || n < 4 || n % 4 !== 0)
    throw new Error(`sgemm size ${n} is not a positive multiple of 4`);
  const dev = await createLogicalDevice('gpu0', 3 * n * n * 4 + (1 << 20));
  try {
    const d = dev.device;
    const buffers = [0, 1, 2].map((k) => {
      const b = dev.buffer(n * n * 4);
      const values = new Float32Array(n * n);
      for (let i = 0; i < values.length; i++) values[i] = ((i * (k + 3)) % 17) / 17 - 0.5;
      d.queue.writeBuffer(b, 0, values);
      return b;
    });
    const args = Float64Array.from([0, 1, 0]);
    const { reps, seconds } = await timeKernel(d, gemmWgsl, buffers, args, targetS);
    return { n, gflops: (2 * n ** 3 * reps) / seconds / 1e9, reps, seconds };
  } finally {
    dev.dispose();
  }
}
