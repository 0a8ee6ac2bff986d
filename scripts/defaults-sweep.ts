/**
 * The defaults sweep of issue 24: for each policy that plans data (darts+luf, hfp, dmdar), each
 * memory option whose default is in question (clean-first, hints, clean-buffer targets,
 * pipeline, lookahead, ready-first; for DARTS, StarPU master's fallback when no datum frees a
 * task and the same with random ties) changed alone from the defaults, on several platforms and
 * workloads (v100x2 at 500 and 2000 MiB, 4 GPUs, StarPU's sirocco, hannibal; Cholesky, LU, the
 * 3-D and 2-D matrix products).
 * Prints one JSON object:
 *   { cases: [{ label, args }], variants: [{ label, flags, only? }], schedulers: [...],
 *     runs: { [sched]: { [case]: { [variant]: { gflops, gbToGpus } } } } (a variant that does
 *     not apply to a policy has no entry),
 *     summary: { [sched]: { [variant]: { geomean, min, max, wins, losses } } } }
 * where the summary's ratios are each variant's GFlop/s over the defaults' on the same case
 * (wins / losses: cases more than 0.5% above / below). Simulated, hence deterministic. The
 * policies whose runs draw (DRAWING: DARTS's fallback takes a random pool task, and hfp hands
 * the tasks outside its plan to DARTS) run with seeds 1 to `--seeds` (default 3) and each point
 * is the mean over them (`bySeed` keeps each seed's GFlop/s): with one seed, a variant's lead
 * over the defaults on a case can be the seed's luck. dmdar draws nothing and runs once.
 *
 *   node --import tsx scripts/defaults-sweep.ts [--jobs n] [--only sched] [--seeds n]
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A platform and workload the sweep runs (arguments of `locus run`). */
interface Case {
  label: string;
  args: string[];
}

/** One option changed from the defaults (no flags: the defaults themselves). */
interface Variant {
  label: string;
  flags: string[];
  /** The policies it applies to (default: every one). */
  only?: string[];
}

const SIROCCO = 'test/fixtures/starpu-sirocco/sirocco-chol.json';
const chol = (platform: string[], tiles: number, extra: string[] = []): string[] => [
  '-w',
  'cholesky',
  ...platform,
  '--priorities',
  'bottom-level',
  '--tiles',
  String(tiles),
  ...extra,
];

const CASES: Case[] = [
  { label: 'v100x2 2000 MiB, Cholesky 30', args: chol(['--platform', 'v100x2', '--gpu-mem', '2000MiB'], 30) },
  { label: 'v100x2 2000 MiB, Cholesky 40', args: chol(['--platform', 'v100x2', '--gpu-mem', '2000MiB'], 40) },
  { label: 'v100x2 500 MiB, Cholesky 20', args: chol(['--platform', 'v100x2', '--gpu-mem', '500MiB'], 20) },
  {
    label: 'v100x2 4 GPUs 500 MiB, Cholesky 30',
    args: chol(['--platform', 'v100x2', '--gpus', '4', '--gpu-mem', '500MiB'], 30),
  },
  {
    label: 'sirocco, Cholesky 60',
    args: chol(['--platform', SIROCCO, '--tile-size', '960'], 60, ['--order', 'columns']),
  },
  {
    label: 'hannibal 64 MiB, Cholesky 32 (512)',
    args: chol(['--platform', 'hannibal', '--cpus', '0', '--gpu-mem', '64MiB', '--tile-size', '512'], 32),
  },
  { label: 'v100x2 500 MiB, matmul2d 80', args: ['-w', 'matmul2d', '--platform', 'v100x2', '--tiles', '80'] },
  {
    label: 'v100x2 500 MiB, 3-D GEMM 16',
    args: ['-w', 'gemm', '--platform', 'v100x2', '--gpu-mem', '500MiB', '--tiles', '16'],
  },
  {
    label: 'v100x2 500 MiB, LU 20',
    args: ['-w', 'lu', '--platform', 'v100x2', '--gpu-mem', '500MiB', '--tiles', '20'],
  },
  {
    label: 'sirocco, matmul2d 60',
    args: ['-w', 'matmul2d', '--platform', SIROCCO, '--tile-size', '960', '--tiles', '60'],
  },
];

const VARIANTS: Variant[] = [
  { label: 'defaults', flags: [] },
  { label: '--no-clean-first', flags: ['--no-clean-first'] },
  { label: '--no-hints', flags: ['--no-hints'] },
  { label: '--min-clean 5 --target-clean 10', flags: ['--min-clean', '5', '--target-clean', '10'] },
  { label: '--pipeline 4', flags: ['--pipeline', '4'] },
  { label: '--lookahead 16', flags: ['--lookahead', '16'] },
  { label: '--ready-first', flags: ['--ready-first'] },
  { label: '--darts-one-from-free', flags: ['--darts-one-from-free'], only: ['darts+luf'] },
  { label: '--darts-one-away', flags: ['--darts-one-away'], only: ['darts+luf'] },
];

