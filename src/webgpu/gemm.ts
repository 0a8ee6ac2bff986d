/**
 * GEMM and SYRK in WGSL, float32, on column-major matrices (docs/webgpu.md):
 * C (m x n) = alpha * A (m x k) * op(B) (k x n) + beta * C (op(B) = B or B^T), and SYRK's
 * C -= A A^T on the lower triangle; the tiled workloads use m = n = k, matmul2d m = n. Each workgroup of 16 x 16 invocations computes a 64 x 64 block of C: per step of
 * 16 along the reduction it loads a 64 x 16 block of A and a 16 x 64 block of op(B) into
 * workgroup memory with one vec4 load per invocation each, then every invocation accumulates
 * a 4 x 4 register block (four vec4 columns) from vec4 reads of shared memory. Requires m, k
 * and n multiples of 4 (vec4 columns); blocks past the edges are guarded.
 */
import type { WgslKernel } from './kernel.ts';

/** Output block side per workgroup. */
const BLOCK = 64;

/** The WGSL source; `syrk`: B is A (transposed), only the lower triangle of C is written. */
export function gemmSource(syrk: boolean): string {
  const bindings = syrk
    ? `@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> prm: array<u32>;`
    : `@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> prm: array<u32>;`;
  const bsrc = syrk ? 'a' : 'b';
  return `${bindings}
var<workgroup> As: array<vec4<f32>, 256>; // [p][i/4]: 16 x 16 vec4
var<workgroup> Bs: array<vec4<f32>, 256>; // [p][j/4]: 16 x 16 vec4

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
  let m = prm[0];
  let n = prm[1];
  let k = prm[2];
  let transB = ${syrk ? 'true' : 'prm[3] != 0u'};
  let alpha = bitcast<f32>(prm[4]);
  let beta = bitcast<f32>(prm[5]);
  let i0 = wg.x * ${BLOCK}u;
  let j0 = wg.y * ${BLOCK}u;
  ${syrk ? `if (i0 + ${BLOCK - 1}u < j0) { return; } // strictly above the diagonal: nothing to do` : ''}
  var acc: array<vec4<f32>, 4>;
  for (var p0 = 0u; p0 < k; p0 += 16u) {
    // A block: 64 rows x 16 columns; invocation t loads rows i0 + 4 (t % 16) .. +3 of column p0 + t / 16.
    let ai = i0 + (t % 16u) * 4u;
    let ap = p0 + t / 16u;
    As[t] = select(vec4<f32>(0.0), a[(ai + ap * m) / 4u], ai < m && ap < k);
    // op(B) block: 16 rows x 64 columns, stored as [p][j/4].
    if (transB) {
      // op(B)(p, j) = B(j, p), B stored n x k: contiguous along j.
      let bj = j0 + (t % 16u) * 4u;
      let bp = p0 + t / 16u;
      Bs[t] = select(vec4<f32>(0.0), ${bsrc}[(bj + bp * n) / 4u], bj < n && bp < k);
    } else {
      // op(B)(p, j) = B(p, j), B stored k x n: contiguous along p; invocation t loads p0 + 4 (t % 4) .. +3 of column j0 + t / 4.
      let bp = p0 + (t % 4u) * 4u;
      let bj = j0 + t / 4u;
      let v = select(vec4<f32>(0.0), ${bsrc}[(bp + bj * k) / 4u], bp < k && bj < n);
      let jl = t / 4u;
      let pl = (t % 4u) * 4u;
      // Scatter into [p][j/4] (component j % 4): four single-component writes.
      Bs[pl * 16u + jl / 4u][jl % 4u] = v.x;
      Bs[(pl + 1u) * 16u + jl / 4u][jl % 4u] = v.y;
      Bs[(pl + 2u) * 16u + jl / 4u][jl % 4u] = v.z;
      Bs[(pl + 3u) * 16u + jl / 4u][jl % 4u] = v.w;
    }
    workgroupBarrier();
    for (var p = 0u; p < 16u; p++) {
      let av = As[p * 16u + lid.x];
      let bv = Bs[p * 16u + lid.y];
      acc[0] += av * bv.x;
      acc[1] += av * bv.y;
      acc[2] += av * bv.z;
      acc[3] += av * bv.w;
    }
    workgroupBarrier();
  }
  let i = i0 + lid.x * 4u;
  if (i >= m) { return; }
  for (var q = 0u; q < 4u; q++) {
    let j = j0 + lid.y * 4u + q;
    if (j >= n) { break; }
    let ck = (i + j * m) / 4u;
    ${
      syrk
        ? `if (i + 3u < j) { continue; }
    let old = c[ck];
    let v = old - acc[q];
    // Lower triangle only: rows i + r >= j.
    c[ck] = select(old, v, vec4<u32>(i, i + 1u, i + 2u, i + 3u) >= vec4<u32>(j));`
        : 'c[ck] = alpha * acc[q] + select(beta * c[ck], vec4<f32>(0.0), beta == 0.0);'
    }
  }
}
`;
}

/** Parameter words: [m, n, k, transB, alpha bits, beta bits]. */
function params(
  m: number,
  n: number,
  k: number,
  transB: boolean,
  alpha: number,
  beta: number,
): Uint32Array<ArrayBuffer> {
  const f = new Float32Array([alpha, beta]);
  const u = new Uint32Array(f.buffer);
  return Uint32Array.from([m, n, k, transB ? 1 : 0, u[0]!, u[1]!]);
}

/** The tile side from a datum's bytes (n x n float32). */
function sideOf(bytes: number): number {
  const n = Math.round(Math.sqrt(bytes / 4));
  if (n * n * 4 !== bytes || n % 4 !== 0) {
    throw new RangeError(`a WGSL GEMM tile of ${bytes} bytes is not n x n float32 with n a multiple of 4`);
  }
  return n;
}

/** GEMM: data [A, B, C]; args [transB (0/1), alpha, beta] (defaults 0, 1, 1). */
export const gemmWgsl: WgslKernel = {
  source: () => gemmSource(false),
  workgroups: (bytes) => {
    const n = sideOf(bytes[2]!);
    return [Math.ceil(n / BLOCK), Math.ceil(n / BLOCK), 1];
  },
  params: (bytes, args) => {
    const n = sideOf(bytes[2]!);
    return params(n, n, n, (args[0] ?? 0) !== 0, args[1] ?? 1, args[2] ?? 1);
  },
};

/** SYRK: data [A, C]: C -= A A^T on the lower triangle. */
export const syrkWgsl: WgslKernel = {
  source: () => gemmSource(true),
  workgroups: (bytes) => {
    const n = sideOf(bytes[1]!);
    return [Math.ceil(n / BLOCK), Math.ceil(n / BLOCK), 1];
  },
  params: (bytes) => {
    const n = sideOf(bytes[1]!);
    return params(n, n, n, true, -1, 1);
  },
};

/**
 * Matmul2d's block product (seed 000): data [A (m x k), B (k x m), C (m x m)], C = A B,
 * column-major; m from C's size, k from A's. m and k must be multiples of 4.
 */
export const matmul2dWgsl: WgslKernel = {
  source: () => gemmSource(false),
  workgroups: (bytes) => {
    const m = sideOf(bytes[2]!);
    return [Math.ceil(m / BLOCK), Math.ceil(m / BLOCK), 1];
  },
  params: (bytes) => {
    const m = sideOf(bytes[2]!);
    const k = bytes[0]! / 4 / m;
    if (!Number.isInteger(k) || k % 4 !== 0 || bytes[1] !== bytes[0])
      throw new RangeError(
        `a WGSL block product of ${bytes.join(', ')} bytes is not m x k, k x m, m x m with k a multiple of 4`,
      );
    return params(m, m, k, false, 1, 0);
  },
};
