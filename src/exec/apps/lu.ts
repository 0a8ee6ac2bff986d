/**
 * Tiled LU without pivoting run for real: the same task graph as the simulated `lu` workload
 * (GETRF, the row and column panel TRSMs, the GEMM updates, same order and names), on a
 * diagonally dominant matrix so that no pivoting is needed. With `check`, the sequential
 * tiled algorithm runs the same kernels on a copy and the results are compared.
 */
import { cloneTiles, diagDominantTiles } from '../../kernels/generate.ts';
import { tiledLu } from '../../kernels/reference.ts';
import { luResidual, relativeDifference } from '../../kernels/residual.ts';
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

/** Factorises a diagonally dominant matrix of tiles x tiles tiles; see AppOptions. */
export async function runLu(o: AppOptions): Promise<AppResult> {
  checkAppSizes(o);
  const nt = o.tiles;
  const n = o.tileSize;
  const precision = o.precision ?? 'double';
  const tiles = diagDominantTiles(nt, n, o.dataSeed ?? 1, precision);
  const original = o.check ? cloneTiles(tiles) : undefined;
  const { rt, owned } = await openRuntime(o);
  try {
    const getrf = tileCodelet(rt, 'getrf', 'getrfTask', FLOPS.getrf);
    const trsmRow = tileCodelet(rt, 'trsm', 'trsmLuRowTask', FLOPS.trsm);
    const trsmCol = tileCodelet(rt, 'trsm', 'trsmLuColumnTask', FLOPS.trsm);
    const gemm = tileCodelet(rt, 'gemm', 'gemmLuTask', FLOPS.gemm);
    const at = registerTiles(rt, tiles, nt);
    const args = [n];
    const dims = [n];
    for (let k = 0; k < nt; k++) {
      rt.submit(getrf, [[at(k, k), 'RW']], { args, dims, name: `GETRF(${k})` });
      for (let j = k + 1; j < nt; j++) {
        rt.submit(
          trsmRow,
          [
            [at(k, k), 'R'],
            [at(k, j), 'RW'],
          ],
          { args, dims, name: `TRSM(${k},${j})` },
        );
      }
      for (let i = k + 1; i < nt; i++) {
        rt.submit(
          trsmCol,
          [
            [at(k, k), 'R'],
            [at(i, k), 'RW'],
          ],
          { args, dims, name: `TRSM(${i},${k})` },
        );
      }
      for (let i = k + 1; i < nt; i++) {
        for (let j = k + 1; j < nt; j++) {
          rt.submit(
            gemm,
            [
              [at(i, k), 'R'],
              [at(k, j), 'R'],
              [at(i, j), 'RW'],
            ],
            { args, dims, name: `GEMM(${i},${j},${k})` },
          );
        }
      }
    }
    const workload = `lu ${nt}x${nt} tiles of ${n}, ${precision}, no pivoting`;
    const report = await runSubmitted(rt, o, workload);
    if (!original) return { report, workload };
    const reference = cloneTiles(original);
    tiledLu(reference, nt, n);
    return {
      report,
      workload,
      residual: relativeDifference(tiles, reference),
      // An O(N^3) product: skipped for large matrices, where it would cost more than the run.
      backwardError: nt * n <= BACKWARD_ERROR_MAX_N ? luResidual(original, tiles, nt, n) : undefined,
    };
  } finally {
    if (owned) await rt.close();
  }
}
