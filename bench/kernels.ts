/**
 * `node --import tsx bench/kernels.ts [n]`: single-core speed of the CPU tile kernels
 * (src/kernels) on n x n tiles (default 256), in float64 and float32. Each kernel runs on
 * the same buffers, its output restored untimed before each round (fresh allocations would
 * time page faults), at least WARMUP times and WARMUP_MS first so V8 optimises it, then
 * ROUNDS timed times; GFlop/s uses the flop counts of the workloads' codelet table
 * (src/workloads/kernels.ts) and prints the median and best round. The stencil line is a
 * 7-point sweep of an n x n x 64 block (8 flops per point). BENCH_ROUNDS overrides ROUNDS.
 */
import {
  gemm,
  getrf,
  type Precision,
  potrf,
  randomTile,
  STENCIL7_FLOPS_PER_POINT,
  spdMatrixTiles,
  stencil7,
  syrk,
  type Tile,
  trsmLeftLowerUnit,
  trsmRightLowerTrans,
  trsmRightUpper,
} from '../src/kernels/index.ts';
import { diagDominantTiles } from '../src/kernels/reference.ts';
import { GEMM, GETRF, POTRF, SYRK, TRSM } from '../src/workloads/kernels.ts';

const n = Number(process.argv[2] ?? 256);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const WARMUP = 3;
/** Warm-up goes on (beyond WARMUP calls) until this long has passed, for tier-up of the big loops. */
const WARMUP_MS = 300;
const STENCIL_PLANES = 64;

interface Case {
  name: string;
  flops: number;
  /**
   * Builds the inputs once and returns the timed call; `fresh` lists the tiles the call
   * overwrites, restored (untimed) from pristine copies before every round.
   */
  setup: (p: Precision) => { run: () => void; fresh: Tile[] };
}

const random = (p: Precision, seed: number): Tile => randomTile(n * n, seed, p);
const dominant = (p: Precision, seed: number): Tile => diagDominantTiles(1, n, seed, p)[0]!;
const spd = (p: Precision, seed: number): Tile => spdMatrixTiles(1, n, seed, p)[0]!;
/** A well-conditioned triangle: the Cholesky factor of an SPD tile, or a packed LU tile. */
const factor = (p: Precision, kind: 'chol' | 'lu'): Tile => {
  const t = kind === 'chol' ? spd(p, 1) : dominant(p, 1);
  if (kind === 'chol') potrf(t, n);
  else getrf(t, n);
  return t;
};

const CASES: Case[] = [
  {
    name: 'gemm C -= A B',
    flops: GEMM.flops!(n),
    setup: (p) => {
      const [a, b, c] = [random(p, 1), random(p, 2), random(p, 3)];
      return { run: () => gemm(a, b, c, n, false, false, -1, 1), fresh: [c] };
    },
  },
  {
    name: 'gemm C -= A B^T',
    flops: GEMM.flops!(n),
    setup: (p) => {
      const [a, b, c] = [random(p, 1), random(p, 2), random(p, 3)];
      return { run: () => gemm(a, b, c, n, false, true, -1, 1), fresh: [c] };
    },
  },
  {
    name: 'potrf',
    flops: POTRF.flops!(n),
    setup: (p) => {
      const a = spd(p, 4);
      return { run: () => potrf(a, n), fresh: [a] };
    },
  },
  {
    name: 'trsm B L^-T (Cholesky)',
    flops: TRSM.flops!(n),
    setup: (p) => {
      const [l, b] = [factor(p, 'chol'), random(p, 5)];
      return { run: () => trsmRightLowerTrans(l, b, n), fresh: [b] };
    },
  },
  {
    name: 'trsm L^-1 B (LU, unit)',
    flops: TRSM.flops!(n),
    setup: (p) => {
      const [l, b] = [factor(p, 'lu'), random(p, 6)];
      return { run: () => trsmLeftLowerUnit(l, b, n), fresh: [b] };
    },
  },
  {
    name: 'trsm B U^-1 (LU)',
    flops: TRSM.flops!(n),
    setup: (p) => {
      const [u, b] = [factor(p, 'lu'), random(p, 7)];
      return { run: () => trsmRightUpper(u, b, n), fresh: [b] };
    },
  },
  {
    name: 'syrk C -= A A^T (lower)',
    flops: SYRK.flops!(n),
    setup: (p) => {
      const [a, c] = [random(p, 8), random(p, 9)];
      return { run: () => syrk(a, c, n), fresh: [c] };
    },
  },
  {
    name: 'getrf (no pivoting)',
    flops: GETRF.flops!(n),
    setup: (p) => {
      const a = dominant(p, 10);
      return { run: () => getrf(a, n), fresh: [a] };
    },
  },
  {
    name: `stencil7 ${n}x${n}x${STENCIL_PLANES}`,
    flops: STENCIL7_FLOPS_PER_POINT * n * n * STENCIL_PLANES,
    setup: (p) => {
      const src = randomTile(n * n * STENCIL_PLANES, 11, p);
      const dst = randomTile(n * n * STENCIL_PLANES, 12, p);
      const below = random(p, 13);
      return { run: () => stencil7(src, dst, n, n, STENCIL_PLANES, below, null, 0.4, 0.1), fresh: [] };
    },
  },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

console.log(
  `CPU tile kernels, n = ${n}, one core, GFlop/s median (best) of ${ROUNDS} rounds after warm-up; Node ${process.version}`,
);
for (const p of ['double', 'single'] as const) {
  console.log(`${p === 'double' ? 'float64' : 'float32'}:`);
  for (const c of CASES) {
    const { run, fresh } = c.setup(p);
    const pristine = fresh.map((t) => t.slice());
    const rates: number[] = [];
    const warmUntil = performance.now() + WARMUP_MS;
    for (let r = -WARMUP; r < ROUNDS; r++) {
      for (let i = 0; i < fresh.length; i++) fresh[i]!.set(pristine[i]!);
      const t0 = performance.now();
      run();
      const ms = performance.now() - t0;
      if (r === -1 && t0 < warmUntil) r = -2; // keep warming up
      if (r >= 0) rates.push(c.flops / ms / 1e6);
    }
    const best = Math.max(...rates);
    console.log(`  ${c.name.padEnd(26)} ${median(rates).toFixed(2).padStart(6)} (${best.toFixed(2)})`);
  }
}
