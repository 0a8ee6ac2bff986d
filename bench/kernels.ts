/**
 * `node --import tsx bench/kernels.ts [n,...]`: single-core speed of the CPU tile kernels on
 * n x n tiles (default 256 and 512), in float64 and float32: the JavaScript kernels
 * (src/kernels) and, where the kernel addon is built, the native ones (src/kernels/native:
 * the system's BLAS and LAPACK on one thread), with their ratio. Each kernel runs on the same
 * buffers, its output restored untimed before each round (fresh allocations would time page
 * faults), at least WARMUP times and WARMUP_MS first so V8 optimises it, then ROUNDS timed
 * times; the rate is flops per CPU-second of the process (other processes share the cores),
 * with the flop counts of the workloads' codelet table (src/workloads/kernels.ts): the median
 * round, and the best in parentheses. The stencil line is a 7-point sweep of an n x n x 64
 * block (8 flops per point; JavaScript only). BENCH_ROUNDS overrides ROUNDS.
 */
import {
  type Precision,
  randomTile,
  STENCIL7_FLOPS_PER_POINT,
  spdMatrixTiles,
  stencil7,
  type Tile,
} from '../src/kernels/index.ts';
import {
  gemm,
  getrf,
  potrf,
  syrk,
  trsmLeftLowerUnit,
  trsmRightLowerTrans,
  trsmRightUpper,
} from '../src/kernels/javascript.ts';
import { kernelAddon, kernelsName, kernelsReason } from '../src/kernels/native/addon.ts';
import * as Public from '../src/kernels/native/dispatch.ts';
import { diagDominantTiles } from '../src/kernels/reference.ts';
import { GEMM, GETRF, POTRF, SYRK, TRSM } from '../src/workloads/kernels.ts';

const k = kernelAddon();
const SIZES = (process.argv[2] ?? '256,512').split(',').map(Number);
let n = 256;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const WARMUP = 3;
/** Warm-up goes on (beyond WARMUP calls) until this long has passed, for tier-up of the big loops. */
const WARMUP_MS = 300;
const STENCIL_PLANES = 64;

