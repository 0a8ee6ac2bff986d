/**
 * Accuracy checks for factorisations and products computed on tiles: whole-matrix
 * assembly and relative Frobenius-norm residuals, all evaluated in float64.
 */
import { gemmKernel } from './gemm.ts';
import type { Tile } from './types.ts';

/**
 * The N x N matrix (N = nt * n) held by an nt x nt array of n x n tiles (tile (i, j) at
 * tiles[i + j * nt]) as one column-major Float64Array. With `part` 'lower' only the tiles
 * and elements on or below the diagonal are copied ('unitLower' also puts 1 on the
 * diagonal, 'upper' keeps the diagonal and above); the rest is zero. Tiles missing from a
 * sparse array (lower-only storage) are read as zero.
 */
export function assemble(
  tiles: readonly (Tile | undefined)[],
  nt: number,
  n: number,
  part: 'full' | 'lower' | 'unitLower' | 'upper' = 'full',
): Float64Array {
  const size = nt * n;
  const m = new Float64Array(size * size);
  for (let tj = 0; tj < nt; tj++) {
    for (let ti = 0; ti < nt; ti++) {
      const t = tiles[ti + tj * nt];
      if (t === undefined) continue;
      for (let j = 0; j < n; j++) {
        const s = tj * n + j;
        for (let i = 0; i < n; i++) {
          const r = ti * n + i;
          const keep = part === 'full' || (part === 'upper' ? r <= s : part === 'lower' ? r >= s : r > s);
          if (keep) m[r + s * size] = t[i + j * n];
        }
      }
    }
  }
  if (part === 'unitLower') for (let d = 0; d < size; d++) m[d + d * size] = 1;
  return m;
}

/** Frobenius norm of the first `length` elements of x (all when omitted). */
export function frobenius(x: Tile, length = x.length): number {
  let s = 0;
  for (let i = 0; i < length; i++) s += x[i] * x[i];
  return Math.sqrt(s);
}

/** Symmetric N x N matrix built from the lower triangle of `lower`. */
function symmetrize(lower: Float64Array, size: number): Float64Array {
  for (let s = 0; s < size; s++) for (let r = 0; r < s; r++) lower[r + s * size] = lower[s + r * size];
  return lower;
}

/**
 * Cholesky residual ||A - L L^T||_F / ||A||_F, A given by the lower triangle of the tiles
 * `a` (mirrored; the upper tiles are not read) and L by the lower triangle of the factored
 * tiles `l` (tiledCholesky's output; upper tiles and the strict upper part of diagonal
 * tiles are ignored).
 */
export function choleskyResidual(a: readonly Tile[], l: readonly Tile[], nt: number, n: number): number {
  const size = nt * n;
  const r = symmetrize(assemble(a, nt, n, 'lower'), size);
  const norm = frobenius(r);
  const lm = assemble(l, nt, n, 'lower');
  gemmKernel(size, size, size, -1, lm, 0, size, lm, 0, size, true, r, 0, size);
  return frobenius(r) / norm;
}

/**
 * LU residual ||A - L U||_F / ||A||_F, with L (unit lower) and U (upper) packed in the
 * factored tiles `lu` (tiledLu's output).
 */
export function luResidual(a: readonly Tile[], lu: readonly Tile[], nt: number, n: number): number {
  const size = nt * n;
  const r = assemble(a, nt, n);
  const norm = frobenius(r);
  const lm = assemble(lu, nt, n, 'unitLower');
  const um = assemble(lu, nt, n, 'upper');
  gemmKernel(size, size, size, -1, lm, 0, size, um, 0, size, false, r, 0, size);
  return frobenius(r) / norm;
}

/**
 * Relative difference ||X - Y||_F / ||Y||_F between two results (single tiles or arrays of
 * tiles of matching shapes); 0 when both are zero, Infinity when only Y is.
 */
export function relativeDifference(
  x: ArrayLike<number> | readonly ArrayLike<number>[],
  y: ArrayLike<number> | readonly ArrayLike<number>[],
): number {
  const xs: readonly ArrayLike<number>[] = Array.isArray(x) ? x : [x as ArrayLike<number>];
  const ys: readonly ArrayLike<number>[] = Array.isArray(y) ? y : [y as ArrayLike<number>];
  if (xs.length !== ys.length) throw new RangeError('relativeDifference: different numbers of tiles');
  let diff = 0;
  let ref = 0;
  for (let t = 0; t < xs.length; t++) {
    const xt = xs[t];
    const yt = ys[t];
    if (xt.length !== yt.length) throw new RangeError(`relativeDifference: tile ${t} lengths differ`);
    for (let i = 0; i < yt.length; i++) {
      const d = xt[i] - yt[i];
      diff += d * d;
      ref += yt[i] * yt[i];
    }
  }
  if (ref === 0) return diff === 0 ? 0 : Number.POSITIVE_INFINITY;
  return Math.sqrt(diff / ref);
}
