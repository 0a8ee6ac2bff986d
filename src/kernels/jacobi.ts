/**
 * One sweep of the 2-D 5-point Jacobi iteration on a block of whole grid rows:
 * u'[r][c] = 0.25 * (u[r-1][c] + u[r+1][c] + u[r][c-1] + u[r][c+1]), with a fixed boundary
 * (the grid's first and last rows and columns keep their values). A block is stored as
 * consecutive row segments (each a typed array holding whole rows of n elements, row-major),
 * so that its first and last rows can be handles of their own (the `jacobi` workload's halo
 * rows). The row above the block and the row below it are the neighbours' halo rows, or null
 * where the block touches the grid's border. 4 flops per updated point (3 additions and one
 * multiplication); border points are copied.
 */
import { checkSize, type Tile } from './types.ts';

/** Flops per updated grid point of one Jacobi sweep (3 additions, 1 multiplication). */
export const JACOBI_FLOPS_PER_POINT = 4;

/** Rows of the segments (each a whole number of rows of n elements); throws otherwise. */
function rowsOf(kernel: string, name: string, segments: readonly Tile[], n: number): number {
  let rows = 0;
  for (let s = 0; s < segments.length; s++) {
    const len = segments[s]!.length;
    if (len === 0 || len % n !== 0) {
      throw new RangeError(
        `${kernel}: ${name}[${s}] has ${len} elements, not a whole number of rows of ${n}`,
      );
    }
    rows += len / n;
  }
  return rows;
}

/** (array, offset) of every row of the segments, in order. */
function rowTable(segments: readonly Tile[], n: number, arrays: Tile[], offsets: number[]): void {
  for (const seg of segments) {
    for (let off = 0; off < seg.length; off += n) {
      arrays.push(seg);
      offsets.push(off);
    }
  }
}

/**
 * One Jacobi sweep of a block: reads the block's rows from `src` (row segments) and the
 * neighbours' rows `above` / `below` (n elements each, or null at the grid's top / bottom
 * border, where the block's own first / last row is a border row and is copied), writes the
 * new rows into `dst` (segments of the same shapes as src). Columns 0 and n-1 are copied.
 * Float64 or float32 (one type per call): each point is summed in double precision in the
 * order up, down, left, right, then scaled, so any run of this kernel over the same blocks
 * gives the same bits.
 */
export function jacobiBlock(
  src: readonly Tile[],
  dst: readonly Tile[],
  n: number,
  above: Tile | null,
  below: Tile | null,
): void {
  checkSize('jacobiBlock', 'n', n);
  if (n === 0) return;
  const rows = rowsOf('jacobiBlock', 'src', src, n);
  const dstRows = rowsOf('jacobiBlock', 'dst', dst, n);
  if (dstRows !== rows) throw new RangeError(`jacobiBlock: dst has ${dstRows} rows, src ${rows}`);
  if (above !== null && above.length < n)
    throw new RangeError(`jacobiBlock: above has fewer than ${n} elements`);
  if (below !== null && below.length < n)
    throw new RangeError(`jacobiBlock: below has fewer than ${n} elements`);
  const sa: Tile[] = [];
  const so: number[] = [];
  const da: Tile[] = [];
  const dOff: number[] = [];
  rowTable(src, n, sa, so);
  rowTable(dst, n, da, dOff);
  for (let r = 0; r < rows; r++) {
    const s = sa[r]!;
    const sOff = so[r]!;
    const d = da[r]!;
    const dO = dOff[r]!;
    const up = r > 0 ? sa[r - 1]! : above;
    const down = r < rows - 1 ? sa[r + 1]! : below;
    if (up === null || down === null || n < 3) {
      // A border row of the grid (or a grid too narrow for inner points): kept.
      for (let c = 0; c < n; c++) d[dO + c] = s[sOff + c]!;
      continue;
    }
    const uOff = r > 0 ? so[r - 1]! : 0;
    const wOff = r < rows - 1 ? so[r + 1]! : 0;
    d[dO] = s[sOff]!;
    for (let c = 1; c < n - 1; c++) {
      d[dO + c] = 0.25 * (up[uOff + c]! + down[wOff + c]! + s[sOff + c - 1]! + s[sOff + c + 1]!);
    }
    d[dO + n - 1] = s[sOff + n - 1]!;
  }
}
