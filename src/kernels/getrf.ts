/**
 * LU factorisation without pivoting, LAPACK dgetrf/sgetrf with the row interchanges left
 * out: A = L U, L unit lower triangular and U upper triangular, packed in place (U on and
 * above the diagonal, L's multipliers below it). The float64 core recurses: with
 * A = [A11 A12; A21 A22], factor A11 = L11 U11, solve U12 = L11^{-1} A12 and
 * L21 = A21 U11^{-1} (trsm), update A22 -= L21 U12 (gemm) and factor A22. Orders up to
 * BASE use the right-looking loop of dgetf2: L(i, k) = A(i, k) / A(k, k) and
 * A(i, j) -= L(i, k) A(k, j) for i, j > k.
 */
import { gemmKernel } from './gemm.ts';
import { narrow, SLOT_A, widen } from './scratch.ts';
import { trsmLluKernel, trsmRunKernel } from './trsm.ts';
import { checkLength, checkSize, splitPoint, type Tile } from './types.ts';

/** Largest order factored without recursion (at least 8, so that splitPoint(n) < n). */
const BASE = 8;

/**
 * Float64 core: unpivoted LU in place on the n x n block A(i, j) = a[off + i + j * lda].
 * `col0` is the block's first column in the caller's matrix, for the error message. Throws
 * Error('getrf: zero pivot at column j') (j counted from 0) when a pivot is exactly zero;
 * the block is then partly factored.
 */
export function getrfKernel(n: number, a: Float64Array, off: number, lda: number, col0 = 0): void {
  if (n <= 0) return;
  if (n <= BASE) {
    for (let k = 0; k < n; k++) {
      const ak = off + k * lda;
      const d = a[ak + k];
      if (d === 0) throw new Error(`getrf: zero pivot at column ${col0 + k}`);
      for (let i = k + 1; i < n; i++) a[ak + i] /= d;
      for (let j = k + 1; j < n; j++) {
        const aj = off + j * lda;
        const t = a[aj + k];
        if (t === 0) continue;
        for (let i = k + 1; i < n; i++) a[aj + i] -= a[ak + i] * t;
      }
    }
    return;
  }
  const n1 = splitPoint(n);
  const n2 = n - n1;
  const a12 = off + n1 * lda;
  const a21 = off + n1;
  const a22 = off + n1 + n1 * lda;
  getrfKernel(n1, a, off, lda, col0);
  trsmLluKernel(n1, n2, a, off, lda, a, a12, lda);
  trsmRunKernel(n2, n1, a, off, lda, a, a21, lda);
  gemmKernel(n2, n2, n1, -1, a, a21, lda, a, a12, lda, false, a, a22, lda);
  getrfKernel(n2, a, a22, lda, col0 + n1);
}

/**
 * LU factorisation without pivoting of the n x n tile A in place (dgetrf with no row
 * interchanges): on return A holds U on and above the diagonal and the multipliers of the
 * unit lower triangular L below it, A = L U. Throws Error('getrf: zero pivot at column j'),
 * j counted from 0, on an exactly zero pivot; A's contents are then unspecified. Without
 * pivoting it is only stable for matrices such as diagonally dominant ones.
 */
export function getrf(a: Tile, n: number): void {
  checkSize('getrf', 'n', n);
  const len = n * n;
  checkLength('getrf', 'a', a, len);
  const aw = widen(a, len, SLOT_A);
  getrfKernel(n, aw, 0, n);
  narrow(aw, a, len);
}
