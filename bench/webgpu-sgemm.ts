/**
 * `npm run bench:webgpu`: SGEMM GFlop/s of the WGSL GEMM kernel (src/webgpu/gemm.ts) at a few
 * sizes on the adapter found here, which it prints first (on lavapipe these are CPU figures,
 * not a GPU's). Each size runs one unrecorded submission (the pipeline's compilation), then
 * `reps` dispatches in one submission, timed to `onSubmittedWorkDone`, three times; the best
 * is printed, as 2 n^3 reps / seconds. Sizes: WEBGPU_SGEMM_SIZES (default 256,512,1024).
 * Where no adapter is found it prints why and exits 0 (skipped).
 */
import { createLogicalDevice } from '../src/webgpu/device.ts';
import { encodeKernel } from '../src/webgpu/dispatch.ts';
import { gemmWgsl } from '../src/webgpu/gemm.ts';
import { adapterLine, findAdapter } from '../src/webgpu/load.ts';

const SIZES = (process.env.WEBGPU_SGEMM_SIZES ?? '256,512,1024').split(',').map(Number);

const found = await findAdapter();
if ('reason' in found) {
  console.log(`webgpu-sgemm: skipped: ${found.reason}`);
  process.exit(0);
}
console.log(
  `adapter: ${adapterLine(found.info)}${found.info.description ? ` - ${found.info.description}` : ''}`,
);
if (found.info.software) console.log("(a software adapter: these are CPU figures, not a GPU's)");
for (const n of SIZES) {
  if (!Number.isInteger(n) || n < 4 || n % 4 !== 0)
    throw new Error(`WEBGPU_SGEMM_SIZES: ${n} is not a multiple of 4`);
  const dev = await createLogicalDevice('gpu0', 3 * n * n * 4 + (1 << 20));
  const d = dev.device;
  const buffers = [0, 1, 2].map((k) => {
    const b = dev.buffer(n * n * 4);
    d.queue.writeBuffer(
      b,
      0,
      Float32Array.from({ length: n * n }, (_, i) => ((i * (k + 3)) % 17) / 17 - 0.5),
    );
    return b;
  });
  // C = A B (beta 0): repeated dispatches compute the same product.
  const args = Float64Array.from([0, 1, 0]);
  const run = async (reps: number) => {
    const t0 = performance.now();
    const { params, compileError } = encodeKernel(d, gemmWgsl, buffers, args, reps);
    await d.queue.onSubmittedWorkDone();
    const e = await compileError;
    if (e !== undefined) throw new Error(e);
    params.destroy();
    return (performance.now() - t0) / 1000;
  };
  const first = await run(1);
  // About a second of work per timed submission, at least one dispatch.
  const reps = Math.max(1, Math.min(64, Math.round(1 / Math.max(first, 1e-4))));
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 3; r++) best = Math.min(best, await run(reps));
  const gflops = (2 * n ** 3 * reps) / best / 1e9;
  console.log(
    `sgemm n=${n}: ${gflops.toFixed(2)} GFlop/s (${reps} dispatches in ${(best * 1e3).toFixed(1)} ms)`,
  );
  dev.dispose();
}
