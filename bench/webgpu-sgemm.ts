/**
 * `npm run bench:webgpu`: SGEMM GFlop/s of the WGSL GEMM kernel (src/webgpu/gemm.ts) at a few
 * sizes on the adapter found here, which it prints first (on lavapipe these are CPU figures,
 * not a GPU's); the measurement is src/webgpu/sgemm-measure.ts. Sizes: WEBGPU_SGEMM_SIZES
 * (default 256,512,1024). Where no adapter is found it prints why and exits 0 (skipped).
 */
import { adapterLine, findAdapter } from '../src/webgpu/load.ts';
import { measureSgemm } from '../src/webgpu/sgemm-measure.ts';

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
  const r = await measureSgemm(n);
  console.log(
    `sgemm n=${n}: ${r.gflops.toFixed(2)} GFlop/s (${r.reps} dispatches in ${(r.seconds * 1e3).toFixed(1)} ms)`,
  );
}
