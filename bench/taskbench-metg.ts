/**
 * METG(50%) of Locus beside Task Bench's own OpenMP implementation, on this machine (issue 28):
 * the same graph (stencil_1d, one point per core, 1000 timesteps, compute_bound), the same
 * sweep (kernel iterations halved from 2^15 to 1, each point the shortest of 3 runs after one
 * warm-up run), the same definitions (src/exec/metg.ts: granularity = wall x cores / tasks,
 * efficiency against the sweep's best work rate, METG where it crosses 50%). Task Bench's
 * OpenMP runs with OMP_NUM_THREADS = the cores; with 1 core it is Task Bench's serial baseline.
 * Each system's efficiency is against its own peak: Task Bench's compute_bound is AVX2 C,
 * Locus's the portable JavaScript version of the same loop, so the peaks differ and METG
 * compares the runtimes' costs per task, not the kernels.
 *
 * Needs Task Bench built (not in CI): TASK_BENCH=dir (default ../task-bench) holding
 * core/ and openmp/ (`make -C $TASK_BENCH/core && make -C $TASK_BENCH/openmp`), and `npm run
 * build`. Prints one JSON object; `--cores N` (default 2).
 *
 *   node --import tsx bench/taskbench-metg.ts [--cores 2]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { metgOf } from '../src/exec/metg.ts';

const { values } = parseArgs({ options: { cores: { type: 'string', default: '2' } } });
const cores = Number(values.cores);
const TB = process.env.TASK_BENCH ?? '../task-bench';
const OPENMP = join(TB, 'openmp', 'main');
if (!existsSync(OPENMP)) {
  process.stderr.write(
    `taskbench-metg: no Task Bench OpenMP binary at ${OPENMP}: build it (make -C ${TB}/core && make -C ${TB}/openmp) or set TASK_BENCH\n`,
  );
  process.exit(2);
}
const STEPS = 1000;
const MAX_ITERATIONS = 2 ** 15;
const ROUNDS = 3;

/** One Task Bench OpenMP run's elapsed seconds (its own "Elapsed Time" line). */
function openmpRun(threads: number, iterations: number): number {
  const r = spawnSync(
    OPENMP,
    [
      '-steps',
      String(STEPS),
      '-width',
      String(threads),
      '-type',
      'stencil_1d',
      '-kernel',
      'compute_bound',
      '-iter',
      String(iterations),
      '-worker',
      String(threads),
    ],
    { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: String(threads) } },
  );
  const m = /Elapsed Time ([0-9.e+-]+) seconds/.exec(r.stdout);
  if (r.status !== 0 || !m) throw new Error(`Task Bench OpenMP failed: ${r.stderr.trim().split('\n').pop()}`);
  return Number(m[1]);
}

/** Task Bench OpenMP's sweep on `threads` cores. */
function openmpSweep(threads: number) {
  openmpRun(threads, MAX_ITERATIONS);
  const tasks = STEPS * threads;
  const raw: { iterations: number; wallS: number; granularityUs: number; workRate: number }[] = [];
  for (let it = MAX_ITERATIONS; it >= 1; it = Math.floor(it / 2)) {
    let wallS = Number.POSITIVE_INFINITY;
    for (let k = 0; k < ROUNDS; k++) wallS = Math.min(wallS, openmpRun(threads, it));
    raw.push({
      iterations: it,
      wallS,
      granularityUs: ((wallS * threads) / tasks) * 1e6,
      workRate: ((2 * 64 * it + 64) * tasks) / wallS,
    });
  }
  const peak = Math.max(...raw.map((p) => p.workRate));
  const points = raw.map((p) => ({ ...p, efficiency: p.workRate / peak }));
  return {
    system: `Task Bench OpenMP, ${threads} thread${threads > 1 ? 's' : ''}`,
    cores: threads,
    peakRate: peak,
    metgUs: metgOf(points),
    points,
  };
}

/** Locus's sweep through `locus bench metg --json`. */
function locusSweep() {
  const r = spawnSync(
    process.execPath,
    [
      new URL('../bin/locus.mjs', import.meta.url).pathname,
      'bench',
      'metg',
      '--cpus',
      String(cores),
      '--steps',
      String(STEPS),
      '--max-iterations',
      String(MAX_ITERATIONS),
      '--rounds',
      String(ROUNDS),
      '--json',
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`locus bench metg failed: ${r.stderr.trim()}`);
  const j = JSON.parse(r.stdout) as { metgUs?: number; peakRate: number; points: unknown[] };
  return {
    system: `Locus, ${cores} worker threads`,
    cores,
    peakRate: j.peakRate,
    metgUs: j.metgUs,
    points: j.points,
  };
}

const loadBefore = loadavg()[0]!;
const openmp = openmpSweep(cores);
const serial = openmpSweep(1);
const locus = locusSweep();
process.stdout.write(
  `${JSON.stringify({
    pattern: 'stencil_1d',
    kernel: 'compute_bound',
    steps: STEPS,
    loadAverage: [loadBefore, loadavg()[0]!],
    systems: [serial, openmp, locus],
    locusOverOpenmp:
      locus.metgUs !== undefined && openmp.metgUs !== undefined ? locus.metgUs / openmp.metgUs : null,
  })}\n`,
);
