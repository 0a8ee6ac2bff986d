/**
 * `npm run bench`: the simulator's speed. Simulates seed 000's matmul2d with 317 x 317 =
 * 100,489 tasks under EAGER on v100x2 (500 MiB per GPU, so every task loads data and the
 * eviction path is hot), plus a Cholesky for a graph with dependencies, and prints simulated
 * tasks per second of wall time (median and best of the measured rounds, after warm-up
 * rounds) and peak memory (resident set, graph included). Two rows run Belady and LUF under
 * dm policies on 20,000 random tasks with 64 MiB GPUs, where every task evicts: the eviction
 * policies read the schedulers' plans (issue 12: they used to rescan the queues per victim).
 */
import { resolvePlatform } from '../src/platform/presets.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';

interface Case {
  name: string;
  workload: string;
  params: Record<string, number>;
  sched: string;
  eviction?: string;
  /** GPU memory in bytes (default: the preset's 500 MiB). */
  gpuMem?: number;
}

const CASES: Case[] = [
  {
    name: 'matmul2d 317x317, eager, v100x2 500 MiB',
    workload: 'matmul2d',
    params: { tiles: 317 },
    sched: 'eager',
  },
  {
    name: 'matmul2d 317x317, dmdar, v100x2 500 MiB',
    workload: 'matmul2d',
    params: { tiles: 317 },
    sched: 'dmdar',
  },
  {
    name: 'matmul2d 317x317, darts+luf, v100x2 500 MiB',
    workload: 'matmul2d',
    params: { tiles: 317 },
    sched: 'darts',
    eviction: 'luf',
  },
  {
    name: 'random 20,000 tasks, prio+belady, v100x2 64 MiB',
    workload: 'random',
    params: { tasks: 20_000 },
    sched: 'prio',
    eviction: 'belady',
    gpuMem: 64 * 2 ** 20,
  },
  {
    name: 'random 20,000 tasks, dmda+luf, v100x2 64 MiB',
    workload: 'random',
    params: { tasks: 20_000 },
    sched: 'dmda',
    eviction: 'luf',
    gpuMem: 64 * 2 ** 20,
  },
  {
    name: 'cholesky 60x60 tiles, eager, v100x2 500 MiB',
    workload: 'cholesky',
    params: { tiles: 60, tileSize: 960 },
    sched: 'eager',
  },
];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = 2; // rounds run first and not counted: V8 compiles the hot paths during them

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

const platform = resolvePlatform('v100x2', {});
console.log(
  `simulator speed (${WARMUP} warm-up + ${ROUNDS} rounds each, median and best; Node ${process.version})`,
);
for (const c of CASES) {
  const build: number[] = [];
  const rates: number[] = [];
  let tasks = 0;
  let peakRss = 0;
  for (let r = -WARMUP; r < ROUNDS; r++) {
    const t0 = performance.now();
    const wl = generateWorkload(c.workload, c.params);
    const t1 = performance.now();
    const { report } = simulate({
      graph: wl.graph,
      platform: c.gpuMem === undefined ? platform : resolvePlatform('v100x2', { gpuMem: c.gpuMem }),
      scheduler: c.sched,
      eviction: c.eviction,
    });
    tasks = report.tasks;
    if (r < 0) continue;
    build.push((t1 - t0) / 1000);
    rates.push(report.tasks / report.wallS);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  console.log(
    `  ${c.name}: ${tasks.toLocaleString('en-US')} tasks, ` +
      `${Math.round(median(rates)).toLocaleString('en-US')} simulated tasks/s ` +
      `(best ${Math.round(Math.max(...rates)).toLocaleString('en-US')}) ` +
      `(graph built in ${(median(build) * 1000).toFixed(0)} ms), peak RSS ${mib(peakRss)}`,
  );
}
