/**
 * Tiled matrix product C += A B run for real: the same task graph as the simulated `gemm`
 * workload (one GEMM task per (i, j, k), chained along k through C[i,j]), on seeded random
 * matrices. With `check`, the sequential tiled product runs the same kernel on copies.
 */
import { cloneTiles, randomTile } from '../../kernels/generate.ts';
import { tiledGemm } from '../../kernels/reference.ts';
import { relativeDifference } from '../../kernels/residual.ts';
import {
  type AppOptions,
  type AppResult,
  checkAppSizes,
  FLOPS,
  openRuntime,
  registerTiles,
  runSubmitted,
  tileCodelet,
} from './common.ts';

/** Multiplies two random matrices of tiles x tiles tiles into a third; see AppOptions. */
export async function runGemm(o: AppOptions): Promise<AppResult> {
  checkAppSizes(o, 2 ** 27);
  const nt = o.tiles;
  const n = o.tileSize;
  const precision = o.precision ?? 'double';
  const seed = o.dataSeed ?? 1;
  const make = (offset: number) =>
    Array.from({ length: nt * nt }, (_, t) => randomTile(n * n, seed * 1_000_003 + offset + t, precision));
  const a = make(0);
  const b = make(nt * nt);
  const c = make(2 * nt * nt);
  const original = o.check ? cloneTiles(c) : undefined;
  const { rt, owned } = await openRuntime(o);
  try {
    const gemm = tileCodelet(rt, 'gemm', 'gemmTask', FLOPS.gemm);
    const ha = registerTiles(rt, a, nt, 'A');
    const hb = registerTiles(rt, b, nt, 'B');
    const hc = registerTiles(rt, c, nt, 'C');
    const args = [n];
    const dims = [n];
    for (let i = 0; i < nt; i++) {
      for (let j = 0; j < nt; j++) {
        for (let k = 0; k < nt; k++) {
          rt.submit(
            gemm,
            [
              [ha(i, k), 'R'],
              [hb(k, j), 'R'],
              [hc(i, j), 'RW'],
            ],
            { args, dims, name: `GEMM(${i},${j},${k})` },
          );
        }
      }
    }
    const workload = `gemm ${nt}x${nt} tiles of ${n}, ${precision}`;
    const report = await runSubmitted(rt, o, workload);
    if (!original) return { report, workload };
    const reference = cloneTiles(original);
    tiledGemm(a, b, reference, nt, n);
    return { report, workload, residual: relativeDifference(c, reference) };
  } finally {
    if (owned) await rt.close();
  }
}
