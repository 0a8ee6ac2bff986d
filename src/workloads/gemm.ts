/**
 * Tiled 3-D matrix multiplication C += A B on N x N tiles: task GEMM(i,j,k) reads A[i,k] and
 * B[k,j] and updates C[i,j], so the N tasks of one C tile form a chain along k. Runs that
 * compute multiply seeded random matrices.
 */
import { AccessMode } from '../core/types.ts';
import { randomTile } from '../kernels/generate.ts';
import { elementBytes, elementType, type TiledMatrixParams, tiledMatrixParams } from './common.ts';
import { defineWorkload } from './define.ts';
import { GEMM } from './kernels.ts';
import type { Submitter } from './submitter.ts';
import type { Workload, WorkloadInstance, WorkloadParams } from './types.ts';

/** Defaults: 8 x 8 tiles of 960 x 960, single precision. */
export const GEMM_DEFAULTS = { tiles: 8, tileSize: 960, precision: 'single' } as const;

/** A validated GEMM instance. */
export interface GemmInstance extends WorkloadInstance, TiledMatrixParams {}

function instance(params: WorkloadParams): GemmInstance {
  const m = tiledMatrixParams(params, GEMM_DEFAULTS, 200);
  const { tiles: n, tileSize: ts, precision } = m;
  return {
    ...m,
    description: `${n}x${n} tiles of ${ts}, ${precision}`,
    dataBytes: 3 * n * n * ts * ts * elementBytes(precision),
    params: { tiles: n, tileSize: ts, precision },
  };
}

/** Submits the tiled GEMM: for i, for j, for k: GEMM(i,j,k). */
function submit(s: Submitter, g: GemmInstance): void {
  const { tiles: n, tileSize: ts, precision } = g;
  const cl = s.codelet(GEMM, 'gemmTask');
  const type = elementType(precision);
  // Matrix m's tile (i, j) gets the values of seed (dataSeed, m, i + j N).
  const tiles = (name: string, m: number): Int32Array => {
    const ids = new Int32Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const seed = g.dataSeed * 1_000_003 + m * n * n + i + j * n;
        ids[i * n + j] = s.data({
          name: `${name}[${i},${j}]`,
          type,
          length: ts * ts,
          block: [i, j],
          init: () => randomTile(ts * ts, seed, precision),
        });
      }
    }
    return ids;
  };
  const a = tiles('A', 0);
  const b = tiles('B', 1);
  const c = tiles('C', 2);
  const flops = GEMM.flops!(ts);
  const args = [ts];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < n; k++) {
        s.submit(
          cl,
          [
            [a[i * n + k]!, AccessMode.R],
            [b[k * n + j]!, AccessMode.R],
            [c[i * n + j]!, AccessMode.RW],
          ],
          { flops, args, name: `GEMM(${i},${j},${k})` },
        );
      }
    }
  }
}

/** The tiled GEMM generator. */
export const gemmGenerator = defineWorkload({
  name: 'gemm',
  description: 'tiled 3-D matrix product C += A B: N^3 tasks, chains along k through C[i,j]',
  instance,
  submit,
});

/** Builds the tiled GEMM task graph. */
export function gemm(params: WorkloadParams = {}): Workload {
  return gemmGenerator.generate(params);
}
