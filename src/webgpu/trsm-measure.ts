/**
 * Throughput of the WGSL TRSMs (src/webgpu/trsm.ts) on the adapter found here, for
 * `scripts/webgpu-trsm.mjs` (the device check's TRSM step): for each kernel (the blocked one
 * in each candidate shape, and the earlier one-invocation-per-vector one), each variant and
 * size, one unrecorded submission (compilation), then `reps` dispatches in one submission timed
 * to `onSubmittedWorkDone`, three times; the best counts, as n^3 reps / seconds (a TRSM's
 * multiply-adds are n^3 / 2). Each kernel's first solve is checked against the CPU reference.
 */
import { trsmLeftLowerUnitRef, trsmRightLowerTransRef, trsmRightUpperRef } from '../kernels/reference.ts';
import { createLogicalDevice } from './device.ts';
import { runWgsl } from './dispatch.ts';
import type { WgslKernel } from './kernel.ts';
import { timeKernel } from './time-kernel.ts';

/** One kernel, variant and size's measurement. */
export interface TrsmResult {
  kernel: string;
  variant: number;
  n: number;
  gflops: number;
  /** Milliseconds of one solve (the best submission over its dispatches). */
  ms: number;
  reps: number;
  /** Largest |got - want| / (1 + |want|) of one solve against the CPU reference. */
  error: number;
}

const REFS = [trsmRightLowerTransRef, trsmLeftLowerUnitRef, trsmRightUpperRef] as const;

/** A deterministic well-conditioned triangle for variant v (the other triangle zero) and a right-hand side. */
function operands(n: number, v: number): [Float32Array, Float32Array] {
  const t = new Float32Array(n * n);
  const b = new Float32Array(n * n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < n; i++) {
      const inTriangle = v === 2 ? i <= j : i >= j;
      if (inTriangle)
        t[i + j * n] = i === j ? 1.5 + ((i * 7) % 5) / 10 : ((((i * 13 + j * 7) % 19) / 19 - 0.5) * 2) / n;
      b[i + j * n] = ((i * 5 + j * 3) % 23) / 23 - 0.5;
    }
  return [t, b];
}

/**
 * Measures `kernels` (name -> kernel) on variants `variants` at sizes `sizes`; each timed
 * submission holds about `targetS` seconds of work (1 to 64 dispatches).
 */
export async function measureTrsm(
  kernels: Readonly<Record<string, WgslKernel>>,
  sizes: readonly number[],
  variants: readonly number[],
  targetS = 0.5,
): Promise<TrsmResult[]> {
  const out: TrsmResult[] = [];
  const largest = Math.max(...sizes);
  const dev = await createLogicalDevice('gpu0', 2 * largest * largest * 4 + (8 << 20));
  try {
    const d = dev.device;
    for (const n of sizes)
      for (const v of variants) {
        const [t, b] = operands(n, v);
        const want = Float64Array.from(b);
        REFS[v]!(Float64Array.from(t), want, n);
        for (const [name, k] of Object.entries(kernels)) {
          const [, got] = await runWgsl(dev, k, [t, b], [v]);
          let error = 0;
          for (let i = 0; i < want.length; i++)
            error = Math.max(error, Math.abs(got![i]! - want[i]!) / (1 + Math.abs(want[i]!)));
          const buffers = [t, b].map((x) => {
            const buf = dev.buffer(x.byteLength);
            d.queue.writeBuffer(buf, 0, x.buffer as ArrayBuffer, x.byteOffset, x.byteLength);
            return buf;
          });
          const args = Float64Array.from([v]);
          let timing: { reps: number; seconds: number };
          try {
            timing = await timeKernel(d, k, buffers, args, targetS);
          } catch (e) {
            throw new Error(`${name}: ${(e as Error).message}`);
          }
          const { reps, seconds: best } = timing;
          for (const buf of buffers) dev.release(buf);
          out.push({
            kernel: name,
            variant: v,
            n,
            gflops: (n ** 3 * reps) / best / 1e9,
            ms: (best / reps) * 1e3,
            reps,
            error,
          });
        }
      }
    return out;
  } finally {
    dev.dispose();
  }
}
