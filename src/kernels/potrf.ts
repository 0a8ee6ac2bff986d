/**
 * Cholesky factorisation, LAPACK dpotrf/spotrf(uplo=L): A = L L^T for a symmetric positive
 * definite tile, L overwriting the lower triangle. The float64 core is the recursive
 * (Gustavson / Toledo) formulation: with A = [A11 .; A21 A22], factor A11 = L11 L11^T, solve
 * L21 = A21 L11^{-T} (trsm), update A22 -= L21 L21^T (syrk) and factor A22, so almost all
 * the flops run in the blocked GEMM. Orders up to BASE use the left-looking column algorithm
 * of dpotf2: L(j, j) = sqrt(A(j, j) - sum_{p<j} L(j, p)^2) and
 * L(i, j) = (A(i, j) - sum_{p<j} L(i, p) L(j, p)) / L(j, j) for i > j.
 */
import { narrow, SLOT_A, widen } from './scratch.ts';
import { syrkKernel } from './syrk.ts';
import { trsmRltKernel } from './trsm.ts';
import { checkLength, checkSize, splitPoint, type Tile } from './types.ts';

/** Largest order factored without recursion (at least 8, so that splitPoint(n) < n). */
const BASE = 8;

/**
 * Float64 core: lower Cholesky in place on the n x n block A(i, j) = a[off + i + j * lda].
 * Reads and writes only the lower triangle. `col0` is the block's first column in the
 * caller's matrix, so the error names the global column. Throws
 * Error('potrf: matrix not positive definite at column j') (j counted from 0) when a pivot
 * is not positive (or NaN); the block is then partly factored.
 */
export function potrfKernel(n: number, a: Float64Array, off: number, lda: number, col0 = 0): void {
  if (n <= 0) return;
  if (n <= BASE) {
    for (let j = 0; j < n; j++) {
      const aj = off + j * lda;
      for (let p = 0; p < j; p++) {
        const ap = off + p * lda;
        const t = a[ap + j];
        if (t === 0) continue;
        for (let i = j; i < n; i++) a[aj + i] -= a[ap + i] * t;
      }
      const d = a[aj + j];
      if (!(d > 0)) throw new Error(`potrf: matrix not positive definite at column ${col0 + j}`);
      const r = Math.sqrt(d);
      a[aj + j] = r;
      for (let i = j + 1; i < n; i++) a[aj + i] /= r;
    }
    return;
  }
  const n1 = splitPoint(n);
  const n2 = n - n1;
  const a21 = off + n1;
  const a22 = off + n1 + n1 * lda;
  potrfKernel(n1, a, off, lda, col0);
  trsmRltKernel(n2, n1, a, off, lda, a, a21, lda);
  syrkKernel(n2, n1, -1, a, a21, lda, a, a22, lda);
  potrfKernel(n2, a, a22, lda, col0 + n1);
}

/**
 * Lower Cholesky factorisation of the n x n tile A in place, dpotrf('L'): on return the
 * lower triangle (diagonal included) holds L with A = L L^T; the strict upper triangle is
 * neither read nor written (left as it was). Throws
 * Error('potrf: matrix not positive definite at column j'), j counted from 0, on a pivot
 * that is not positive; A's contents are then unspecified.
 */
export function potrf(a: Tile, n: number): void {
  checkSize('potrf', 'n', n);
  const len = n * n;
  checkLength('potrf', 'a', a, len);
  const aw = widen(a, len, SLOT_A);
  potrfKernel(n, aw, 0, n);
  narrow(aw, a, len);
}
