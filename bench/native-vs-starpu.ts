/**
 * `node --import tsx bench/native-vs-starpu.ts`: Locus's real runs against StarPU on this
 * machine, on the same problems (issue 22). Interleaved, ROUNDS rounds of each (after one
 * unrecorded warm-up of each, which also calibrates both runtimes' performance models):
 *
 * - Debian's StarPU examples `cholesky_implicit -size 4096 -nblocks 16` and
 *   `lu_implicit_example_float -size 4096 -nblocks 16`, with STARPU_NCPU=2, STARPU_NCUDA=0,
 *   OPENBLAS_NUM_THREADS=1 and STARPU_SCHED=dmdar (both single precision, tiles of 256);
 * - `locus run --mode real -w cholesky|lu --tiles 16 --tile-size 256 --precision single
 *   --cpus 2 --sched dmdar` (and `--cpus 1`, for the second core's gain);
 * - numpy's `linalg.cholesky` on a 4096 x 4096 float32 SPD matrix with 2 BLAS threads.
 *
 * Prints each one's median GFlop/s and Locus's ratio to StarPU, and the load average before
 * and after (these machines are shared). Locus's figure is its report's (flops over the
 * makespan, first task start to last task end), StarPU's the one its example prints (the
 * factorisation's time, submission included). Skipped with the reason where StarPU's
 * examples are not installed (Debian: apt-get install starpu-examples). BENCH_ROUNDS
 * overrides ROUNDS (5).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { kernelsName } from '../src/kernels/native/addon.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const EXAMPLES = process.env.STARPU_EXAMPLES ?? '/usr/lib/x86_64-linux-gnu/starpu/examples';
const SIZE = 4096;
const BLOCKS = 16;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

if (!existsSync(join(EXAMPLES, 'cholesky_implicit'))) {
  console.log(
    `native-vs-starpu: skipped: StarPU's examples are not installed (${EXAMPLES}/cholesky_implicit is missing; on Debian: apt-get install starpu-examples)`,
  );
  process.exit(0);
}

const models = mkdtempSync(join(tmpdir(), 'locus-bench-models-'));
const starpuHome = mkdtempSync(join(tmpdir(), 'starpu-bench-'));

/** GFlop/s of a StarPU example: the last line `size ms GFlop/s`. */
function starpu(example: string): number {
  const r = spawnSync(join(EXAMPLES, example), ['-size', String(SIZE), '-nblocks', String(BLOCKS)], {
    encoding: 'utf8',
    env: {
      ...process.env,
      STARPU_NCPU: '2',
      STARPU_NCUDA: '0',
      STARPU_NOPENCL: '0',
      OPENBLAS_NUM_THREADS: '1',
      STARPU_SCHED: 'dmdar',
      STARPU_SILENT: '1',
      STARPU_HOME: starpuHome,
    },
    timeout: 300_000,
  });
  const last = `${r.stdout}${r.stderr}`
    .trim()
    .split('\n')
    .filter((l) => /^\d+\s+\d+/.test(l))
    .at(-1);
  if (r.status !== 0 || last === undefined)
    throw new Error(`${example} failed: ${r.stderr.trim().split('\n').at(-1)}`);
  return Number(last.split(/\s+/)[2]);
}

/** GFlop/s of a Locus real run. */
function locus(workload: string, cpus: number): number {
  const r = spawnSync(
    process.execPath,
    [
      'bin/locus.mjs',
      'run',
      '--mode',
      'real',
      '-w',
      workload,
      '--tiles',
      String(BLOCKS),
      '--tile-size',
      String(SIZE / BLOCKS),
      '--precision',
      'single',
      '--cpus',
      String(cpus),
      '--sched',
      'dmdar',
      '--json',
      '--no-progress',
    ],
    { encoding: 'utf8', env: { ...process.env, LOCUS_PERFMODEL_DIR: models }, timeout: 300_000 },
  );
  if (r.status !== 0) throw new Error(`locus ${workload} failed: ${r.stderr.trim()}`);
  return (JSON.parse(r.stdout) as { gflops: number }).gflops;
}

/** GFlop/s of numpy's Cholesky with 2 BLAS threads, or NaN without numpy. */
function numpy(): number {
  const script = `
import numpy as np, time
n = ${SIZE}
rng = np.random.default_rng(1)
g = rng.standard_normal((n, n), dtype=np.float32)
a = (g @ g.T) / n + n * np.eye(n, dtype=np.float32)
np.linalg.cholesky(a)
t = time.perf_counter(); np.linalg.cholesky(a); t = time.perf_counter() - t
print(n ** 3 / 3 / t / 1e9)
`;
  const r = spawnSync('python3', ['-c', script], {
    encoding: 'utf8',
    env: { ...process.env, OPENBLAS_NUM_THREADS: '2', OMP_NUM_THREADS: '2' },
    timeout: 300_000,
  });
  return r.status === 0 ? Number(r.stdout.trim()) : Number.NaN;
}

const runs: [string, () => number][] = [
  ['StarPU 1.3 cholesky_implicit', () => starpu('cholesky_implicit')],
  ['Locus cholesky, 2 CPUs', () => locus('cholesky', 2)],
  ['Locus cholesky, 1 CPU', () => locus('cholesky', 1)],
  ['StarPU 1.3 lu_implicit_example_float', () => starpu('lu_implicit_example_float')],
  ['Locus lu, 2 CPUs', () => locus('lu', 2)],
  ['numpy linalg.cholesky, 2 BLAS threads', numpy],
];

const load0 = loadavg()[0]!;
for (const [, run] of runs) run(); // warm-up: models calibrated, caches and JIT warm
const rates = new Map<string, number[]>(runs.map(([name]) => [name, []]));
for (let r = 0; r < ROUNDS; r++) for (const [name, run] of runs) rates.get(name)!.push(run());
const load1 = loadavg()[0]!;

const m = (name: string) => median(rates.get(name)!);
console.log(
  `Cholesky and LU, n = ${SIZE}, ${BLOCKS} x ${BLOCKS} tiles of ${SIZE / BLOCKS}, float32, dmdar, 2 CPU workers; ${ROUNDS} interleaved rounds, medians (GFlop/s); Locus kernels: ${kernelsName()}; load average ${load0.toFixed(1)} before, ${load1.toFixed(1)} after`,
);
for (const [name] of runs)
  console.log(
    `  ${name.padEnd(40)} ${m(name).toFixed(1).padStart(7)}   (rounds: ${rates
      .get(name)!
      .map((x) => x.toFixed(1))
      .join(', ')})`,
  );
console.log(
  `  Locus / StarPU, cholesky                 ${(m('Locus cholesky, 2 CPUs') / m('StarPU 1.3 cholesky_implicit')).toFixed(2)}`,
);
console.log(
  `  Locus / StarPU, lu                       ${(m('Locus lu, 2 CPUs') / m('StarPU 1.3 lu_implicit_example_float')).toFixed(2)}`,
);
console.log(
  `  Locus 2 CPUs / 1 CPU, cholesky           ${(m('Locus cholesky, 2 CPUs') / m('Locus cholesky, 1 CPU')).toFixed(2)}`,
);
