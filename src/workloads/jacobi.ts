/**
 * 2-D Jacobi iteration (5-point stencil) on an N x N grid, N = tiles x tileSize, split into
 * `tiles` row blocks of `tileSize` whole rows. Two grids, A and B, alternate: iteration k
 * reads the source grid (A when k is even, B when odd) and writes the other one.
 *
 * Layout: every block of every grid is up to three handles, its row segments:
 * - first[g][b]: the block's first row (N elements);
 * - inner[g][b]: its rows 1 .. tileSize-2 (only when tileSize >= 3);
 * - last[g][b]: its last row (only when tileSize >= 2).
 * Task JACOBI(b,k) reads last[src][b-1] (the row above the block, b > 0), the block's segments
 * of the source grid, first[src][b+1] (the row below, b < tiles-1), and writes the block's
 * segments of the destination grid. So a neighbour reads exactly one row of a block, and the
 * halo rows are the only data that cross between memories once every block has been placed
 * (the rest of a block is read and written where it lives). Dependencies follow from the
 * accesses: JACOBI(b,k) waits for JACOBI(b-1..b+1, k-1), which wrote what it reads and read
 * what it overwrites, and for JACOBI(b, k-2), the previous writer of its destination block.
 *
 * The update is u'[r][c] = 0.25 (u[r-1][c] + u[r+1][c] + u[r][c-1] + u[r][c+1]); the grid's
 * border rows and columns keep their values. Flops: 4 per updated (inner) point, 3 additions
 * and one multiplication; the copied border points count none.
 *
 * Runs that compute start from a seeded random grid A (its border too: the border keeps these
 * values) and a zero grid B, written before it is read; kernel jacobiTask of
 * src/kernels/tasks.ts sweeps a block.
 */
import { AccessMode, LocusError } from '../core/types.ts';
import { randomTile } from '../kernels/generate.ts';
import {
  CPU_GPU,
  dataSeedParam,
  elementBytes,
  elementType,
  intParam,
  MAX_TILE_SIZE,
  precisionParam,
} from './common.ts';
import { defineWorkload } from './define.ts';
import type { SubmitAccess, Submitter } from './submitter.ts';
import type { Workload, WorkloadInstance, WorkloadParams } from './types.ts';

/** Defaults: a 2048 x 2048 double grid in 8 blocks of 256 rows, 10 iterations. */
export const JACOBI_DEFAULTS = { tiles: 8, tileSize: 256, iterations: 10, precision: 'double' } as const;

/** Flops per updated grid point (3 additions, 1 multiplication). */
export const JACOBI_FLOPS = 4;

/** Largest number of tasks the generator builds (tiles x iterations). */
const MAX_TASKS = 20_000_000;

/** Largest grid edge N (a 65536^2 double grid is already 32 GiB). */
const MAX_N = 65536;

/** The sweep's codelet (its flops are given per task). */
const JACOBI = { name: 'jacobi', kinds: CPU_GPU };

/** Rows of each segment handle of a block of `tileSize` rows: [1, tileSize-2, 1], empty ones left out. */
export function jacobiSegmentRows(tileSize: number): number[] {
  if (tileSize === 1) return [1];
  if (tileSize === 2) return [1, 1];
  return [1, tileSize - 2, 1];
}

/** Inner points of block b (rows updated x columns updated) of a tiles x tileSize grid. */
export function jacobiUpdatedPoints(b: number, tiles: number, tileSize: number): number {
  const n = tiles * tileSize;
  let rows = tileSize;
  if (b === 0) rows--;
  if (b === tiles - 1) rows--;
  return Math.max(0, rows) * Math.max(0, n - 2);
}

/** A validated Jacobi instance. */
export interface JacobiInstance extends WorkloadInstance {
  tiles: number;
  tileSize: number;
  iterations: number;
  precision: 'single' | 'double';
  dataSeed: number;
}

