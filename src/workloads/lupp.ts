/**
 * Tiled LU with partial pivoting (seed 002's SuperMatrix LU): at step k, one task factorizes
 * the whole panel (the diagonal tile and the tiles below it, where the pivots are searched);
 * then, for every column j > k, one task applies the panel's row interchanges to column j
 * (tiles k..N-1 of it) and solves the panel row (TRSM on tile (k, j)); then the GEMM updates.
 * The interchange task writes the whole column below k, so the GEMMs of column j wait for it.
 * The panel writes its pivot indices into a small handle that the interchange tasks read. At
 * the end, each column j of L gets the interchanges of the later steps (LASWP(k,j), k > j), as
 * LAPACK's dgetrf applies them to the columns left of each panel, so that P A = L U.
 */
import { TaskGraph } from '../core/graph.ts';
import { AccessMode } from '../core/types.ts';
import {
  CPU_GPU,
  checkHostMemory,
  elementBytes,
  finishWorkload,
  intParam,
  MAX_TILE_SIZE,
  precisionParam,
} from './common.ts';
import { GEMM, GETRF } from './kernels.ts';
import type { Workload, WorkloadGenerator, WorkloadParams } from './types.ts';

/** Defaults: 10 x 10 tiles of 1024, double precision (seed 002's tsl runs were double). */
export const LUPP_DEFAULTS = { tiles: 10, tileSize: 1024, precision: 'double' } as const;

/** Row interchanges of a column of L (data movement only). */
const LASWP = { name: 'laswp', kinds: CPU_GPU, flops: () => 0 };

/** Interchanges plus TRSM of one panel-row tile: the TRSM's n^3 flops (the swaps move data). */
const LASWP_TRSM = { name: 'trsm', kinds: CPU_GPU, flops: (n: number) => n * n * n };

/**
 * Builds the graph: per step k, 1 panel task, N-k-1 interchange+TRSM tasks, (N-k-1)^2 GEMMs;
 * then N(N-1)/2 interchange tasks on the columns of L.
 */
export function lupp(params: WorkloadParams = {}): Workload {
  const n = intParam('--tiles', params.tiles, LUPP_DEFAULTS.tiles, 1, 200);
  const ts = intParam('--tile-size', params.tileSize, LUPP_DEFAULTS.tileSize, 1, MAX_TILE_SIZE);
  const precision = precisionParam(params.precision ?? LUPP_DEFAULTS.precision);
  const tileBytes = ts * ts * elementBytes(precision);
  checkHostMemory(params, n * n * tileBytes + n * ts * 4);
  const graph = new TaskGraph();
  const panel = graph.addCodelet(GETRF);
  const swapTrsm = graph.addCodelet(LASWP_TRSM);
  const swapLeft = graph.addCodelet(LASWP);
  const gemm = graph.addCodelet(GEMM);
  const tile = new Int32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++)
      tile[i * n + j] = graph.addHandle(tileBytes, { name: `A[${i},${j}]`, block: [i, j] });
  }
  const at = (i: number, j: number): number => tile[i * n + j]!;
  const piv = Array.from({ length: n }, (_, k) => graph.addHandle(ts * 4, { name: `piv[${k}]` }));
  for (let k = 0; k < n; k++) {
    // The panel: an (N-k) ts x ts LU with pivoting, m b^2 - b^3/3 flops for m = (N-k) ts, b = ts.
    const m = (n - k) * ts;
    const panelAccesses = Array.from({ length: n - k }, (_, d) => [at(k + d, k), AccessMode.RW] as const);
    graph.submit(panel, [[piv[k]!, AccessMode.W], ...panelAccesses], {
      flops: m * ts * ts - (ts * ts * ts) / 3,
      name: `PANEL(${k})`,
    });
    for (let j = k + 1; j < n; j++) {
      const accesses = [
        [piv[k]!, AccessMode.R] as const,
        [at(k, k), AccessMode.R] as const,
        ...Array.from({ length: n - k }, (_, d) => [at(k + d, j), AccessMode.RW] as const),
      ];
      graph.submit(swapTrsm, accesses, { dims: [ts], name: `LASWP_TRSM(${k},${j})` });
    }
    for (let i = k + 1; i < n; i++) {
      for (let j = k + 1; j < n; j++) {
        graph.submit(
          gemm,
          [
            [at(i, k), AccessMode.R],
            [at(k, j), AccessMode.R],
            [at(i, j), AccessMode.RW],
          ],
          { dims: [ts], name: `GEMM(${i},${j},${k})` },
        );
      }
    }
  }
  for (let j = 0; j + 1 < n; j++) {
    for (let k = j + 1; k < n; k++) {
      const column = Array.from({ length: n - k }, (_, d) => [at(k + d, j), AccessMode.RW] as const);
      graph.submit(swapLeft, [[piv[k]!, AccessMode.R], ...column], { flops: 0, name: `LASWP(${k},${j})` });
    }
  }
  return finishWorkload('lupp', graph, `${n}x${n} tiles of ${ts}, ${precision}, partial pivoting`, {
    tiles: n,
    tileSize: ts,
    precision,
  });
}

/** The LU with partial pivoting generator (seed 002). */
export const luppGenerator: WorkloadGenerator = {
  name: 'lupp',
  description:
    'tiled LU with partial pivoting: a panel task per step, interchanges+trsm per column, gemm (seed 002)',
  generate: lupp,
};
