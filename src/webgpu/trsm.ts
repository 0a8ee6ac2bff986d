/**
 * TRSM in WGSL, float32, on n x n column-major tiles: the three triangular solves the tiled
 * factorisations use, one invocation per independent row or column of B (each a forward
 * substitution), as the CPU references (src/kernels/reference.ts) define them:
 * variant 0, B = B L^-T (Cholesky's panel); 1, B = L^-1 B with L unit lower (LU's row panel);
 * 2, B = B U^-1 (LU's column panel). Data [triangle, B]; args [variant].
 */
import type { WgslKernel } from './kernel.ts';

/** The WGSL source of the three variants (chosen by a parameter word). */
export const TRSM_SOURCE = `@group(0) @binding(0) var<storage, read> l: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage, read> prm: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = prm[0];
  let variant = prm[1];
  let r = gid.x;
  if (r >= n) { return; }
  if (variant == 1u) {
    // Column r of B: L x = b, L unit lower.
    for (var i = 0u; i < n; i++) {
      var s = b[i + r * n];
      for (var p = 0u; p < i; p++) { s -= l[i + p * n] * b[p + r * n]; }
      b[i + r * n] = s;
    }
    return;
  }
  // Row r of B: x T = b with T = L^T (variant 0) or U (variant 2).
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

/** TRSM: data [triangle, B]; args [variant (0: B L^-T, 1: L^-1 B unit, 2: B U^-1)]. */
export const trsmWgsl: WgslKernel = {
  source: () => TRSM_SOURCE,
  workgroups: (bytes) => [Math.ceil(Math.round(Math.sqrt(bytes[1]! / 4)) / 64), 1, 1],
  params: (bytes, args) => Uint32Array.from([Math.round(Math.sqrt(bytes[1]! / 4)), args[0] ?? 0]),
};
