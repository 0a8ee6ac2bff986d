/**
 * Tiled Cholesky factorisation distributed over MPI ranks with the library API (docs/api.md,
 * "Distributed runs"): the program of examples/cholesky.ts with one more option,
 * `cluster: 'mpi'`, and tiles declared with their block coordinates.
 *
 *   mpirun --allow-run-as-root --oversubscribe -np 4 node --import tsx examples/mpi-cholesky.ts
 *   node --import tsx examples/mpi-cholesky.ts            # a job of one rank, no mpirun
 *   ... examples/mpi-cholesky.ts --tiles 6 --tile 64 --distribution 1d --json
 *
 * Every rank runs this same program: it declares every tile and submits every task in
 * sequential order. The distribution ('2d' block-cyclic by default) gives each tile an owner;
 * the owner of the tile a task writes runs it, and the tiles it reads travel as MPI messages.
 * gather() then brings every final tile to rank 0, which checks ||A - L L^T||_F / ||A||_F
 * against the original matrix and prints one line (one JSON object with --json).
 */
import { parseArgs } from 'node:util';
import { Runtime } from '../src/exec/runtime.ts';

const { values } = parseArgs({
  options: {
    tiles: { type: 'string', default: '4' },
    tile: { type: 'string', default: '64' },
    distribution: { type: 'string', default: '2d' },
    json: { type: 'boolean', default: false },
  },
});
const NT = Number(values.tiles);
const TILE = Number(values.tile);
const N = NT * TILE;

/** Element (i, j) of an SPD matrix (strictly diagonally dominant, positive diagonal). */
function element(i: number, j: number): number {
  if (i === j) return N;
  const [r, c] = i > j ? [i, j] : [j, i];
  const h = Math.imul(r * 7919 + c, 2654435761) >>> 0;
  return h / 2 ** 32 - 0.5;
}

/** Tile (m, k) of the matrix, column-major TILE x TILE. */
function tileOf(m: number, k: number): Float64Array {
  const t = new Float64Array(TILE * TILE);
  for (let j = 0; j < TILE; j++)
    for (let i = 0; i < TILE; i++) t[i + j * TILE] = element(m * TILE + i, k * TILE + j);
  return t;
}

/** ||A - L L^T||_F / ||A||_F over the lower triangle, from L's tiles. */
function backwardError(L: (m: number, k: number) => Float64Array): number {
  const l = (i: number, j: number) =>
    L(Math.floor(i / TILE), Math.floor(j / TILE))[(i % TILE) + (j % TILE) * TILE]!;
  let diff = 0;
  let norm = 0;
  for (let j = 0; j < N; j++) {
    for (let i = j; i < N; i++) {
      let p = 0;
      for (let k = 0; k <= j; k++) p += l(i, k) * l(j, k);
      diff += (element(i, j) - p) ** 2;
      norm += element(i, j) ** 2;
    }
  }
  return Math.sqrt(diff / norm);
}

const rt = await Runtime.create({
  cluster: 'mpi',
  distribution: values.distribution,
  cpus: 1,
  scheduler: 'dmdar',
});
try {
  // Every rank declares every tile; only its owner registers the values it gives.
  const tiles = new Map<string, ReturnType<typeof rt.data>>();
  for (let m = 0; m < NT; m++) {
    for (let k = 0; k <= m; k++) {
      tiles.set(`${m},${k}`, rt.data(tileOf(m, k), { name: `A(${m},${k})`, block: [m, k] }));
    }
  }
  const A = (m: number, k: number) => tiles.get(`${m},${k}`)!;
  const module = new URL('./kernels.ts', import.meta.url);
  const codelet = (name: string, exportName: string, flops: (n: number) => number) =>
    rt.codelet({ name, kernel: { module, export: exportName }, flops });
  const potrf = codelet('potrf', 'factorDiagonal', (n) => n ** 3 / 3);
  const trsm = codelet('trsm', 'solvePanel', (n) => n ** 3);
  const syrk = codelet('syrk', 'updateDiagonal', (n) => n ** 3);
  const gemm = codelet('gemm', 'updateTile', (n) => 2 * n ** 3);
  const opts = { args: [TILE], dims: [TILE] };
  for (let k = 0; k < NT; k++) {
    rt.submit(potrf, [[A(k, k), 'RW']], opts);
    for (let m = k + 1; m < NT; m++)
      rt.submit(
        trsm,
        [
          [A(k, k), 'R'],
          [A(m, k), 'RW'],
        ],
        opts,
      );
    for (let m = k + 1; m < NT; m++) {
      rt.submit(
        syrk,
        [
          [A(m, k), 'R'],
          [A(m, m), 'RW'],
        ],
        opts,
      );
      for (let c = k + 1; c < m; c++)
        rt.submit(
          gemm,
          [
            [A(m, k), 'R'],
            [A(c, k), 'R'],
            [A(m, c), 'RW'],
          ],
          opts,
        );
    }
  }
  await rt.wait();
  const counts = { ...rt.counts };
  await rt.gather(0); // rank 0's tile arrays now hold L
  if (rt.rank === 0) {
    const residual = backwardError((m, k) => rt.array(A(m, k)) as Float64Array);
    const line = { ranks: rt.size, distribution: rt.distribution, n: N, tiles: NT, rank0: counts, residual };
    console.log(
      values.json
        ? JSON.stringify(line)
        : `cholesky ${N} x ${N} on ${rt.size} ranks (${rt.distribution}): rank 0 ran ${counts.tasks} tasks, ` +
            `received ${counts.messagesReceived} messages; ||A - L L^T||_F / ||A||_F = ${residual.toExponential(2)}`,
    );
    process.exitCode = residual <= 1e-10 ? 0 : 1;
  }
} finally {
  await rt.close();
}
