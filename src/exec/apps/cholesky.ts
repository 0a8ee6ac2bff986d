/**
 * Tiled Cholesky (right-looking, lower) run for real: the same task graph as the simulated
 * `cholesky` workload (POTRF, TRSM, SYRK, GEMM over the lower tiles, same order and names),
 * on an SPD matrix from a seeded generator. With `check`, the sequential tiled algorithm
 * runs the same kernels on a copy and the result is compared.
 */
import { cloneTiles, spdMatrixTiles } from '../../kernels/generate.ts';
import { tiledCholesky } from '../../kernels/reference.ts';
import { choleskyResidual, relativeDifference } from '../../kernels/residual.ts';
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

/** Factorises an SPD matrix of tiles x tiles tiles; see AppOptions. */
export async function runCholesky(o: AppOptions): Promise<AppResult> {
  checkAppSizes(o);
  const nt = o.tiles;
  const n = o.tileSize;
  const precision = o.precision ?? 'double';
  const tiles = spdMatrixTiles(nt, n, o.dataSeed ?? 1, precision);
  const original = o.check ? cloneTiles(tiles) : undefined;
  const { rt, owned } = await openRuntime(o);
  try {
    const potrf = tileCodelet(rt, 'potrf', 'potrfTask', FLOPS.potrf);
    const trsm = tileCodelet(rt, 'trsm', 'trsmCholeskyTask', FLOPS.trsm);
    const syrk = tileCodelet(rt, 'syrk', 'syrkTask', FLOPS.syrk);
    const gemm = tileCodelet(rt, 'gemm', 'gemmCholeskyTask', FLOPS.gemm);
    // Lower tiles only.
    const at = registerTiles(rt, tiles, nt, 'A', (i, j) => j <= i);
    const args = [n];
    const dims = [n];
    for (let k = 0; k < nt; k++) {
      rt.submit(potrf, [[at(k, k), 'RW']], { args, dims, name: `POTRF(${k})` });
      for (let m = k + 1; m < nt; m++) {
        rt.submit(
          trsm,
          [
            [at(k, k), 'R'],
            [at(m, k), 'RW'],
          ],
          { args, dims, name: `TRSM(${m},${k})` },
        );
      }
      for (let m = k + 1; m < nt; m++) {
        for (let c = k + 1; c <= m; c++) {
          if (c === m) {
            rt.submit(
              syrk,
              [
                [at(m, k), 'R'],
                [at(m, m), 'RW'],
              ],
              { args, dims, name: `SYRK(${m},${k})` },
            );
          } else {
            rt.submit(
              gemm,
              [
                [at(m, k), 'R'],
                [at(c, k), 'R'],
                [at(m, c), 'RW'],
              ],
              { args, dims, name: `GEMM(${m},${c},${k})` },
            );
          }
        }
      }
    }
    const workload = `cholesky ${nt}x${nt} tiles of ${n}, ${precision}`;
    const report = await runSubmitted(rt, o, workload);
    if (!original) return { report, workload };
    const reference = cloneTiles(original);
    tiledCholesky(reference, nt, n);
    const lower = (ts: typeof tiles) => ts.filter((_, idx) => idx % nt >= Math.floor(idx / nt));
    return {
      report,
      workload,
      residual: relativeDifference(lower(tiles), lower(reference)),
      // An O(N^3) product: skipped for large matrices, where it would cost more than the run.
      backwardError: nt * n <= BACKWARD_ERROR_MAX_N ? choleskyResidual(original, tiles, nt, n) : undefined,
    };
  } finally {
    if (owned) await rt.close();
  }
}
