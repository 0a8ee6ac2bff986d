/**
 * Tiled LU with partial pivoting (seed 002's SuperMatrix LU): at step k, one task factorizes
 * the whole panel (the diagonal tile and the tiles below it, where the pivots are searched);
 * then, for every column j > k, one task applies the panel's row interchanges to column j
 * (tiles k..N-1 of it) and solves the panel row (TRSM on tile (k, j)); then the GEMM updates.
 * The interchange task writes the whole column below k, so the GEMMs of column j wait for it.
 * The panel writes its pivot indices into a small handle that the interchange tasks read. At
 * the end, each column j of L gets the interchanges of the later steps (LASWP(k,j), k > j), as
 * LAPACK's dgetrf applies them to the columns left of each panel, so that P A = L U.
 * Runs that compute factor a random matrix (not diagonally dominant, so pivoting matters),
 * in double precision only (the pivoting kernels work on float64).
 */
import { AccessMode, LocusError } from '../core/types.ts';
import { randomTile } from '../kernels/generate.ts';
import { CPU_GPU, elementBytes, elementType, type TiledMatrixParams, tiledMatrixParams } from './common.ts';
import { defineWorkload } from './define.ts';
import { GEMM, GETRF } from './kernels.ts';
import type { Submitter } from './submitter.ts';
import type { Workload, WorkloadInstance, WorkloadParams } from './types.ts';

/** Defaults: 10 x 10 tiles of 1024, double precision (seed 002's tsl runs were double). */
export const LUPP_DEFAULTS = { tiles: 10, tileSize: 1024, precision: 'double' } as const;

/** Row interchanges of a column of L (data movement only). */
const LASWP = { name: 'laswp', kinds: CPU_GPU, flops: () => 0 };

/** Interchanges plus TRSM of one panel-row tile: the TRSM's n^3 flops (the swaps move data). */
const LASWP_TRSM = { name: 'trsm', kinds: CPU_GPU, flops: (n: number) => n * n * n };

/** A validated LU-with-pivoting instance. */
export interface LuppInstance extends WorkloadInstance, TiledMatrixParams {}

function instance(params: WorkloadParams): LuppInstance {
  const m = tiledMatrixParams(params, LUPP_DEFAULTS, 200);
  const { tiles: n, tileSize: ts, precision } = m;
  return {
    ...m,
    description: `${n}x${n} tiles of ${ts}, ${precision}, partial pivoting`,
    dataBytes: n * n * ts * ts * elementBytes(precision) + n * ts * 4,
    params: { tiles: n, tileSize: ts, precision },
  };
}

/**
 * Submits per step k 1 panel task, N-k-1 interchange+TRSM tasks, (N-k-1)^2 GEMMs; then
 * N(N-1)/2 interchange tasks on the columns of L.
 */
function submit(s: Submitter, l: LuppInstance): void {
  const { tiles: n, tileSize: ts, precision } = l;
  if (s.computes && precision !== 'double') {
    throw new LocusError('LOCUS_OPTION_CONFLICT', "lupp runs in double precision only: precision 'double'", {
      params: ['precision'],
    });
  }
  const panel = s.codelet(GETRF, 'panelTask');
  const swapTrsm = s.codelet(LASWP_TRSM, 'laswpTrsmTask');
  const swapLeft = s.codelet(LASWP, 'laswpTask');
  const gemm = s.codelet(GEMM, 'gemmLuTask');
  const type = elementType(precision);
  const tile = new Int32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      tile[i * n + j] = s.data({
        name: `A[${i},${j}]`,
        type,
        length: ts * ts,
        block: [i, j],
        init: () => randomTile(ts * ts, l.dataSeed * 7919 + i + j * n, precision),
      });
    }
  }
  const at = (i: number, j: number): number => tile[i * n + j]!;
  const piv = Array.from({ length: n }, (_, k) => s.data({ name: `piv[${k}]`, type: 'int32', length: ts }));
  const args = [ts];
  for (let k = 0; k < n; k++) {
    // The panel: an (N-k) ts x ts LU with pivoting, m b^2 - b^3/3 flops for m = (N-k) ts, b = ts.
    const m = (n - k) * ts;
    const panelAccesses = Array.from({ length: n - k }, (_, d) => [at(k + d, k), AccessMode.RW] as const);
    s.submit(panel, [[piv[k]!, AccessMode.W], ...panelAccesses], {
      flops: m * ts * ts - (ts * ts * ts) / 3,
      args,
      name: `PANEL(${k})`,
    });
    for (let j = k + 1; j < n; j++) {
      const accesses = [
        [piv[k]!, AccessMode.R] as const,
        [at(k, k), AccessMode.R] as const,
        ...Array.from({ length: n - k }, (_, d) => [at(k + d, j), AccessMode.RW] as const),
      ];
      s.submit(swapTrsm, accesses, { dims: args, args, name: `LASWP_TRSM(${k},${j})` });
    }
    for (let i = k + 1; i < n; i++) {
      for (let j = k + 1; j < n; j++) {
        s.submit(
          gemm,
          [
            [at(i, k), AccessMode.R],
            [at(k, j), AccessMode.R],
            [at(i, j), AccessMode.RW],
          ],
          { dims: args, args, name: `GEMM(${i},${j},${k})` },
        );
      }
    }
  }
  for (let j = 0; j + 1 < n; j++) {
    for (let k = j + 1; k < n; k++) {
      const column = Array.from({ length: n - k }, (_, d) => [at(k + d, j), AccessMode.RW] as const);
      s.submit(swapLeft, [[piv[k]!, AccessMode.R], ...column], { flops: 0, args, name: `LASWP(${k},${j})` });
    }
  }
}

/** The LU with partial pivoting generator (seed 002). */
export const luppGenerator = defineWorkload({
  name: 'lupp',
  description:
    'tiled LU with partial pivoting: a panel task per step, interchanges+trsm per column, gemm (seed 002)',
  instance,
  submit,
});

/** Builds the tiled LU-with-pivoting task graph. */
export function lupp(params: WorkloadParams = {}): Workload {
  return luppGenerator.generate(params);
}