const SCHEDULERS = ['darts+luf', 'hfp', 'dmdar'];

/** The policies whose runs draw from the seeded generator: run over several seeds. */
const DRAWING = new Set(['darts+luf', 'hfp']);

/** One point's figures: means over its seeds. */
interface Point {
  gflops: number;
  gbToGpus: number;
  /** GFlop/s with each seed, 1, 2, ... */
  bySeed: number[];
}

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const jobs = Math.max(1, Number(option('--jobs') ?? 1));
const seeds = Number(option('--seeds') ?? 3);
if (!(Number.isInteger(seeds) && seeds >= 1)) {
  process.stderr.write(`defaults-sweep: --seeds ${option('--seeds')}: give a positive integer\n`);
  process.exit(2);
}
const only = option('--only');
const schedulers = only ? SCHEDULERS.filter((s) => s === only) : SCHEDULERS;
if (schedulers.length === 0) {
  process.stderr.write(`defaults-sweep: --only ${only}: not one of ${SCHEDULERS.join(', ')}\n`);
  process.exit(2);
}
const root = fileURLToPath(new URL('..', import.meta.url));

/** One run with `seed`: its GFlop/s and GB copied to the GPUs. */
async function one(sched: string, c: Case, v: Variant, seed: number): Promise<[number, number]> {
  const args = [
    'bin/locus.mjs',
    'run',
    ...c.args,
    '--sched',
    sched,
    ...v.flags,
    '--seed',
    String(seed),
    '--json',
  ];
  const { stdout } = await run(process.execPath, args, { cwd: root, maxBuffer: 1 << 26 });
  const r = JSON.parse(stdout) as { gflops: number; bytesToDevices: number };
  return [r.gflops, r.bytesToDevices / 1e9];
}

const work: Array<{ sched: string; c: Case; v: Variant; seed: number }> = [];
for (const sched of schedulers)
  for (const c of CASES)
    for (const v of VARIANTS)
      if (v.only === undefined || v.only.includes(sched))
        for (let seed = 1; seed <= (DRAWING.has(sched) ? seeds : 1); seed++) work.push({ sched, c, v, seed });
/** Each run's figures, by scheduler, case, variant and seed - 1. */
const raw: Record<string, Record<string, Record<string, [number, number][]>>> = {};
let next = 0;
let done = 0;
async function worker(): Promise<void> {
  while (next < work.length) {
    const { sched, c, v, seed } = work[next++]!;
    const p = await one(sched, c, v, seed);
    const bySched = raw[sched] ?? {};
    raw[sched] = bySched;
    const byCase = bySched[c.label] ?? {};
    bySched[c.label] = byCase;
    const bySeed = byCase[v.label] ?? [];
    byCase[v.label] = bySeed;
    bySeed[seed - 1] = p;
    done++;
    process.stderr.write(
      `[${done}/${work.length}] ${sched} ${c.label} ${v.label} seed ${seed}: ${p[0].toFixed(0)}\n`,
    );
  }
}
await Promise.all(Array.from({ length: jobs }, worker));

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const runs: Record<string, Record<string, Record<string, Point>>> = {};
for (const [sched, byCase] of Object.entries(raw)) {
  runs[sched] = {};
  for (const [label, byVariant] of Object.entries(byCase)) {
    runs[sched]![label] = {};
    for (const [variant, ps] of Object.entries(byVariant)) {
      runs[sched]![label]![variant] = {
        gflops: mean(ps.map((p) => p[0])),
        gbToGpus: mean(ps.map((p) => p[1])),
        bySeed: ps.map((p) => p[0]),
      };
    }
  }
}

const summary: Record<
  string,
  Record<string, { geomean: number; min: number; max: number; wins: number; losses: number }>
> = {};
for (const sched of schedulers) {
  for (const v of VARIANTS) {
    if (v.only !== undefined && !v.only.includes(sched)) continue;
    const ratios = CASES.map(
      (c) => runs[sched]![c.label]![v.label]!.gflops / runs[sched]![c.label]!.defaults!.gflops,
    );
    const bySched = summary[sched] ?? {};
    summary[sched] = bySched;
    bySched[v.label] = {
      geomean: Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length),
      min: Math.min(...ratios),
      max: Math.max(...ratios),
      wins: ratios.filter((x) => x > 1.005).length,
      losses: ratios.filter((x) => x < 0.995).length,
    };
  }
}
console.log(
  JSON.stringify({
    cases: CASES,
    variants: VARIANTS,
    schedulers,
    seeds,
    drawing: [...DRAWING],
    runs,
    summary,
  }),
);