/** Reads and checks --tiles, --tile-size, --iterations and --precision (default double). */
function instance(params: WorkloadParams): JacobiInstance {
  const tiles = intParam('tiles', params.tiles, JACOBI_DEFAULTS.tiles, 1, MAX_N);
  const tileSize = intParam('tileSize', params.tileSize, JACOBI_DEFAULTS.tileSize, 1, MAX_TILE_SIZE);
  const iterations = intParam('iterations', params.iterations, JACOBI_DEFAULTS.iterations, 1, 1_000_000);
  const precision = precisionParam(params.precision ?? JACOBI_DEFAULTS.precision);
  if (tiles * tileSize > MAX_N) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `the grid edge tiles x tileSize must be at most ${MAX_N} (got ${tiles} x ${tileSize})`,
      { params: ['tiles', 'tileSize'] },
    );
  }
  if (tiles * iterations > MAX_TASKS) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `tiles x iterations must be at most ${MAX_TASKS} (got ${tiles} x ${iterations})`,
      { params: ['tiles', 'iterations'] },
    );
  }
  const n = tiles * tileSize;
  return {
    tiles,
    tileSize,
    iterations,
    precision,
    dataSeed: dataSeedParam(params.dataSeed),
    description: `${n}x${n} grid, ${tiles} row blocks of ${tileSize}, ${iterations} iterations, ${precision}`,
    dataBytes: 2 * n * n * elementBytes(precision),
    params: { tiles, tileSize, iterations, precision },
  };
}

/** Submits the blocked 2-D Jacobi iteration described at the top of this file. */
function submit(s: Submitter, j: JacobiInstance): void {
  const { tiles, tileSize, iterations, precision } = j;
  const n = tiles * tileSize;
  const sweep = s.codelet(JACOBI, 'jacobiTask');
  const segRows = jacobiSegmentRows(tileSize);
  const names =
    segRows.length === 1 ? ['first'] : segRows.length === 2 ? ['first', 'last'] : ['first', 'inner', 'last'];
  const type = elementType(precision);
  // seg[g][b * segs + s]: handle of segment s of block b of grid g (0: A, 1: B).
  const segs = segRows.length;
  const seg = [new Int32Array(tiles * segs), new Int32Array(tiles * segs)];
  for (let g = 0; g < 2; g++) {
    const grid = g === 0 ? 'A' : 'B';
    for (let b = 0; b < tiles; b++) {
      for (let k = 0; k < segs; k++) {
        const length = segRows[k]! * n;
        const seed = j.dataSeed * 1_000_003 + b * segs + k;
        seg[g]![b * segs + k] = s.data({
          name: `${grid}.${names[k]}[${b}]`,
          type,
          length,
          // Row block b, for distributed runs (src/cluster); the simulator's static mappings
          // are 2-D and place jacobi by task affinity instead, so its graph keeps none.
          ...(s.computes ? { block: [b, 0] as const } : {}),
          ...(g === 0 ? { init: () => randomTile(length, seed, precision) } : {}),
        });
      }
    }
  }
  // The kernel's arguments: [n, has a row above, has a row below, segments per block].
  const argsOf = [0, 1, 2, 3].map((f) => [n, f & 1, (f >> 1) & 1, segs]);
  const accesses: SubmitAccess[] = [];
  for (let k = 0; k < iterations; k++) {
    const src = seg[k % 2]!;
    const dst = seg[1 - (k % 2)]!;
    for (let b = 0; b < tiles; b++) {
      accesses.length = 0;
      if (b > 0) accesses.push([src[b * segs - 1]!, AccessMode.R]);
      for (let q = 0; q < segs; q++) accesses.push([src[b * segs + q]!, AccessMode.R]);
      if (b < tiles - 1) accesses.push([src[(b + 1) * segs]!, AccessMode.R]);
      for (let q = 0; q < segs; q++) accesses.push([dst[b * segs + q]!, AccessMode.W]);
      s.submit(sweep, accesses, {
        flops: JACOBI_FLOPS * jacobiUpdatedPoints(b, tiles, tileSize),
        args: argsOf[(b > 0 ? 1 : 0) | (b < tiles - 1 ? 2 : 0)],
        name: `JACOBI(${b},${k})`,
        affinity: b,
        phase: k,
      });
    }
  }
}

/** The 2-D Jacobi generator. */
export const jacobiGenerator = defineWorkload({
  name: 'jacobi',
  description:
    '2-D 5-point Jacobi iteration: row blocks of two alternating grids, neighbours read one halo row each',
  instance,
  submit,
});

/** Builds the blocked 2-D Jacobi iteration's task graph. */
export function jacobi(params: WorkloadParams = {}): Workload {
  return jacobiGenerator.generate(params);
}
