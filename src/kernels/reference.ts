/**
 * Reference results for tests and `--check` runs: naive textbook loops for every tile
 * kernel (same arguments and in-place semantics as the fast kernels, computed straight from
 * the defining equations in float64 and stored into the output tile), and sequential tiled
 * Cholesky, LU and GEMM drivers that call the fast tile kernels in the textbook order. The
 * test-matrix generators and residual checks are re-exported from generate.ts and
 * residual.ts.
 */
import { gemm } from './gemm.ts';
import { getrf } from './getrf.ts';
import { potrf } from './potrf.ts';
import { syrk } from './syrk.ts';
import { trsmLeftLowerUnit, trsmRightLowerTrans, trsmRightUpper } from './trsm.ts';
import type { Tile } from './types.ts';

export { cloneTiles, diagDominantTiles, mulberry32, randomTile, spdMatrixTiles } from './generate.ts';
export { assemble, choleskyResidual, frobenius, luResidual, relativeDifference } from './residual.ts';

/** Naive dgemm: C(i, j) = alpha * sum_p op(A)(i, p) op(B)(p, j) + beta * C(i, j) (beta = 0 ignores C). */
export function gemmRef(
  a: Tile,
  b: Tile,
  c: Tile,
  n: number,
  transA = false,
  transB = false,
  alpha = 1,
  beta = 1,
): void {
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let p = 0; p < n; p++)
        s += (transA ? a[p + i * n] : a[i + p * n]) * (transB ? b[j + p * n] : b[p + j * n]);
      c[i + j * n] = beta === 0 ? alpha * s : alpha * s + beta * c[i + j * n];
    }
  }
}

/**
 * Naive Cholesky-Crout (lower): L(j, j) = sqrt(A(j, j) - sum_{p<j} L(j, p)^2),
 * L(i, j) = (A(i, j) - sum_{p<j} L(i, p) L(j, p)) / L(j, j); upper part untouched. Throws
 * the same error as potrf.
 */
export function potrfRef(a: Tile, n: number): void {
  for (let j = 0; j < n; j++) {
    let d = a[j + j * n];
    for (let p = 0; p < j; p++) d -= a[j + p * n] * a[j + p * n];
    if (!(d > 0)) throw new Error(`potrf: matrix not positive definite at column ${j}`);
    const r = Math.sqrt(d);
    a[j + j * n] = r;
    for (let i = j + 1; i < n; i++) {
      let s = a[i + j * n];
      for (let p = 0; p < j; p++) s -= a[i + p * n] * a[j + p * n];
      a[i + j * n] = s / r;
    }
  }
}

/** Naive B = B L^{-T}: each row x of B solves x L^T = b by forward substitution. */
export function trsmRightLowerTransRef(l: Tile, b: Tile, n: number): void {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = b[i + j * n];
      for (let p = 0; p < j; p++) s -= b[i + p * n] * l[j + p * n];
      b[i + j * n] = s / l[j + j * n];
    }
  }
}

/** Naive B = L^{-1} B, L unit lower: each column x of B solves L x = b by forward substitution. */
export function trsmLeftLowerUnitRef(l: Tile, b: Tile, n: number): void {
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      let s = b[i + j * n];
      for (let p = 0; p < i; p++) s -= l[i + p * n] * b[p + j * n];
      b[i + j * n] = s;
    }
  }
}

/** Naive B = B U^{-1}: each row x of B solves x U = b by forward substitution. */
export function trsmRightUpperRef(u: Tile, b: Tile, n: number): void {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = b[i + j * n];
      for (let p = 0; p < j; p++) s -= b[i + p * n] * u[p + j * n];
      b[i + j * n] = s / u[j + j * n];
    }
  }
}

/** Naive C = C - A A^T on the lower triangle: C(i, j) -= sum_p A(i, p) A(j, p) for i >= j. */
export function syrkRef(a: Tile, c: Tile, n: number): void {
  for (let j = 0; j < n; j++) {
    for (let i = j; i < n; i++) {
      let s = 0;
      for (let p = 0; p < n; p++) s += a[i + p * n] * a[j + p * n];
      c[i + j * n] -= s;
    }
  }
}

/**
 * Naive Doolittle LU without pivoting: U(k, j) = A(k, j) - sum_{p<k} L(k, p) U(p, j) for
 * j >= k, L(i, k) = (A(i, k) - sum_{p<k} L(i, p) U(p, k)) / U(k, k) for i > k, packed in
 * place. Throws the same error as getrf.
 */
