/**
 * Deterministic test matrices, as arrays of column-major tiles: tile (i, j) of an nt x nt
 * tiled matrix with n x n tiles is tiles[i + j * nt], and global element (r, s) of the
 * N x N matrix (N = nt * n) is tile (r / n, s / n) at (r % n) + (s % n) * n. Every value
 * comes from `mulberry32(seed)`, so a seed reproduces a matrix exactly in either precision.
 */
import { newTile, type Precision, type Tile } from './types.ts';

/**
 * Mulberry32 (Tommy Ettinger's 32-bit PRNG: a Weyl sequence s += 0x6D2B79F5 through an
 * xorshift-multiply output mix): returns a function giving uniform doubles in [0, 1) with
 * 32 random bits. Tiny, fast and good enough for test data; not for cryptography.
 */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A tile of `length` values uniform in [-1, 1), from `seed`. */
export function randomTile(length: number, seed: number, precision: Precision): Tile {
  const rnd = mulberry32(seed);
  const t = newTile(length, precision);
  for (let i = 0; i < length; i++) t[i] = 2 * rnd() - 1;
  return t;
}

/** Deep copy of an array of tiles (same precisions). */
export function cloneTiles(tiles: readonly Tile[]): Tile[] {
  return tiles.map((t) => t.slice());
}

/**
 * Builds an nt x nt array of n x n tiles from a global element function f(r, s), called
 * once per element in column-major global order.
 */
function buildTiles(
  nt: number,
  n: number,
  precision: Precision,
  f: (r: number, s: number) => number,
): Tile[] {
  const tiles: Tile[] = [];
  for (let t = 0; t < nt * nt; t++) tiles.push(newTile(n * n, precision));
  const size = nt * n;
  for (let s = 0; s < size; s++) {
    for (let r = 0; r < size; r++) {
      tiles[Math.floor(r / n) + Math.floor(s / n) * nt][(r % n) + (s % n) * n] = f(r, s);
    }
  }
  return tiles;
}

/**
 * A symmetric positive definite N x N matrix (N = nt * n) as all nt * nt tiles (both
 * triangles filled, exactly symmetric): off-diagonal entries uniform in [-1, 1), diagonal
 * entries uniform in [N, N + 1), so it is strictly diagonally dominant with a positive
 * diagonal, hence SPD (Gershgorin), and well conditioned.
 */
export function spdMatrixTiles(nt: number, n: number, seed: number, precision: Precision): Tile[] {
  const size = nt * n;
  const rnd = mulberry32(seed);
  const lower = new Float64Array(size * size);
  for (let s = 0; s < size; s++) {
    for (let r = s; r < size; r++) lower[r + s * size] = r === s ? size + rnd() : 2 * rnd() - 1;
  }
  return buildTiles(nt, n, precision, (r, s) => (r >= s ? lower[r + s * size] : lower[s + r * size]));
}

/**
 * A non-symmetric, strictly diagonally dominant N x N matrix (N = nt * n) as nt * nt tiles:
 * off-diagonal entries uniform in [-1, 1), diagonal entries uniform in [N, N + 1), so LU
 * without pivoting exists and is stable.
 */
export function diagDominantTiles(nt: number, n: number, seed: number, precision: Precision): Tile[] {
  const size = nt * n;
  const rnd = mulberry32(seed);
  return buildTiles(nt, n, precision, (r, s) => (r === s ? size + rnd() : 2 * rnd() - 1));
}
