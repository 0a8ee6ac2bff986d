/**
 * Tiled LU with partial pivoting run for real (seed 002's SuperMatrix LU): the same graph as
 * the simulated `lupp` workload (src/workloads/lupp.ts): per step a panel task that factors
 * the column of tiles with row pivoting and writes its pivots, interchange + TRSM tasks on the
 * columns to the right, GEMM updates; at the end the interchanges of later steps applied to
 * the columns of L. The matrix is random (not diagonally dominant), so pivoting matters. With
 * `check`, the same kernels run sequentially on a copy, and the backward error
 * ||P A - L U||_F / ||A||_F is computed from the pivots.
 */

import { gemm } from '../../kernels/gemm.ts';
import { cloneTiles, randomTile } from '../../kernels/generate.ts';
import { laswp, panelGetrf } from '../../kernels/getrf-pivot.ts';
import { assemble, frobenius, relativeDifference } from '../../kernels/residual.ts';
import { trsmLeftLowerUnit } from '../../kernels/trsm.ts';
import {
  type AppOptions,
  type AppResult,
  BACKWARD_ERROR_MAX_N,
  checkAppSizes,
  FLOPS,
  openRuntime,
  registerTiles,
  runSubmitted,
  tileCodelet,
} from './common.ts';

/** The steps of the algorithm, run by tasks or sequentially (the check). */
interface Steps {
  panel(k: number): void;
  swapTrsm(k: number, j: number): void;
  update(i: number, j: number, k: number): void;
  swapLeft(k: number, j: number): void;
}

function algorithm(nt: number, s: Steps): void {
  for (let k = 0; k < nt; k++) {
    s.panel(k);
    for (let j = k + 1; j < nt; j++) s.swapTrsm(k, j);
    for (let i = k + 1; i < nt; i++) for (let j = k + 1; j < nt; j++) s.update(i, j, k);
  }
  for (let j = 0; j + 1 < nt; j++) for (let k = j + 1; k < nt; k++) s.swapLeft(k, j);
}

/** Factorizes a random matrix of tiles x tiles tiles with partial pivoting (float64). */
export async function runLupp(o: AppOptions): Promise<AppResult> {
  checkAppSizes(o);
  if ((o.precision ?? 'double') !== 'double') {
    throw new (await import('../../core/types.ts')).LocusError(
      'lupp runs in double precision only (--precision double)',
    );
  }
  const nt = o.tiles;
  const b = o.tileSize;
  const seed = o.dataSeed ?? 1;
  const tiles = Array.from(
    { length: nt * nt },
    (_, t) => randomTile(b * b, seed * 7919 + t, 'double') as Float64Array,
  );
  const original = o.check ? cloneTiles(tiles) : undefined;
  const pivots = Array.from({ length: nt }, () => new Int32Array(b));
  const { rt, owned } = await openRuntime(o);
  try {
    const panel = tileCodelet(rt, 'getrf', 'panelTask', FLOPS.getrf);
    const swapTrsm = tileCodelet(rt, 'trsm', 'laswpTrsmTask', FLOPS.trsm);
    const update = tileCodelet(rt, 'gemm', 'gemmLuTask', FLOPS.gemm);
    const swapLeft = rt.codelet({
      name: 'laswp',
      kernel: { module: (await import('./common.ts')).TASKS_MODULE, export: 'laswpTask' },
    });
    const at = registerTiles(rt, tiles, nt);
    const piv = pivots.map((p, k) => rt.data(p, { name: `piv[${k}]` }));
    const column = (from: number, j: number) =>
      Array.from({ length: nt - from }, (_, d) => [at(from + d, j), 'RW'] as const);
    const args = [b];
    const panelFlops = (k: number) => (nt - k) * b * b * b - (b * b * b) / 3;
    algorithm(nt, {
      panel: (k) =>
        rt.submit(panel, [[piv[k]!, 'W'], ...column(k, k)], {
          args,
          flops: panelFlops(k),
          name: `PANEL(${k})`,
        }),
      swapTrsm: (k, j) =>
        rt.submit(swapTrsm, [[piv[k]!, 'R'], [at(k, k), 'R'], ...column(k, j)], {
          args,
          dims: [b],
          name: `LASWP_TRSM(${k},${j})`,
        }),
      update: (i, j, k) =>
        rt.submit(
          update,
          [
            [at(i, k), 'R'],
            [at(k, j), 'R'],
            [at(i, j), 'RW'],
          ],
          { args, dims: [b], name: `GEMM(${i},${j},${k})` },
        ),
      swapLeft: (k, j) =>
        rt.submit(swapLeft, [[piv[k]!, 'R'], ...column(k, j)], { args, name: `LASWP(${k},${j})` }),
    });
    const workload = `lupp ${nt}x${nt} tiles of ${b}, double, partial pivoting`;
    const report = await runSubmitted(rt, o, workload);
    if (!original) return { report, workload };
    // The sequential run of the same kernels.
    const ref = cloneTiles(original) as Float64Array[];
    const refPiv = Array.from({ length: nt }, () => new Int32Array(b));
    const col = (ts: Float64Array[], from: number, j: number) =>
      Array.from({ length: nt - from }, (_, d) => ts[from + d + j * nt]!);
    algorithm(nt, {
      panel: (k) => panelGetrf(col(ref, k, k), b, refPiv[k]!),
      swapTrsm: (k, j) => {
        laswp(col(ref, k, j), b, refPiv[k]!);
        trsmLeftLowerUnit(ref[k + k * nt]!, ref[k + j * nt]!, b);
      },
      update: (i, j, k) => gemm(ref[i + k * nt]!, ref[k + j * nt]!, ref[i + j * nt]!, b, false, false, -1, 1),
      swapLeft: (k, j) => laswp(col(ref, k, j), b, refPiv[k]!),
    });
    return {
      report,
      workload,
      residual: relativeDifference(tiles, ref),
      backwardError:
        nt * b <= BACKWARD_ERROR_MAX_N
          ? backwardError(original as Float64Array[], tiles, pivots, nt, b)
          : undefined,
    };
  } finally {
    if (owned) await rt.close();
  }
}

/** ||P A - L U||_F / ||A||_F, P from the pivots of every step (row k b + c swapped with k b + ipiv_k[c]). */
function backwardError(
  a: Float64Array[],
  lu: Float64Array[],
  pivots: Int32Array[],
  nt: number,
  b: number,
): number {
  const n = nt * b;
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  for (let k = 0; k < nt; k++) {
    for (let c = 0; c < b; c++) {
      const r1 = k * b + c;
      const r2 = k * b + pivots[k]![c]!;
      const x = perm[r1]!;
      perm[r1] = perm[r2]!;
      perm[r2] = x;
    }
  }
  const full = assemble(a, nt, b);
  const pa = new Float64Array(n * n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) pa[i + j * n] = full[perm[i]! + j * n]!;
  const l = assemble(lu, nt, b, 'unitLower');
  const u = assemble(lu, nt, b, 'upper');
  const norm = frobenius(pa);
  gemm(l, u, pa, n, false, false, -1, 1);
  return frobenius(pa) / norm;
}
