#!/usr/bin/env node
/**
 * One program on every machine (issue 23, docs/api.md): a tiled matrix product C = A B whose
 * codelet has a JavaScript implementation and a WGSL one, then a CPU-only reduction (each C
 * tile's sum of squares). The same file runs on worker threads, on worker threads and WebGPU
 * devices, or simulated, changed only in Runtime.create's `backend`:
 *
 *   node examples/hybrid.mjs --backend threads  --cpus 2
 *   node examples/hybrid.mjs --backend webgpu   --cpus 2 --gpus 2
 *   node examples/hybrid.mjs --backend simulated --cpus 2 --gpus 2
 *
 * Options: --tiles N (tiles per edge, default 4), --tile-size T (elements, a multiple of 4,
 * default 64), --gpu-mem SIZE (each GPU's memory, default 64MiB), --sched NAME (default dmda),
 * --json (print one JSON object: the run's report plus `residual`, the largest relative
 * difference to the sequential computation, and `backend`).
 */
import { parseArgs } from 'node:util';
import { Runtime } from 'locus-runtime';

const { values: o } = parseArgs({
  options: {
    backend: { type: 'string', default: 'threads' },
    cpus: { type: 'string', default: '2' },
    gpus: { type: 'string', default: '0' },
    'gpu-mem': { type: 'string', default: '64MiB' },
    tiles: { type: 'string', default: '4' },
    'tile-size': { type: 'string', default: '64' },
    sched: { type: 'string', default: 'dmda' },
    json: { type: 'boolean', default: false },
  },
});
const NT = Number(o.tiles);
const T = Number(o['tile-size']);
if (!Number.isInteger(NT) || NT < 1 || !Number.isInteger(T) || T < 4 || T % 4 !== 0) {
  console.error('hybrid: --tiles must be a positive integer and --tile-size a multiple of 4');
  process.exit(2);
}
const N = NT * T;

/** C_ij += A_ik B_kj on T x T column-major float32 tiles: one invocation per element of C. */
const GEMM_WGSL = /* wgsl */ `
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: vec4<f32>; // p.x = tile edge
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let n = u32(p.x);
  let i = id.x;
  let j = id.y;
  if (i >= n || j >= n) { return; }
  var s = 0.0;
  for (var k = 0u; k < n; k++) { s += a[i + k * n] * b[k + j * n]; }
  c[i + j * n] += s;
}`;

/** Deterministic values in [-0.5, 0.5). */
function matrix(seed) {
  const m = new Float32Array(N * N);
  let x = seed >>> 0;
  for (let i = 0; i < m.length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    m[i] = x / 2 ** 32 - 0.5;
  }
  return m;
}

const a = matrix(1);
const b = matrix(2);
const c = new Float32Array(N * N);
const norms = new Float32Array(NT * NT);

const rt = await Runtime.create({
  backend: o.backend,
  cpus: Number(o.cpus),
  gpus: Number(o.gpus),
  gpuMemory: o['gpu-mem'],
  scheduler: o.sched,
  perfModels: 'off',
});
let report;
try {
  const A = rt.matrix(a, N, N, T, 'A');
  const B = rt.matrix(b, N, N, T, 'B');
  const C = rt.matrix(c, N, N, T, 'C');
  const normsData = rt.data(norms, { name: 'norms' });
  const module = new URL('./hybrid-kernels.mjs', import.meta.url);
  const gemm = rt.codelet({
    name: 'gemm',
    kernel: { module, export: 'gemmTile' },
    gpu: {
      wgsl: GEMM_WGSL,
      workgroups: (_bytes, args) => [Math.ceil(args[0] / 8), Math.ceil(args[0] / 8), 1],
    },
    flops: (n) => 2 * n ** 3,
  });
  const norm = rt.codelet({ name: 'norm', kernel: { module, export: 'tileNorm' }, flops: (n) => 2 * n * n });
  for (let i = 0; i < NT; i++)
    for (let j = 0; j < NT; j++) {
      for (let k = 0; k < NT; k++)
        rt.submit(
          gemm,
          [
            [A.at(i, k), 'R'],
            [B.at(k, j), 'R'],
            [C.at(i, j), 'RW'],
          ],
          { args: [T], dims: [T], name: `GEMM(${i},${j},${k})` },
        );
      rt.submit(
        norm,
        [
          [C.at(i, j), 'R'],
          [normsData, 'RW'],
        ],
        { args: [i + j * NT], dims: [T], name: `NORM(${i},${j})` },
      );
    }
  report = await rt.wait();
  await rt.sync();
} finally {
  await rt.close();
}

// The sequential version, in float64: C = A B and the tiles' sums of squares.
let residual = 0;
if (report.mode === 'real') {
  const ref = new Float64Array(N * N);
  for (let j = 0; j < N; j++)
    for (let k = 0; k < N; k++) {
      const bkj = b[k + j * N];
      for (let i = 0; i < N; i++) ref[i + j * N] += a[i + k * N] * bkj;
    }
  let scale = 0;
  for (const x of ref) scale = Math.max(scale, Math.abs(x));
  for (let i = 0; i < ref.length; i++) residual = Math.max(residual, Math.abs(c[i] - ref[i]) / scale);
  for (let ti = 0; ti < NT; ti++)
    for (let tj = 0; tj < NT; tj++) {
      let s = 0;
      for (let j = tj * T; j < (tj + 1) * T; j++)
        for (let i = ti * T; i < (ti + 1) * T; i++) s += ref[i + j * N] ** 2;
      residual = Math.max(residual, Math.abs(norms[ti + tj * NT] - s) / s);
    }
}

if (o.json) {
  console.log(
    JSON.stringify(
      { ...report, backend: o.backend, residual: report.mode === 'real' ? residual : null },
      null,
      2,
    ),
  );
} else {
  const kinds = report.workers.map((w) => `${w.name} (${w.kind}) ${w.tasks} tasks`).join(', ');
  console.log(
    `${o.backend}: ${report.tasks} tasks in ${(report.makespanS * 1e3).toFixed(1)} ms, ${report.gflops.toFixed(2)} GFlop/s; ${kinds}`,
  );
  if (report.adapter)
    console.log(
      `adapter: ${report.adapter.vendor} ${report.adapter.device}${report.adapter.software ? ' (software: CPU, not a GPU)' : ''}`,
    );
  if (report.mode === 'real')
    console.log(`largest relative difference to the sequential product: ${residual.toExponential(2)}`);
}
if (report.mode === 'real' && !(residual < 1e-4)) {
  console.error(`hybrid: the result differs from the sequential product by ${residual}`);
  process.exitCode = 1;
}
