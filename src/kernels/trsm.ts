/**
 * Triangular solves with many right-hand sides, BLAS dtrsm/strsm, in the three forms the
 * tiled Cholesky and LU factorisations need. Each float64 core is recursive: it splits the
 * triangle in two (at a multiple of 8), solves the first half, folds it into the second
 * half's right-hand sides with `gemmKernel` and solves the second half, so nearly all the
 * flops run in the register-blocked GEMM; blocks of at most BASE columns are solved by the
 * plain column-oriented (j-k-i) loops.
 */
import { gemmKernel } from './gemm.ts';
import { narrow, SLOT_A, SLOT_B, widen } from './scratch.ts';
import { checkLength, checkSize, splitPoint, type Tile } from './types.ts';

/** Largest triangle solved without recursion (at least 8, so that splitPoint(n) < n). */
const BASE = 8;

/**
 * Float64 core of dtrsm(side=R, uplo=L, trans=T, diag=N): B = B * L^{-T} for B m x n and
 * L n x n lower triangular (its strict upper part is not read), i.e. solves X L^T = B
 * column by column, X(:, j) = (B(:, j) - sum_{p<j} X(:, p) L(j, p)) / L(j, j).
 */
export function trsmRltKernel(
  m: number,
  n: number,
  l: Float64Array,
  lOff: number,
  ldl: number,
  b: Float64Array,
  bOff: number,
  ldb: number,
): void {
  if (m <= 0 || n <= 0) return;
  if (n <= BASE) {
    for (let j = 0; j < n; j++) {
      const bj = bOff + j * ldb;
      for (let p = 0; p < j; p++) {
        const t = l[lOff + j + p * ldl];
        if (t === 0) continue;
        const bp = bOff + p * ldb;
        for (let i = 0; i < m; i++) b[bj + i] -= b[bp + i] * t;
      }
      const d = l[lOff + j + j * ldl];
      for (let i = 0; i < m; i++) b[bj + i] /= d;
    }
    return;
  }
  const n1 = splitPoint(n);
  const n2 = n - n1;
  trsmRltKernel(m, n1, l, lOff, ldl, b, bOff, ldb);
  // B2 -= X1 * L21^T, L21 = L(n1:n, 0:n1) stored n2 x n1.
  gemmKernel(m, n2, n1, -1, b, bOff, ldb, l, lOff + n1, ldl, true, b, bOff + n1 * ldb, ldb);
  trsmRltKernel(m, n2, l, lOff + n1 + n1 * ldl, ldl, b, bOff + n1 * ldb, ldb);
}

/**
 * Float64 core of dtrsm(side=L, uplo=L, trans=N, diag=U): B = L^{-1} B for L n x n unit
 * lower triangular (diagonal and strict upper part not read) and B n x m, i.e. forward
 * substitution X(i, :) = B(i, :) - sum_{p<i} L(i, p) X(p, :) on every column.
 */
export function trsmLluKernel(
  n: number,
  m: number,
  l: Float64Array,
  lOff: number,
  ldl: number,
  b: Float64Array,
  bOff: number,
  ldb: number,
): void {
  if (m <= 0 || n <= 0) return;
  if (n <= BASE) {
    for (let j = 0; j < m; j++) {
      const bj = bOff + j * ldb;
      for (let p = 0; p < n - 1; p++) {
        const t = b[bj + p];
        if (t === 0) continue;
        const lp = lOff + p * ldl;
        for (let i = p + 1; i < n; i++) b[bj + i] -= l[lp + i] * t;
      }
    }
    return;
  }
  const n1 = splitPoint(n);
  const n2 = n - n1;
  trsmLluKernel(n1, m, l, lOff, ldl, b, bOff, ldb);
  // B2 -= L21 * X1, L21 = L(n1:n, 0:n1) n2 x n1, X1 = B(0:n1, :) n1 x m.
  gemmKernel(n2, m, n1, -1, l, lOff + n1, ldl, b, bOff, ldb, false, b, bOff + n1, ldb);
  trsmLluKernel(n2, m, l, lOff + n1 + n1 * ldl, ldl, b, bOff + n1, ldb);
}