export function getrfRef(a: Tile, n: number): void {
  for (let k = 0; k < n; k++) {
    for (let j = k; j < n; j++) {
      let s = a[k + j * n];
      for (let p = 0; p < k; p++) s -= a[k + p * n] * a[p + j * n];
      a[k + j * n] = s;
    }
    const d = a[k + k * n];
    if (d === 0) throw new Error(`getrf: zero pivot at column ${k}`);
    for (let i = k + 1; i < n; i++) {
      let s = a[i + k * n];
      for (let p = 0; p < k; p++) s -= a[i + p * n] * a[p + k * n];
      a[i + k * n] = s / d;
    }
  }
}

/** Naive 7-point stencil7 with every neighbour looked up through explicit bounds tests. */
export function stencil7Ref(
  src: Tile,
  dst: Tile,
  nx: number,
  ny: number,
  nz: number,
  below: Tile | null,
  above: Tile | null,
  alpha: number,
  beta: number,
): void {
  const at = (x: number, y: number, z: number): number => {
    if (x < 0 || x >= nx || y < 0 || y >= ny) return 0;
    if (z < 0) return below === null ? 0 : below[x + nx * y];
    if (z >= nz) return above === null ? 0 : above[x + nx * y];
    return src[x + nx * (y + ny * z)];
  };
  for (let z = 0; z < nz; z++) {
    for (let y = 0; y < ny; y++) {
      for (let x = 0; x < nx; x++) {
        const sum =
          at(x - 1, y, z) +
          at(x + 1, y, z) +
          at(x, y - 1, z) +
          at(x, y + 1, z) +
          at(x, y, z - 1) +
          at(x, y, z + 1);
        dst[x + nx * (y + ny * z)] = alpha * at(x, y, z) + beta * sum;
      }
    }
  }
}

/**
 * Sequential right-looking tiled Cholesky (lower) on nt x nt tiles of n x n, tile (i, j) at
 * tiles[i + j * nt]; only the tiles with i >= j are read or written. Step k: POTRF(A_kk);
 * TRSM A_ik = A_ik L_kk^{-T} for i > k; SYRK A_ii -= A_ik A_ik^T and GEMM
 * A_ij -= A_ik A_jk^T for i > j > k. Leaves L in the lower tiles (the strict upper part of
 * the diagonal tiles keeps A's values).
 */
export function tiledCholesky(tiles: Tile[], nt: number, n: number): void {
  for (let k = 0; k < nt; k++) {
    const akk = tiles[k + k * nt];
    potrf(akk, n);
    for (let i = k + 1; i < nt; i++) trsmRightLowerTrans(akk, tiles[i + k * nt], n);
    for (let i = k + 1; i < nt; i++) {
      const aik = tiles[i + k * nt];
      syrk(aik, tiles[i + i * nt], n);
      for (let j = k + 1; j < i; j++) gemm(aik, tiles[j + k * nt], tiles[i + j * nt], n, false, true, -1, 1);
    }
  }
}

/**
 * Sequential right-looking tiled LU without pivoting on nt x nt tiles of n x n. Step k:
 * GETRF(A_kk); TRSM U_kj = L_kk^{-1} A_kj for j > k and L_ik = A_ik U_kk^{-1} for i > k;
 * GEMM A_ij -= L_ik U_kj for i, j > k. Leaves L (unit lower) and U packed in the tiles.
 */
export function tiledLu(tiles: Tile[], nt: number, n: number): void {
  for (let k = 0; k < nt; k++) {
    const akk = tiles[k + k * nt];
    getrf(akk, n);
    for (let j = k + 1; j < nt; j++) trsmLeftLowerUnit(akk, tiles[k + j * nt], n);
    for (let i = k + 1; i < nt; i++) trsmRightUpper(akk, tiles[i + k * nt], n);
    for (let j = k + 1; j < nt; j++) {
      for (let i = k + 1; i < nt; i++)
        gemm(tiles[i + k * nt], tiles[k + j * nt], tiles[i + j * nt], n, false, false, -1, 1);
    }
  }
}

/** Sequential tiled GEMM C += A B on nt x nt tiles of n x n: C_ij += sum_k A_ik B_kj, k ascending. */
export function tiledGemm(a: Tile[], b: Tile[], c: Tile[], nt: number, n: number): void {
  for (let j = 0; j < nt; j++) {
    for (let i = 0; i < nt; i++) {
      for (let k = 0; k < nt; k++) gemm(a[i + k * nt], b[k + j * nt], c[i + j * nt], n, false, false, 1, 1);
    }
  }
}
