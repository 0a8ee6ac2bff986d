/**
 * Tiled right-looking Cholesky factorization A = L L^T (lower), in the submission order of
 * StarPU's cholesky example, as used in seed 000's Fig. 3 and seed 004's 4 x 4-block runs.
 * Only the lower triangle of tiles is registered.
 */
import { TaskGraph } from '../core/graph.ts';
import { AccessMode, LocusError } from '../core/types.ts';
import {
  checkHostMemory,
  elementBytes,
  finishWorkload,
  intParam,
  MAX_TILE_SIZE,
  precisionParam,
} from './common.ts';
import { GEMM, POTRF, SYRK, TRSM } from './kernels.ts';
import type { Workload, WorkloadGenerator, WorkloadParams } from './types.ts';

/** Defaults of seed 000's Fig. 3: tiles of 1920 x 1920 single precision (14.06 MiB), N = 10. */
export const CHOLESKY_DEFAULTS = { tiles: 10, tileSize: 1920, precision: 'single' } as const;

/** Builds the tiled Cholesky task graph: N potrf, N(N-1)/2 trsm and syrk, N(N-1)(N-2)/6 gemm. */
export function cholesky(params: WorkloadParams = {}): Workload {
  const n = intParam('--tiles', params.tiles, CHOLESKY_DEFAULTS.tiles, 1, 300);
  const ts = intParam('--tile-size', params.tileSize, CHOLESKY_DEFAULTS.tileSize, 1, MAX_TILE_SIZE);
  const precision = precisionParam(params.precision);
  const order = params.order ?? 'rows';
  if (order !== 'rows' && order !== 'columns') {
    throw new LocusError(`--order must be rows or columns (got '${String(order)}')`);
  }
  const tileBytes = ts * ts * elementBytes(precision);
  checkHostMemory(params, ((n * (n + 1)) / 2) * tileBytes);

  const graph = new TaskGraph();
  const potrf = graph.addCodelet(POTRF);
  const trsm = graph.addCodelet(TRSM);
  const syrk = graph.addCodelet(SYRK);
  const gemm = graph.addCodelet(GEMM);

  // Lower-triangle tile (i, j), j <= i, lives at i(i+1)/2 + j.
  const tile = new Int32Array((n * (n + 1)) / 2);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++)
      tile[(i * (i + 1)) / 2 + j] = graph.addHandle(tileBytes, { name: `A[${i},${j}]`, block: [i, j] });
  }
  const at = (i: number, j: number): number => tile[(i * (i + 1)) / 2 + j]!;
  const dims = [ts];

  for (let k = 0; k < n; k++) {
    graph.submit(potrf, [[at(k, k), AccessMode.RW]], { dims, name: `POTRF(${k})` });
    for (let m = k + 1; m < n; m++) {
      graph.submit(
        trsm,
        [
          [at(k, k), AccessMode.R],
          [at(m, k), AccessMode.RW],
        ],
        { dims, name: `TRSM(${m},${k})` },
      );
    }
    const syrkTask = (m: number) =>
      graph.submit(
        syrk,
        [
          [at(m, k), AccessMode.R],
          [at(m, m), AccessMode.RW],
        ],
        { dims, name: `SYRK(${m},${k})` },
      );
    const gemmTask = (m: number, c: number) =>
      graph.submit(
        gemm,
        [
          [at(m, k), AccessMode.R],
          [at(c, k), AccessMode.R],
          [at(m, c), AccessMode.RW],
        ],
        { dims, name: `GEMM(${m},${c},${k})` },
      );
    if (order === 'columns') {
      for (let c = k + 1; c < n; c++) {
        syrkTask(c);
        for (let m = c + 1; m < n; m++) gemmTask(m, c);
      }
    } else {
      for (let m = k + 1; m < n; m++) {
        for (let c = k + 1; c < m; c++) gemmTask(m, c);
        syrkTask(m);
      }
    }
  }
  return finishWorkload('cholesky', graph, `${n}x${n} tiles of ${ts}, ${precision}`, {
    tiles: n,
    tileSize: ts,
    precision,
  });
}

/** The tiled Cholesky generator (seed 000 Fig. 3, seed 004). */
export const choleskyGenerator: WorkloadGenerator = {
  name: 'cholesky',
  description: 'tiled right-looking Cholesky (lower), StarPU order: potrf, trsm, syrk, gemm (seeds 000, 004)',
  generate: cholesky,
};
