/**
 * Shared types and small helpers of the CPU tile kernels. A tile is a contiguous,
 * column-major typed array: element (i, j) of an m x n tile sits at i + j * m (leading
 * dimension = number of rows).
 */

/** One tile of a dense matrix (or a stencil block), in double or single precision. */
export type Tile = Float64Array | Float32Array;

/** Element type of a tile, spelt as the workloads spell it (`--precision`). */
export type Precision = 'single' | 'double';

/** A zeroed tile of `length` elements in the given precision. */
export function newTile(length: number, precision: Precision): Tile {
  return precision === 'double' ? new Float64Array(length) : new Float32Array(length);
}

/** The precision of a tile. */
export function precisionOf(t: Tile): Precision {
  return t instanceof Float64Array ? 'double' : 'single';
}

/**
 * Throws a RangeError naming the kernel and the argument when a tile holds fewer than
 * `length` elements (an out-of-range typed-array access would otherwise read NaN silently).
 */
export function checkLength(kernel: string, name: string, t: Tile, length: number): void {
  if (t.length < length) {
    throw new RangeError(`${kernel}: ${name} has ${t.length} elements, needs at least ${length}`);
  }
}

/** Throws a RangeError unless `n` is a non-negative integer. */
export function checkSize(kernel: string, name: string, n: number): void {
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`${kernel}: ${name} must be a non-negative integer`);
}

/**
 * Where the recursive kernels split an order n (> 8): about n / 2 rounded up to a multiple
 * of 8, so the GEMM updates keep whole 8-deep register blocks.
 */
export function splitPoint(n: number): number {
  return ((n >> 1) + 7) & ~7;
}
