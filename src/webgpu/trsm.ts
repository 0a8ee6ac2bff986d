/**
 * TRSM in WGSL, float32, on n x n column-major tiles: the three triangular solves the tiled
 * factorisations use, as the CPU references (src/kernels/reference.ts) define them:
 * variant 0, B = B L^-T (Cholesky's panel); 1, B = L^-1 B with L unit lower (LU's row panel);
 * 2, B = B U^-1 (LU's column panel). Data [triangle, B]; args [variant].
 *
 * Each variant is n independent substitutions x T = b with T upper triangular (the rows of B
 * against L^T or U; for variant 1 the columns of B against L^T, unit diagonal). One workgroup
 * takes `rows` of them and walks the columns in blocks of `block` (the blocked right-looking
 * solve): a few invocations solve the block's columns for the workgroup's vectors, keeping the
 * solution in workgroup memory, then every invocation updates the columns right of the block,
 * b_k -= sum over the block's p of x_p T[p, k], a small matrix product. So the n^3 / 2 multiply-
 * adds of a tile spread over ceil(n / rows) workgroups instead of n invocations, with 2 n / block
 * barriers per workgroup. Cost: n^3 / 2 multiply-adds, like the one-invocation-per-vector
 * substitution it replaced (`TRSM_ROW_SOURCE`, kept for measurement), which ran n invocations
 * of n^2 / 2 serial steps each.
 */
import type { WgslKernel } from './kernel.ts';

/** The blocking of the WGSL TRSM: vectors per workgroup, columns per block, invocations. */
export interface TrsmShape {
  rows: number;
  block: number;
  threads: number;
}

/**
 * The shape the kernels use: the fastest or within 1% of it at every size and variant that
 * `scripts/webgpu-trsm.mjs` measured on an NVIDIA H200 among `TRSM_SHAPES` (n = 512, 960 and
 * 2048; docs/device/h200-2026-11-27-9.json, docs/results.md).
 */
export const TRSM_SHAPE: TrsmShape = { rows: 8, block: 16, threads: 256 };

/** The shapes `scripts/webgpu-trsm.mjs` measures. */
export const TRSM_SHAPES: readonly TrsmShape[] = [
  { rows: 4, block: 16, threads: 128 },
  { rows: 8, block: 16, threads: 256 },
  { rows: 4, block: 32, threads: 128 },
  { rows: 16, block: 16, threads: 256 },
  { rows: 2, block: 16, threads: 64 },
];

/** The WGSL source of the blocked TRSM of shape `s` (all three variants, chosen by a parameter word). */
export function trsmSource(s: TrsmShape): string {
  const { rows, block, threads } = s;
  return `@group(0) @binding(0) var<storage, read> l: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage, read> prm: array<u32>;

const ROWS = ${rows}u;
const BLOCK = ${block}u;
const THREADS = ${threads}u;
var<workgroup> xs: array<f32, ${rows * block}>;

// Element k of vector r: row r of B (variants 0 and 2) or column r (variant 1).
fn bAt(r: u32, k: u32, n: u32, variant: u32) -> u32 {
  return select(r + k * n, k + r * n, variant == 1u);
}
// T[p][j]: L[j][p] (variants 0 and 1: T = L^T) or U[p][j] (variant 2).
fn tAt(p: u32, j: u32, n: u32, variant: u32) -> f32 {
  return select(l[j + p * n], l[p + j * n], variant == 2u);
}

@compute @workgroup_size(${threads})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = prm[0];
  let variant = prm[1];
  let r0 = wid.x * ROWS;
  for (var jb = 0u; jb < n; jb += BLOCK) {
    let je = min(jb + BLOCK, n);
    // The block's columns, one invocation per vector.
    if (lid < ROWS && r0 + lid < n) {
      let r = r0 + lid;
      for (var j = jb; j < je; j++) {
        var s = b[bAt(r, j, n, variant)];
        for (var p = jb; p < j; p++) { s -= xs[lid * BLOCK + (p - jb)] * tAt(p, j, n, variant); }
        if (variant != 1u) { s = s / l[j + j * n]; }
        xs[lid * BLOCK + (j - jb)] = s;
        b[bAt(r, j, n, variant)] = s;
      }
    }
    workgroupBarrier();
    storageBarrier();
    // The columns right of the block: b_k -= x[block] . T[block][k].
    let m = n - je;
    for (var idx = lid; idx < ROWS * m; idx += THREADS) {
      // Consecutive invocations on consecutive addresses: along k for columns of B, along r for rows.
      let t = select(idx % ROWS, idx / m, variant == 1u);
      let k = je + select(idx / ROWS, idx % m, variant == 1u);
      let r = r0 + t;
      if (r < n) {
        var s = b[bAt(r, k, n, variant)];
        for (var p = jb; p < je; p++) { s -= xs[t * BLOCK + (p - jb)] * tAt(p, k, n, variant); }
        b[bAt(r, k, n, variant)] = s;
      }
    }
    workgroupBarrier();
    storageBarrier();
  }
}
`;
}

/** The blocked TRSM of shape `s` as a kernel: data [triangle, B]; args [variant]. */
export function trsmKernel(s: TrsmShape): WgslKernel {
  const source = trsmSource(s);
  return {
    source: () => source,
    workgroups: (bytes) => [Math.ceil(Math.round(Math.sqrt(bytes[1]! / 4)) / s.rows), 1, 1],
    params: (bytes, args) => Uint32Array.from([Math.round(Math.sqrt(bytes[1]! / 4)), args[0] ?? 0]),
  };
}

/** TRSM: data [triangle, B]; args [variant (0: B L^-T, 1: L^-1 B unit, 2: B U^-1)]. */
export const trsmWgsl: WgslKernel = trsmKernel(TRSM_SHAPE);

/**
 * The earlier TRSM, one invocation per vector (a forward substitution of n^2 / 2 serial
 * steps each, n invocations in all), kept so that the device check measures both.
 */
export const TRSM_ROW_SOURCE = `@group(0) @binding(0) var<storage, read> l: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage, read> prm: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = prm[0];
  let variant = prm[1];
  let r = gid.x;
  if (r >= n) { return; }
  if (variant == 1u) {
    for (var i = 0u; i < n; i++) {
      var s = b[i + r * n];
      for (var p = 0u; p < i; p++) { s -= l[i + p * n] * b[p + r * n]; }
      b[i + r * n] = s;
    }
    return;
  }
  for (var j = 0u; j < n; j++) {
    var s = b[r + j * n];
    for (var p = 0u; p < j; p++) {
      let t = select(l[p + j * n], l[j + p * n], variant == 0u);
      s -= b[r + p * n] * t;
    }
    b[r + j * n] = s / l[j + j * n];
  }
}
`;

/** The earlier one-invocation-per-vector TRSM as a kernel (measurement only). */
export const trsmRowWgsl: WgslKernel = {
  source: () => TRSM_ROW_SOURCE,
  workgroups: (bytes) => [Math.ceil(Math.round(Math.sqrt(bytes[1]! / 4)) / 64), 1, 1],
  params: (bytes, args) => Uint32Array.from([Math.round(Math.sqrt(bytes[1]! / 4)), args[0] ?? 0]),
};
