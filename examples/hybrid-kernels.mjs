/**
 * The CPU kernels of examples/hybrid.mjs, a plain ES module the worker threads import.
 * Kernels take the task's data (one typed array per access, in access order) and its args.
 */
import { gemm } from 'locus-runtime/kernels';

/** [A_ik R, B_kj R, C_ij RW], C_ij += A_ik B_kj on n x n float32 tiles (the system's BLAS where Locus's kernel addon is built). */
export function gemmTile(data, args) {
  gemm(data[0], data[1], data[2], args[0] | 0, false, false, 1, 1);
}

/** [C_ij R, norms RW], norms[t] = sum of C_ij's squares (a CPU-only reduction), t = args[0]. */
export function tileNorm(data, args) {
  const c = data[0];
  let s = 0;
  for (let i = 0; i < c.length; i++) s += c[i] * c[i];
  data[1][args[0] | 0] = s;
}
