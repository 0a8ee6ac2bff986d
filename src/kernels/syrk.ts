/**
 * Symmetric rank-k update, BLAS dsyrk/ssyrk(uplo=L, trans=N): C = C + alpha * A A^T on the
 * lower triangle of C. The float64 core sweeps C in strips of 8 columns: the 8 x 8 triangle
 * on the diagonal with a plain loop, and the rectangle below it, C(j+8:n, j:j+8) +=
 * alpha * A(j+8:n, :) A(j:j+8, :)^T, with the register-blocked `gemmKernel`, so nearly all
 * the flops run at GEMM speed without touching the strict upper triangle.
 */
import { gemmKernel } from './gemm.ts';
import { narrow, SLOT_A, SLOT_C, widen } from './scratch.ts';
import { checkLength, checkSize, type Tile } from './types.ts';

/** Width of the column strips: the widest register block of gemmKernel. */
const STRIP = 8;

/**
 * Float64 core: C = C + alpha * A A^T on the lower triangle (diagonal included) of the
 * n x n block C(i, j) = c[cOff + i + j * ldc], A n x k at a[aOff + i + p * lda]. The strict
 * upper triangle of C is neither read nor written.
 */
export function syrkKernel(
  n: number,
  k: number,
  alpha: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  c: Float64Array,
  cOff: number,
  ldc: number,
): void {
  if (n <= 0 || k <= 0 || alpha === 0) return;
  for (let j0 = 0; j0 < n; j0 += STRIP) {
    const w = Math.min(STRIP, n - j0);
    for (let j = j0; j < j0 + w; j++) {
      const cj = cOff + j * ldc;
      for (let p = 0; p < k; p++) {
        const ap = aOff + p * lda;
        const t = alpha * a[ap + j];
        for (let i = j; i < j0 + w; i++) c[cj + i] += a[ap + i] * t;
      }
    }
    const r = j0 + w;
    gemmKernel(n - r, w, k, alpha, a, aOff + r, lda, a, aOff + j0, lda, true, c, cOff + r + j0 * ldc, ldc);
  }
}

/**
 * The tiled Cholesky diagonal update, dsyrk(L, N) with alpha = -1, beta = 1: C = C - A A^T
 * in place on the n x n tile C. Only the lower triangle of C (diagonal included) is
 * updated; its strict upper triangle is left untouched.
 */
export function syrk(a: Tile, c: Tile, n: number): void {
  checkSize('syrk', 'n', n);
  const len = n * n;
  checkLength('syrk', 'a', a, len);
  checkLength('syrk', 'c', c, len);
  const cw = widen(c, len, SLOT_C);
  syrkKernel(n, n, -1, widen(a, len, SLOT_A), 0, n, cw, 0, n);
  narrow(cw, c, len);
}
