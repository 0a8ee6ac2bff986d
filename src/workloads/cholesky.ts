/**
 * Tiled right-looking Cholesky factorization A = L L^T (lower), in the submission order of
 * StarPU's cholesky_implicit example (for each step k: POTRF, the TRSMs of column k, then for
 * each later column n its SYRK and the GEMMs below it), as used in seed 000's Fig. 3 and seed
 * 004's 4 x 4-block runs; `order: 'rows'` submits the trailing updates row by row instead.
 * Only the lower triangle of tiles is registered. Runs that compute factor a symmetric
 * positive definite matrix from a seeded generator (src/kernels/generate.ts).
 */
import { AccessMode, LocusError } from '../core/types.ts';
import { spdMatrixTiles } from '../kernels/generate.ts';
import { elementBytes, elementType, once, type TiledMatrixParams, tiledMatrixParams } from './common.ts';
import { defineWorkload } from './define.ts';
import { GEMM, POTRF, SYRK, TRSM } from './kernels.ts';
import type { Submitter } from './submitter.ts';
import type { Workload, WorkloadInstance, WorkloadParams } from './types.ts';

/** Defaults of seed 000's Fig. 3: tiles of 1920 x 1920 single precision (14.06 MiB), N = 10. */
export const CHOLESKY_DEFAULTS = { tiles: 10, tileSize: 1920, precision: 'single' } as const;

/** A validated Cholesky instance. */
export interface CholeskyInstance extends WorkloadInstance, TiledMatrixParams {
  order: 'rows' | 'columns';
  /** Give wontUse hints for finished tiles. */
  hints: boolean;
  /** StarPU cholesky_implicit's default priorities (WorkloadParams.starpuPriorities). */
  starpuPriorities: boolean;
}

function instance(params: WorkloadParams): CholeskyInstance {
  const m = tiledMatrixParams(params, CHOLESKY_DEFAULTS, 300);
  const { tiles: n, tileSize: ts, precision } = m;
  const order = params.order ?? 'columns';
  if (order !== 'rows' && order !== 'columns') {
    throw new LocusError('LOCUS_OPTION_INVALID', `order must be rows or columns (got '${String(order)}')`, {
      params: ['order'],
    });
  }
  return {
    ...m,
    order,
    hints: params.hints ?? true,
    starpuPriorities: params.starpuPriorities ?? false,
    description: `${n}x${n} tiles of ${ts}, ${precision}`,
    dataBytes: ((n * (n + 1)) / 2) * ts * ts * elementBytes(precision),
    params: { tiles: n, tileSize: ts, precision },
  };
}

/** Submits N potrf, N(N-1)/2 trsm and syrk, N(N-1)(N-2)/6 gemm. */
function submit(s: Submitter, c: CholeskyInstance): void {
  const { tiles: n, tileSize: ts, precision, order } = c;
  // StarPU's cholesky_implicit: a tile of column k will not be used again once its last task
  // is submitted: A[k,k] after the TRSMs, A[m,k] after the last update reading it.
  const wontUse = (d: number) => {
    if (c.hints) s.wontUse?.(d);
  };
  const potrf = s.codelet(POTRF, 'potrfTask');
  const trsm = s.codelet(TRSM, 'trsmCholeskyTask');
  const syrk = s.codelet(SYRK, 'syrkTask');
  const gemm = s.codelet(GEMM, 'gemmCholeskyTask');

  // The whole matrix, made on the first tile a computing submitter asks for.
  const values = once(() => spdMatrixTiles(n, ts, c.dataSeed, precision));
  const type = elementType(precision);
  // Lower-triangle tile (i, j), j <= i, lives at i(i+1)/2 + j.
  const tile = new Int32Array((n * (n + 1)) / 2);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      tile[(i * (i + 1)) / 2 + j] = s.data({
        name: `A[${i},${j}]`,
        type,
        length: ts * ts,
        block: [i, j],
        init: () => values()[i + j * n]!,
      });
    }
  }
  const at = (i: number, j: number): number => tile[(i * (i + 1)) / 2 + j]!;
  const dims = [ts];
  const args = dims;
  // cholesky_implicit.c's potrf/trsm/syrk/gemm_priority with -priority 0 (its default).
  const prio = (x: number) => (c.starpuPriorities ? { priority: x } : {});

  for (let k = 0; k < n; k++) {
    s.submit(potrf, [[at(k, k), AccessMode.RW]], { dims, args, name: `POTRF(${k})`, ...prio(2 * n - 2 * k) });
    for (let m = k + 1; m < n; m++) {
      s.submit(
        trsm,
        [
          [at(k, k), AccessMode.R],
          [at(m, k), AccessMode.RW],
        ],
        { dims, args, name: `TRSM(${m},${k})`, ...prio(2 * n - 2 * k - m) },
      );
    }
    wontUse(at(k, k));
    const syrkTask = (m: number) =>
      s.submit(
        syrk,
        [
          [at(m, k), AccessMode.R],
          [at(m, m), AccessMode.RW],
        ],
        { dims, args, name: `SYRK(${m},${k})`, ...prio(2 * n - 2 * k - m) },
      );
    const gemmTask = (m: number, col: number) =>
      s.submit(
        gemm,
        [
          [at(m, k), AccessMode.R],
          [at(col, k), AccessMode.R],
          [at(m, col), AccessMode.RW],
        ],
        { dims, args, name: `GEMM(${m},${col},${k})`, ...prio(2 * n - 2 * k - m - col) },
      );
    if (order === 'columns') {
      for (let col = k + 1; col < n; col++) {
        syrkTask(col);
        for (let m = col + 1; m < n; m++) gemmTask(m, col);
        wontUse(at(col, k)); // read by column col's tasks only from here on
      }
    } else {
      for (let m = k + 1; m < n; m++) {
        for (let col = k + 1; col < m; col++) gemmTask(m, col);
        syrkTask(m);
      }
      // By rows, every A[m,k] is read up to the last row.
      for (let m = k + 1; m < n; m++) wontUse(at(m, k));
    }
  }
}

/** The tiled Cholesky generator (seed 000 Fig. 3, seed 004). */
export const choleskyGenerator = defineWorkload({
  name: 'cholesky',
  description: 'tiled right-looking Cholesky (lower), StarPU order: potrf, trsm, syrk, gemm (seeds 000, 004)',
  instance,
  submit,
});

/** Builds the tiled Cholesky task graph. */
export function cholesky(params: WorkloadParams = {}): Workload {
  return choleskyGenerator.generate(params);
}