interface Case {
  name: string;
  flops: () => number;
  /**
   * Builds the inputs once and returns the timed call; `fresh` lists the tiles the call
   * overwrites, restored (untimed) from pristine copies before every round.
   */
  setup: (p: Precision) => { run: () => void; native?: () => void; fresh: Tile[] };
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
    flops: () => GEMM.flops!(n),
    setup: (p) => {
      const [a, b, c] = [random(p, 1), random(p, 2), random(p, 3)];
      return {
        run: () => gemm(a, b, c, n, false, false, -1, 1),
        native: () => k?.gemm(0, 0, n, n, n, -1, a, 0, n, b, 0, n, 1, c, 0, n),
        fresh: [c],
      };
    },
  },
  {
    name: 'gemm C -= A B^T',
    flops: () => GEMM.flops!(n),
    setup: (p) => {
      const [a, b, c] = [random(p, 1), random(p, 2), random(p, 3)];
      return {
        run: () => gemm(a, b, c, n, false, true, -1, 1),
        native: () => k?.gemm(0, 1, n, n, n, -1, a, 0, n, b, 0, n, 1, c, 0, n),
        fresh: [c],
      };
    },
  },
  {
    name: 'potrf',
    flops: () => POTRF.flops!(n),
    setup: (p) => {
      const a = spd(p, 4);
      return { run: () => potrf(a, n), native: () => k?.potrf(1, n, a, 0, n), fresh: [a] };
    },
  },
  {
    name: 'trsm B L^-T (Cholesky)',
    flops: () => TRSM.flops!(n),
    setup: (p) => {
      const [l, b] = [factor(p, 'chol'), random(p, 5)];
      return {
        run: () => trsmRightLowerTrans(l, b, n),
        native: () => k?.trsm(1, 1, 1, 0, n, n, 1, l, 0, n, b, 0, n),
        fresh: [b],
      };
    },
  },
  {
    name: 'trsm L^-1 B (LU, unit)',
    flops: () => TRSM.flops!(n),
    setup: (p) => {
      const [l, b] = [factor(p, 'lu'), random(p, 6)];
      return {
        run: () => trsmLeftLowerUnit(l, b, n),
        native: () => k?.trsm(0, 1, 0, 1, n, n, 1, l, 0, n, b, 0, n),
        fresh: [b],
      };
    },
  },
  {
    name: 'trsm B U^-1 (LU)',
    flops: () => TRSM.flops!(n),
    setup: (p) => {
      const [u, b] = [factor(p, 'lu'), random(p, 7)];
      return {
        run: () => trsmRightUpper(u, b, n),
        native: () => k?.trsm(1, 0, 0, 0, n, n, 1, u, 0, n, b, 0, n),
        fresh: [b],
      };
    },
  },
  {
    name: 'syrk C -= A A^T (lower)',
    flops: () => SYRK.flops!(n),
    setup: (p) => {
      const [a, c] = [random(p, 8), random(p, 9)];
      return {
        run: () => syrk(a, c, n),
        native: () => k?.syrk(1, 0, n, n, -1, a, 0, n, 1, c, 0, n),
        fresh: [c],
      };
    },
  },
  {
    name: 'getrf (no pivoting)',
    flops: () => GETRF.flops!(n),
    setup: (p) => {
      const a = dominant(p, 10);
      return { run: () => getrf(a, n), native: () => k?.getrfNoPiv(n, n, a, 0, n), fresh: [a] };
    },
  },
  {
    name: `stencil7 ${n}x${n}x${STENCIL_PLANES}`,
    flops: () => STENCIL7_FLOPS_PER_POINT * n * n * STENCIL_PLANES,
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

/** Median and best rate (GFlop per CPU-second) of `run` over ROUNDS rounds, after warm-up. */
function measure(c: Case, run: () => void, fresh: Tile[], rounds: number): { median: number; best: number } {
  const pristine = fresh.map((t) => t.slice());
  const rates: number[] = [];
  const warmUntil = performance.now() + WARMUP_MS;
  for (let r = -WARMUP; r < rounds; r++) {
    for (let i = 0; i < fresh.length; i++) fresh[i]!.set(pristine[i]!);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    run();
    const cpu = process.cpuUsage(c0);
    if (r === -1 && t0 < warmUntil) r = -2; // keep warming up
    // CPU time (us) of the process; its resolution is coarse for tiny kernels: wall time then.
    const us = Math.max(cpu.user + cpu.system, 1);
    if (r >= 0) rates.push(c.flops() / us / 1e3);
  }
  return { median: median(rates), best: Math.max(...rates) };
}

const fmt = (x: { median: number; best: number }) =>
  `${x.median.toFixed(2).padStart(7)} (${x.best.toFixed(2)})`;
console.log(
  `CPU tile kernels, one core, GFlop per CPU-second: median (best) of ${ROUNDS} rounds after warm-up; Node ${process.version}`,
);
console.log(`native kernels: ${k ? kernelsName() : `none (${kernelsReason()})`}`);
for (n of SIZES) {
  const rounds = n > 256 ? Math.max(3, Math.ceil(ROUNDS / 2)) : ROUNDS;
  for (const p of ['double', 'single'] as const) {
    console.log(
      `n = ${n}, ${p === 'double' ? 'float64' : 'float32'}:${' '.repeat(14)}javascript         native  native/js`,
    );
    for (const c of CASES) {
      const { run, native, fresh } = c.setup(p);
      const js = measure(c, run, fresh, rounds);
      if (k === undefined || native === undefined) {
        console.log(`  ${c.name.padEnd(26)} ${fmt(js)}`);
        continue;
      }
      const nat = measure(c, native, fresh, rounds);
      console.log(
        `  ${c.name.padEnd(26)} ${fmt(js)} ${fmt(nat)} ${(nat.median / js.median).toFixed(1).padStart(8)}x`,
      );
    }
  }
}

// What a kernel module's call of the public kernels costs over the BLAS's own work: a 4 x 4
// gemm through `locus-runtime/kernels` (argument checks, one Node-API call), per call.
if (k !== undefined) {
  const [a, b, c] = [randomTile(16, 1, 'double'), randomTile(16, 2, 'double'), randomTile(16, 3, 'double')];
  const calls = 200_000;
  for (let i = 0; i < calls; i++) Public.gemm(a, b, c, 4, false, true, -1e-9, 1);
  const c0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) Public.gemm(a, b, c, 4, false, true, -1e-9, 1);
  const cpu = process.cpuUsage(c0);
  console.log(
    `per call of locus-runtime/kernels' gemm on 4 x 4 tiles (native): ${(((cpu.user + cpu.system) / calls) * 1000).toFixed(0)} ns of CPU`,
  );
}
