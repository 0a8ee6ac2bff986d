/**
 * Tiled LU factorization without pivoting on N x N tiles, the right-looking blocked
 * algorithm of seed 001's LU experiments and seed 002's SuperMatrix runs.
 */
import { TaskGraph } from '../core/graph.ts';
import { AccessMode } from '../core/types.ts';
import {
  checkHostMemory,
  elementBytes,
  finishWorkload,
  intParam,
  MAX_TILE_SIZE,
  precisionParam,
} from './common.ts';
import { GEMM, GETRF, TRSM } from './kernels.ts';
import type { Workload, WorkloadGenerator, WorkloadParams } from './types.ts';

/** Defaults: 10 x 10 tiles of 960 x 960, single precision. */
export const LU_DEFAULTS = { tiles: 10, tileSize: 960, precision: 'single' } as const;

/** Builds the tiled LU task graph: N(N+1)(2N+1)/6 tasks. */
export function lu(params: WorkloadParams = {}): Workload {
  const n = intParam('--tiles', params.tiles, LU_DEFAULTS.tiles, 1, 200);
  const ts = intParam('--tile-size', params.tileSize, LU_DEFAULTS.tileSize, 1, MAX_TILE_SIZE);
  const precision = precisionParam(params.precision);
  const tileBytes = ts * ts * elementBytes(precision);
  checkHostMemory(params, n * n * tileBytes);

  const graph = new TaskGraph();
  const getrf = graph.addCodelet(GETRF);
  const trsm = graph.addCodelet(TRSM);
  const gemm = graph.addCodelet(GEMM);

  const tile = new Int32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++)
      tile[i * n + j] = graph.addHandle(tileBytes, { name: `A[${i},${j}]`, block: [i, j] });
  }
  const at = (i: number, j: number): number => tile[i * n + j]!;
  const dims = [ts];

  for (let k = 0; k < n; k++) {
    graph.submit(getrf, [[at(k, k), AccessMode.RW]], { dims, name: `GETRF(${k})` });
    // Row panel: U[k, j] = L[k, k]^-1 A[k, j].
    for (let j = k + 1; j < n; j++) {
      graph.submit(
        trsm,
        [
          [at(k, k), AccessMode.R],
          [at(k, j), AccessMode.RW],
        ],
        { dims, name: `TRSM(${k},${j})` },
      );
    }
    // Column panel: L[i, k] = A[i, k] U[k, k]^-1.
    for (let i = k + 1; i < n; i++) {
      graph.submit(
        trsm,
        [
          [at(k, k), AccessMode.R],
          [at(i, k), AccessMode.RW],
        ],
        { dims, name: `TRSM(${i},${k})` },
      );
    }
    // Trailing update: A[i, j] -= L[i, k] U[k, j].
    for (let i = k + 1; i < n; i++) {
      for (let j = k + 1; j < n; j++) {
        graph.submit(
          gemm,
          [
            [at(i, k), AccessMode.R],
            [at(k, j), AccessMode.R],
            [at(i, j), AccessMode.RW],
          ],
          { dims, name: `GEMM(${i},${j},${k})` },
        );
      }
    }
  }
  return finishWorkload('lu', graph, `${n}x${n} tiles of ${ts}, ${precision}, no pivoting`, {
    tiles: n,
    tileSize: ts,
    precision,
  });
}

/** The tiled LU generator (seeds 001, 002). */
export const luGenerator: WorkloadGenerator = {
  name: 'lu',
  description:
    'tiled right-looking LU without pivoting: getrf, trsm (row and column panels), gemm (seeds 001, 002)',
  generate: lu,
};