/**
 * Float64 core of dtrsm(side=R, uplo=U, trans=N, diag=N): B = B * U^{-1} for B m x n and
 * U n x n upper triangular (strict lower part not read), i.e. solves X U = B column by
 * column, X(:, j) = (B(:, j) - sum_{p<j} X(:, p) U(p, j)) / U(j, j).
 */
export function trsmRunKernel(
  m: number,
  n: number,
  u: Float64Array,
  uOff: number,
  ldu: number,
  b: Float64Array,
  bOff: number,
  ldb: number,
): void {
  if (m <= 0 || n <= 0) return;
  if (n <= BASE) {
    for (let j = 0; j < n; j++) {
      const bj = bOff + j * ldb;
      const uj = uOff + j * ldu;
      for (let p = 0; p < j; p++) {
        const t = u[uj + p];
        if (t === 0) continue;
        const bp = bOff + p * ldb;
        for (let i = 0; i < m; i++) b[bj + i] -= b[bp + i] * t;
      }
      const d = u[uj + j];
      for (let i = 0; i < m; i++) b[bj + i] /= d;
    }
    return;
  }
  const n1 = splitPoint(n);
  const n2 = n - n1;
  trsmRunKernel(m, n1, u, uOff, ldu, b, bOff, ldb);
  // B2 -= X1 * U12, U12 = U(0:n1, n1:n) n1 x n2.
  gemmKernel(m, n2, n1, -1, b, bOff, ldb, u, uOff + n1 * ldu, ldu, false, b, bOff + n1 * ldb, ldb);
  trsmRunKernel(m, n2, u, uOff + n1 + n1 * ldu, ldu, b, bOff + n1 * ldb, ldb);
}

/** Checks the two n x n tiles of a trsm call and returns the element count. */
function checkTiles(kernel: string, t: Tile, b: Tile, n: number): number {
  checkSize(kernel, 'n', n);
  const len = n * n;
  checkLength(kernel, 'triangle', t, len);
  checkLength(kernel, 'b', b, len);
  return len;
}

/**
 * Cholesky panel solve, dtrsm(R, L, T, N): B = B * L^{-T} in place on the n x n tile B,
 * with L the lower triangle of an n x n tile (upper part ignored): A_ik = A_ik L_kk^{-T}.
 * A zero on L's diagonal gives infinities, as in BLAS.
 */
export function trsmRightLowerTrans(l: Tile, b: Tile, n: number): void {
  const len = checkTiles('trsmRightLowerTrans', l, b, n);
  const bw = widen(b, len, SLOT_B);
  trsmRltKernel(n, n, widen(l, len, SLOT_A), 0, n, bw, 0, n);
  narrow(bw, b, len);
}

/**
 * LU row-panel solve, dtrsm(L, L, N, U): B = L^{-1} B in place on the n x n tile B, with L
 * the unit lower triangle of an n x n tile (diagonal and upper part ignored, as in a packed
 * LU tile): U_kj = L_kk^{-1} A_kj.
 */
export function trsmLeftLowerUnit(l: Tile, b: Tile, n: number): void {
  const len = checkTiles('trsmLeftLowerUnit', l, b, n);
  const bw = widen(b, len, SLOT_B);
  trsmLluKernel(n, n, widen(l, len, SLOT_A), 0, n, bw, 0, n);
  narrow(bw, b, len);
}

/**
 * LU column-panel solve, dtrsm(R, U, N, N): B = B * U^{-1} in place on the n x n tile B,
 * with U the upper triangle of an n x n tile (strict lower part ignored, as in a packed LU
 * tile): L_ik = A_ik U_kk^{-1}.
 */
export function trsmRightUpper(u: Tile, b: Tile, n: number): void {
  const len = checkTiles('trsmRightUpper', u, b, n);
  const bw = widen(b, len, SLOT_B);
  trsmRunKernel(n, n, widen(u, len, SLOT_A), 0, n, bw, 0, n);
  narrow(bw, b, len);
}
