/**
 * Tiled Cholesky factorisation A = L L^T with Locus's library API (docs/api.md).
 *
 *   node --import tsx examples/cholesky.ts             # real run: worker threads, one per core
 *   node --import tsx examples/cholesky.ts --simulate  # same program, simulated: nothing computed
 *
 * The matrix is registered as tiles, four codelets name their kernels in ./kernels.ts, the
 * tasks are submitted in sequential order with their access modes (Locus infers the
 * dependencies) and start running at once; wait() waits for them and sync() brings the tiles
 * back into the array. The program then checks ||A - L L^T||_F / ||A||_F.
 */
import { Runtime, TaskFailedError } from '../src/exec/runtime.ts';
import type { RunReport } from '../src/index.ts';

const simulate = process.argv.includes('--simulate');
const NT = 8; // tiles per edge
const TILE = 128; // tile edge (elements)
const N = NT * TILE;

/** A symmetric N x N matrix, column-major, strictly diagonally dominant with a positive diagonal: SPD. */
function spdMatrix(): Float64Array {
  const a = new Float64Array(N * N);
  let seed = 12345;
  for (let j = 0; j < N; j++) {
    for (let i = j + 1; i < N; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; // a linear congruential generator
      a[i + j * N] = seed / 2 ** 32 - 0.5;
      a[j + i * N] = a[i + j * N]!;
    }
    a[j + j * N] = N;
  }
  return a;
}

/** ||A - L L^T||_F / ||A||_F over the lower triangle; L is the lower triangle of `l`. */
function backwardError(a: Float64Array, l: Float64Array): number {
  const p = new Float64Array(N * N); // lower triangle of L L^T, column by column
  for (let j = 0; j < N; j++) {
    for (let k = 0; k <= j; k++) {
      const t = l[j + k * N]!;
      for (let i = j; i < N; i++) p[i + j * N]! += l[i + k * N]! * t;
    }
  }
  let diff = 0;
  let norm = 0;
  for (let j = 0; j < N; j++) {
    for (let i = j; i < N; i++) {
      diff += (a[i + j * N]! - p[i + j * N]!) ** 2;
      norm += a[i + j * N]! ** 2;
    }
  }
  return Math.sqrt(diff / norm);
}

async function main(): Promise<number> {
  const a = spdMatrix();
  const original = a.slice(); // the runtime overwrites `a` with L
  // Default platform 'local': one CPU worker thread per core. A simulated runtime replays the
  // platform's rates instead (for 'local', assumed ones) and runs no kernel.
  const rt = await Runtime.create({ mode: simulate ? 'simulated' : 'real', scheduler: 'dmdar' });
  try {
    // 64 tile handles A[i,j]; `a` is copied into them now, and the written tiles are copied
    // back by sync(), acquire/release and close(). From here on, change `a` only through
    // rt.acquire(tile, 'RW').
    const A = rt.matrix(a, N, N, TILE);
    // Kernels are referred to by module URL and export name: the worker threads import the module.
    const module = new URL('./kernels.ts', import.meta.url);
    const codelet = (name: string, exportName: string, flops: (n: number) => number) =>
      rt.codelet({ name, kernel: { module, export: exportName }, flops });
    const potrf = codelet('potrf', 'factorDiagonal', (n) => n ** 3 / 3);
    const trsm = codelet('trsm', 'solvePanel', (n) => n ** 3);
    const syrk = codelet('syrk', 'updateDiagonal', (n) => n ** 3);
    const gemm = codelet('gemm', 'updateTile', (n) => 2 * n ** 3);

    // Right-looking Cholesky on the lower tiles, submitted as the sequential loop would run them.
    // args reach the kernel; dims feed the codelet's flops function.
    const opts = (name: string) => ({ args: [TILE], dims: [TILE], name });
    for (let k = 0; k < NT; k++) {
      rt.submit(potrf, [[A.at(k, k), 'RW']], opts(`POTRF(${k})`));
      for (let m = k + 1; m < NT; m++) {
        rt.submit(
          trsm,
          [
            [A.at(k, k), 'R'],
            [A.at(m, k), 'RW'],
          ],
          opts(`TRSM(${m},${k})`),
        );
      }
      for (let m = k + 1; m < NT; m++) {
        rt.submit(
          syrk,
          [
            [A.at(m, k), 'R'],
            [A.at(m, m), 'RW'],
          ],
          opts(`SYRK(${m},${k})`),
        );
        for (let c = k + 1; c < m; c++) {
          rt.submit(
            gemm,
            [
              [A.at(m, k), 'R'],
              [A.at(c, k), 'R'],
              [A.at(m, c), 'RW'],
            ],
            opts(`GEMM(${m},${c},${k})`),
          );
        }
      }
    }

    let report: RunReport;
    try {
      report = await rt.wait(); // every task ended; tiles may still sit on (emulated) devices
      await rt.sync(); // `a` now holds L in its lower triangle
    } catch (e) {
      // A kernel threw (potrf does on a matrix that is not positive definite): the tasks that
      // depend on it were cancelled, the others ran.
      if (!(e instanceof TaskFailedError)) throw e;
      console.error(e.message);
      for (const f of e.failures) console.error(`  ${f.label} (codelet ${f.codelet}): ${f.message}`);
      return 1;
    }
    console.log(`cholesky ${N} x ${N}, ${NT} x ${NT} tiles of ${TILE}: ${report.tasks} tasks`);
    console.log(
      `${report.mode} run on ${report.platform} (${report.workers.length} workers, scheduler ${report.scheduler}): ` +
        `makespan ${report.makespanS.toFixed(4)} s, ${report.gflops.toFixed(2)} GFlop/s`,
    );

    // acquire() waits for the tasks submitted before it that touch the tile, then returns the
    // runtime's copy of it; tasks submitted later that write it wait for release().
    const tile = A.at(0, 0);
    const l00 = await rt.acquire(tile, 'R');
    const pivot = l00[0]!;
    rt.release(tile);

    if (simulate) {
      console.log('check skipped: a simulated run computes nothing');
      return 0;
    }
    console.log(`L(0,0) = ${pivot} (sqrt(A(0,0)) = ${Math.sqrt(original[0]!)})`);
    const err = backwardError(original, a);
    console.log(`||A - L L^T||_F / ||A||_F = ${err.toExponential(2)}`);
    return err <= 1e-10 ? 0 : 1;
  } finally {
    await rt.close(); // stops the worker threads
  }
}

process.exitCode = await main();
