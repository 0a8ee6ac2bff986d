/**
 * `npm run bench` (real mode): the real driver's overhead and speed on this machine.
 *
 * 1. 100,000 independent no-op tasks on 2 worker threads, Locus against piscina (the worker
 *    pool Node users pick, 2 threads, one promise per task): tasks per second, interleaved
 *    rounds, medians, and the ratio.
 * 2. A dependent chain of 10,000 no-op tasks (each reads and writes the same datum):
 *    microseconds per task, the round trip between the engine and a worker.
 * 3. Tiled Cholesky (16 x 16 tiles of 256, float64) on 1 and 2 workers: GFlop/s and speed-up.
 *
 * Locus runs with its defaults, which include recording every task's time into the
 * performance models (saved after each batch).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { runWorkload } from '../src/exec/run-workload.ts';
import { Runtime } from '../src/exec/runtime.ts';

// Real runs record their task times into the performance models (the default): keep this
// benchmark's out of ~/.locus.
process.env.LOCUS_PERFMODEL_DIR ??= mkdtempSync(join(tmpdir(), 'locus-bench-models-'));

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const N = 100_000;
const CHAIN = 10_000;
const noopUrl = new URL('./noop.mjs', import.meta.url);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function locusIndependent(rt: Runtime): Promise<number> {
  const noop = rt.codelet({ name: 'noop', kernel: { module: noopUrl, export: 'noop' }, kinds: ['cpu'] });
  const t0 = performance.now();
  for (let i = 0; i < N; i++) rt.submit(noop, []);
  await rt.wait();
  return (N / (performance.now() - t0)) * 1000;
}

async function piscinaIndependent(pool: Piscina): Promise<number> {
  const t0 = performance.now();
  const all: Promise<unknown>[] = new Array(N);
  for (let i = 0; i < N; i++) all[i] = pool.run(null);
  await Promise.all(all);
  return (N / (performance.now() - t0)) * 1000;
}

async function locusChain(rt: Runtime): Promise<number> {
  const noop = rt.codelet({ name: 'noop', kernel: { module: noopUrl, export: 'noop' }, kinds: ['cpu'] });
  const d = rt.scratch('float64', 1, { name: 'x' });
  const t0 = performance.now();
  for (let i = 0; i < CHAIN; i++) rt.submit(noop, [[d, 'RW']]);
  await rt.wait();
  return ((performance.now() - t0) * 1000) / CHAIN;
}

const rt = await Runtime.create({ cpus: 2, scheduler: 'eager' });
const pool = new Piscina({ filename: noopUrl.href, minThreads: 2, maxThreads: 2 });
const locus: number[] = [];
const pisc: number[] = [];
await locusIndependent(rt); // warm-up: threads started, kernels imported, JIT
await piscinaIndependent(pool);
for (let r = 0; r < ROUNDS; r++) {
  locus.push(await locusIndependent(rt));
  pisc.push(await piscinaIndependent(pool));
}
await pool.destroy();
const lm = median(locus);
const pm = median(pisc);
console.log(
  `\nreal driver, ${N.toLocaleString('en-US')} independent no-op tasks on 2 worker threads (${ROUNDS} interleaved rounds, medians):`,
);
console.log(
  `  locus (eager)  ${Math.round(lm).toLocaleString('en-US')} tasks/s  (rounds: ${locus.map((x) => Math.round(x)).join(', ')})`,
);
console.log(
  `  piscina 5      ${Math.round(pm).toLocaleString('en-US')} tasks/s  (rounds: ${pisc.map((x) => Math.round(x)).join(', ')})`,
);
console.log(`  ratio          ${(lm / pm).toFixed(1)}x`);

const chain: number[] = [];
for (let w = 0; w < 3; w++) await locusChain(rt); // warm-up: the engine and the ring paths get compiled
for (let r = 0; r < ROUNDS; r++) chain.push(await locusChain(rt));
console.log(
  `\ndependent chain of ${CHAIN.toLocaleString('en-US')} no-op tasks: ${median(chain).toFixed(2)} us per task (median; rounds: ${chain.map((x) => x.toFixed(2)).join(', ')})`,
);
await rt.close();

console.log('\ntiled Cholesky, 16 x 16 tiles of 256 (n = 4096), float64, dmdar:');
let base = 0;
for (const workers of [1, 2]) {
  const runs: number[] = [];
  for (let r = 0; r < Math.max(1, Math.min(ROUNDS, 3)); r++) {
    const res = await runWorkload('cholesky', {
      tiles: 16,
      tileSize: 256,
      cpus: workers,
      scheduler: 'dmdar',
      check: r === 0,
    });
    runs.push(res.report.gflops);
    if (r === 0 && !(res.residual! < 1e-10))
      throw new Error(`Cholesky check failed: residual ${res.residual}`);
  }
  const g = median(runs);
  if (workers === 1) base = g;
  console.log(
    `  ${workers} worker${workers > 1 ? 's' : ' '}  ${g.toFixed(2)} GFlop/s${workers > 1 ? `  speed-up ${(g / base).toFixed(2)}x` : ''}`,
  );
}
