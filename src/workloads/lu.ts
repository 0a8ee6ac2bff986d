/**
 * Tiled LU factorization without pivoting on N x N tiles, the right-looking blocked
 * algorithm of seed 001's LU experiments and seed 002's SuperMatrix runs. Runs that compute
 * factor a strictly diagonally dominant matrix (src/kernels/generate.ts), so no pivoting is
 * needed.
 */
import { AccessMode } from '../core/types.ts';
import { diagDominantTiles } from '../kernels/generate.ts';
import { elementBytes, elementType, once, type TiledMatrixParams, tiledMatrixParams } from './common.ts';
import { defineWorkload } from './define.ts';
import { GEMM, GETRF, TRSM } from './kernels.ts';
import type { Submitter } from './submitter.ts';
import type { Workload, WorkloadInstance, WorkloadParams } from './types.ts';

/** Defaults: 10 x 10 tiles of 960 x 960, single precision. */
export const LU_DEFAULTS = { tiles: 10, tileSize: 960, precision: 'single' } as const;

/** A validated LU instance. */
export interface LuInstance extends WorkloadInstance, TiledMatrixParams {}

function instance(params: WorkloadParams): LuInstance {
  const m = tiledMatrixParams(params, LU_DEFAULTS, 200);
  const { tiles: n, tileSize: ts, precision } = m;
  return {
    ...m,
    description: `${n}x${n} tiles of ${ts}, ${precision}, no pivoting`,
    dataBytes: n * n * ts * ts * elementBytes(precision),
    params: { tiles: n, tileSize: ts, precision },
  };
}

/** Submits the tiled LU: N(N+1)(2N+1)/6 tasks. */
function submit(s: Submitter, l: LuInstance): void {
  const { tiles: n, tileSize: ts, precision } = l;
  const getrf = s.codelet(GETRF, 'getrfTask');
  const trsmRow = s.codelet(TRSM, 'trsmLuRowTask');
  const trsmColumn = s.codelet(TRSM, 'trsmLuColumnTask');
  const gemm = s.codelet(GEMM, 'gemmLuTask');

  const values = once(() => diagDominantTiles(n, ts, l.dataSeed, precision));
  const type = elementType(precision);
  const tile = new Int32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      tile[i * n + j] = s.data({
        name: `A[${i},${j}]`,
        type,
        length: ts * ts,
        block: [i, j],
        init: () => values()[i + j * n]!,
      });
    }
  }
  const at = (i: number, j: number): number => tile[i * n + j]!;
  const dims = [ts];
  const args = dims;

  for (let k = 0; k < n; k++) {
    s.submit(getrf, [[at(k, k), AccessMode.RW]], { dims, args, name: `GETRF(${k})` });
    // Row panel: U[k, j] = L[k, k]^-1 A[k, j].
    for (let j = k + 1; j < n; j++) {
      s.submit(
        trsmRow,
        [
          [at(k, k), AccessMode.R],
          [at(k, j), AccessMode.RW],
        ],
        { dims, args, name: `TRSM(${k},${j})` },
      );
    }
    // Column panel: L[i, k] = A[i, k] U[k, k]^-1.
    for (let i = k + 1; i < n; i++) {
      s.submit(
        trsmColumn,
        [
          [at(k, k), AccessMode.R],
          [at(i, k), AccessMode.RW],
        ],
        { dims, args, name: `TRSM(${i},${k})` },
      );
    }
    // Trailing update: A[i, j] -= L[i, k] U[k, j].
    for (let i = k + 1; i < n; i++) {
      for (let j = k + 1; j < n; j++) {
        s.submit(
          gemm,
          [
            [at(i, k), AccessMode.R],
            [at(k, j), AccessMode.R],
            [at(i, j), AccessMode.RW],
          ],
          { dims, args, name: `GEMM(${i},${j},${k})` },
        );
      }
    }
  }
}

/** The tiled LU generator (seeds 001, 002). */
export const luGenerator = defineWorkload({
  name: 'lu',
  description:
    'tiled right-looking LU without pivoting: getrf, trsm (row and column panels), gemm (seeds 001, 002)',
  instance,
  submit,
});

/** Builds the tiled LU task graph. */
export function lu(params: WorkloadParams = {}): Workload {
  return luGenerator.generate(params);
}
