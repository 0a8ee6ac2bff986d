/**
 * The `stencil` workload's kernels (seed 001's 7-point stencil) on a block of planes of an
 * X x X x Z grid, point (x, y, z) of a block at x + y X + z X^2:
 *
 * - `stencilUpdate`: one red-black half sweep, in place: the points of colour
 *   (x + y + z_global) % 2 == parity become A u + B (sum of the 6 neighbours), A = 0.4 and
 *   B = 0.1; the grid's boundary points (x or y at 0 or X - 1, z_global at 0 or Z - 1) are
 *   fixed. A point's 6 neighbours all have the other colour, so the update reads nothing it
 *   writes: it is race-free on a GPU and needs no second buffer (the block is RW). The plane
 *   below the block (z_global - 1) comes from `lower` and the one above from `upper`, the
 *   neighbours' halo planes; a missing one means the block touches the grid's boundary.
 * - `haloCopy`: a block's lowest and highest planes into its halo planes.
 */
import type { Tile } from './types.ts';

/** Weight of the point itself. */
export const STENCIL_A = 0.4;
/** Weight of each of the 6 neighbours. */
export const STENCIL_B = 0.1;

/** One red-black half sweep of `block` (depth planes of x * x), first plane at global z0. */
export function stencilUpdate(
  block: Tile,
  x: number,
  z0: number,
  parity: number,
  lower: Tile | null,
  upper: Tile | null,
): void {
  const p = x * x;
  const depth = Math.floor(block.length / p);
  for (let z = 0; z < depth; z++) {
    const fixedZ = (z === 0 && lower === null) || (z === depth - 1 && upper === null);
    if (fixedZ) continue;
    for (let y = 1; y < x - 1; y++) {
      // First x of the colour on this row, x >= 1.
      let i = 1 + ((1 + y + z0 + z + parity) & 1);
      for (; i < x - 1; i += 2) {
        const k = i + y * x + z * p;
        const below = z === 0 ? lower![i + y * x]! : block[k - p]!;
        const above = z === depth - 1 ? upper![i + y * x]! : block[k + p]!;
        const s = block[k - 1]! + block[k + 1]! + block[k - x]! + block[k + x]! + below + above;
        block[k] = STENCIL_A * block[k]! + STENCIL_B * s;
      }
    }
  }
}

/** Copies the lowest plane of `block` into `bottom` and its highest into `top` (either may be null). */
export function haloCopy(block: Tile, planePoints: number, bottom: Tile | null, top: Tile | null): void {
  const depth = Math.floor(block.length / planePoints);
  if (bottom !== null) bottom.set(block.subarray(0, planePoints));
  if (top !== null) top.set(block.subarray((depth - 1) * planePoints, depth * planePoints));
}
