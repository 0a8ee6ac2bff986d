/**
 * The 2-D Jacobi iteration run for real: the same task graph as the simulated `jacobi`
 * workload (src/workloads/jacobi.ts: two grids in row blocks, each block a first-row,
 * inner-rows and last-row handle, JACOBI(b,k) reading its block and one halo row of each
 * neighbour from one grid and writing its block of the other), on a seeded random grid.
 * Tasks carry the iteration as their phase and the block as their affinity, so the report
 * gives per-iteration bytes and `static` places block b on one device for the whole run.
 * With `check`, the same kernel runs over the same blocks sequentially in this thread, so
 * the residual is 0 exactly when every value matches bit for bit.
 */
import { cloneTiles, randomTile } from '../../kernels/generate.ts';
import { jacobiBlock } from '../../kernels/jacobi.ts';
import { relativeDifference } from '../../kernels/residual.ts';
import { newTile, type Tile } from '../../kernels/types.ts';
import { JACOBI_FLOPS, jacobiSegmentRows, jacobiSizes, jacobiUpdatedPoints } from '../../workloads/jacobi.ts';
import type { Data } from '../runtime.ts';
import {
  type AppOptions,
  type AppResult,
  checkAppSizes,
  openRuntime,
  runSubmitted,
  TASKS_MODULE,
} from './common.ts';

/** The segments of every block of both grids: grids[g][b][s]. */
type Grids = Tile[][][];

/** Runs `iterations` (default 10) Jacobi sweeps on a tiles x tileSize square grid; see AppOptions. */
export async function runJacobi(o: AppOptions): Promise<AppResult> {
  // Two grids: keep 2 N^2 elements under the limit of one matrix.
  checkAppSizes(o, 2 ** 27);
  const { tiles, tileSize, iterations, precision } = jacobiSizes({
    tiles: o.tiles,
    tileSize: o.tileSize,
    iterations: o.iterations,
    precision: o.precision ?? 'double',
  });
  const n = tiles * tileSize;
  const segRows = jacobiSegmentRows(tileSize);
  const segs = segRows.length;
  const seed = o.dataSeed ?? 1;
  // Grid A random (its border too: the border keeps these values); B written before it is read.
  const grids: Grids = [0, 1].map((g) =>
    Array.from({ length: tiles }, (_, b) =>
      segRows.map((rows, s) =>
        g === 0
          ? randomTile(rows * n, seed * 1_000_003 + b * segs + s, precision)
          : newTile(rows * n, precision),
      ),
    ),
  );
  const initial = o.check ? grids.map((blocks) => blocks.map((b) => cloneTiles(b))) : undefined;
  const { rt, owned } = await openRuntime(o);
  try {
    const sweep = rt.codelet({
      name: 'jacobi',
      kernel: { module: TASKS_MODULE, export: 'jacobiTask' },
    });
    const names = segs === 1 ? ['first'] : segs === 2 ? ['first', 'last'] : ['first', 'inner', 'last'];
    const handles: Data[][][] = grids.map((blocks, g) =>
      blocks.map((block, b) =>
        block.map((seg, s) => rt.data(seg, { name: `${g === 0 ? 'A' : 'B'}.${names[s]}[${b}]` })),
      ),
    );
    for (let k = 0; k < iterations; k++) {
      const src = handles[k % 2]!;
      const dst = handles[1 - (k % 2)]!;
      for (let b = 0; b < tiles; b++) {
        const accesses: [Data, 'R' | 'W'][] = [];
        if (b > 0) accesses.push([src[b - 1]![segs - 1]!, 'R']);
        for (const h of src[b]!) accesses.push([h, 'R']);
        if (b < tiles - 1) accesses.push([src[b + 1]![0]!, 'R']);
        for (const h of dst[b]!) accesses.push([h, 'W']);
        rt.submit(sweep, accesses, {
          args: [n, b > 0 ? 1 : 0, b < tiles - 1 ? 1 : 0, segs],
          flops: JACOBI_FLOPS * jacobiUpdatedPoints(b, tiles, tileSize),
          name: `JACOBI(${b},${k})`,
          affinity: b,
          phase: k,
        });
      }
    }
    const workload = `jacobi ${n}x${n} grid, ${tiles} row blocks of ${tileSize}, ${iterations} iterations, ${precision}`;
    const report = await runSubmitted(rt, o, workload);
    if (!initial) return { report, workload };
    sequentialJacobi(initial, tiles, n, iterations);
    return { report, workload, residual: relativeDifference(grids.flat(2), initial.flat(2)) };
  } finally {
    if (owned) await rt.close();
  }
}

/** The same sweeps, block by block in submission order, in this thread (the check). */
export function sequentialJacobi(grids: Grids, tiles: number, n: number, iterations: number): void {
  for (let k = 0; k < iterations; k++) {
    const src = grids[k % 2]!;
    const dst = grids[1 - (k % 2)]!;
    for (let b = 0; b < tiles; b++) {
      const above = b > 0 ? src[b - 1]!.at(-1)! : null;
      const below = b < tiles - 1 ? src[b + 1]![0]! : null;
      jacobiBlock(src[b]!, dst[b]!, n, above, below);
    }
  }
}
