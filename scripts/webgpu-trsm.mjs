#!/usr/bin/env node
// Measures the WGSL TRSMs on the WebGPU adapter found here (src/webgpu/trsm-measure.ts): the
// blocked kernel in each candidate shape (src/webgpu/trsm.ts, TRSM_SHAPES) and the earlier
// one-invocation-per-vector kernel, per variant and size, each checked against the CPU
// reference. Prints one JSON object { adapter, results: [{ kernel, variant, n, gflops, ms, reps, error }] }.
// Usage: node scripts/webgpu-trsm.mjs [--sizes 512,960] [--variants 0,1,2] [--quick] (after npm run build)
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '512,960,2048' },
    variants: { type: 'string', default: '0,1,2' },
    quick: { type: 'boolean', default: false },
  },
});
const list = (s, what, min = 1) => {
  const v = s.split(',').map(Number);
  if (v.some((x) => !Number.isInteger(x) || x < min)) {
    process.stderr.write(
      `webgpu-trsm: --${what} must be a comma-separated list of integers of at least ${min}, got "${s}"\n`,
    );
    process.exit(2);
  }
  return v;
};
const sizes = values.quick ? [48] : list(values.sizes, 'sizes');
const variants = list(values.variants, 'variants', 0);
if (variants.some((v) => v > 2)) {
  process.stderr.write('webgpu-trsm: --variants are 0 (B L^-T), 1 (L^-1 B, unit) and 2 (B U^-1)\n');
  process.exit(2);
}
const { measureTrsm } = await import('../dist/webgpu/trsm-measure.js');
const { TRSM_SHAPES, trsmKernel, trsmRowWgsl } = await import('../dist/webgpu/trsm.js');
const { findAdapter } = await import('../dist/webgpu/load.js');
const kernels = { row: trsmRowWgsl };
for (const s of TRSM_SHAPES) kernels[`blocked r${s.rows} b${s.block} t${s.threads}`] = trsmKernel(s);
const found = await findAdapter();
if (!('adapter' in found)) {
  process.stderr.write(`webgpu-trsm: no WebGPU adapter: ${found.reason}\n`);
  process.exit(2);
}
const results = await measureTrsm(kernels, sizes, variants, values.quick ? 0.01 : 0.3);
for (const r of results)
  process.stderr.write(
    `n=${r.n} v${r.variant} ${r.kernel}: ${r.ms.toFixed(3)} ms, ${r.gflops.toFixed(0)} GFlop/s, error ${r.error.toExponential(1)}\n`,
  );
console.log(JSON.stringify({ adapter: found.info, results }));
process.exit(0);
