/**
 * Tiled 3-D matrix multiplication C += A B on N x N tiles: task GEMM(i,j,k) reads A[i,k] and
 * B[k,j] and updates C[i,j], so the N tasks of one C tile form a chain along k.
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
import { GEMM } from './kernels.ts';
import type { Workload, WorkloadGenerator, WorkloadParams } from './types.ts';

/** Defaults: 8 x 8 tiles of 960 x 960, single precision. */
export const GEMM_DEFAULTS = { tiles: 8, tileSize: 960, precision: 'single' } as const;

/** Builds the tiled GEMM: for i, for j, for k: GEMM(i,j,k). */
export function gemm(params: WorkloadParams = {}): Workload {
  const n = intParam('--tiles', params.tiles, GEMM_DEFAULTS.tiles, 1, 200);
  const ts = intParam('--tile-size', params.tileSize, GEMM_DEFAULTS.tileSize, 1, MAX_TILE_SIZE);
  const precision = precisionParam(params.precision);
  const tileBytes = ts * ts * elementBytes(precision);
  checkHostMemory(params, 3 * n * n * tileBytes);

  const graph = new TaskGraph();
  const cl = graph.addCodelet(GEMM);
  const tiles = (name: string): Int32Array => {
    const ids = new Int32Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++)
        ids[i * n + j] = graph.addHandle(tileBytes, { name: `${name}[${i},${j}]`, block: [i, j] });
    }
    return ids;
  };
  const a = tiles('A');
  const b = tiles('B');
  const c = tiles('C');
  const flops = GEMM.flops!(ts);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < n; k++) {
        graph.submit(
          cl,
          [
            [a[i * n + k]!, AccessMode.R],
            [b[k * n + j]!, AccessMode.R],
            [c[i * n + j]!, AccessMode.RW],
          ],
          { flops, name: `GEMM(${i},${j},${k})` },
        );
      }
    }
  }
  return finishWorkload('gemm', graph, `${n}x${n} tiles of ${ts}, ${precision}`, {
    tiles: n,
    tileSize: ts,
    precision,
  });
}

/** The tiled GEMM generator. */
export const gemmGenerator: WorkloadGenerator = {
  name: 'gemm',
  description: 'tiled 3-D matrix product C += A B: N^3 tasks, chains along k through C[i,j]',
  generate: gemm,
};
