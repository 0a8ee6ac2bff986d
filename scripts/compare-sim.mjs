#!/usr/bin/env node
// Identical-results check for speed-only changes: runs a set of simulated `locus run --json
// --trace` runs (every scheduler on matmul2d and cholesky, with and without memory pressure,
// and the eviction and clean-buffer variants) with two built trees, and compares the JSON
// reports field by field (wall-clock fields ignored) and the Chrome traces byte for byte (but the
// wall-clock fields of the report they carry).
//
//   node scripts/compare-sim.mjs OLD_TREE [NEW_TREE (default: this one)] [--quick]
//
// Each tree must be built (dist/). Exits 1 when any run differs.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const quick = process.argv.includes('--quick');
if (args.length < 1) {
  process.stderr.write('usage: compare-sim.mjs OLD_TREE [NEW_TREE] [--quick]\n');
  process.exit(2);
}
const oldTree = resolve(args[0]);
const newTree = resolve(args[1] ?? new URL('..', import.meta.url).pathname);

const SCHEDULERS = [
  'eager',
  'random',
  'static',
  'supermatrix',
  'supermatrix-noprio',
  'dm',
  'dmda',
  'dmdar',
  'dmdas',
  'heft-tm',
  'heft-tm-pr',
  'heft-tmdp',
  'heft-tmdp-pr',
  'heft-tm-init',
  'heft-tmdp-init',
  'ws',
  'prio',
  'darts',
  'darts+luf',
  'hfp',
];
const WORKLOADS = [
  ['-w', 'matmul2d', '-n', '24', '--tile-size', '256', '--gpu-mem', '60MB'],
  ['-w', 'matmul2d', '-n', '16', '--tile-size', '256'],
  ['-w', 'cholesky', '-n', '16', '--tile-size', '512', '--gpu-mem', '40MB'],
  ['-w', 'cholesky', '-n', '12', '--tile-size', '512'],
];
/** Policy variants beside the scheduler sweep (each one `locus run` argument list, split on spaces). */
const VARIANTS = [
  '-w matmul2d -n 24 --tile-size 256 --gpu-mem 60MB -s dmda -e fifo',
  '-w matmul2d -n 24 --tile-size 256 --gpu-mem 60MB -s dmda -e belady',
  '-w matmul2d -n 24 --tile-size 256 --gpu-mem 60MB -s dmdar -e luf',
  '-w matmul2d -n 24 --tile-size 256 --gpu-mem 60MB -s eager --no-clean-first',
  '-w cholesky -n 16 --tile-size 512 --gpu-mem 40MB -s dmdas --no-clean-first',
  '-w cholesky -n 16 --tile-size 512 --gpu-mem 40MB -s dmda --min-clean 20',
  '-w cholesky -n 16 --tile-size 512 --gpu-mem 40MB -s eager --min-clean 30',
  '-w cholesky -n 16 --tile-size 512 --gpu-mem 40MB -s dm --prefetch',
  '-w matmul2d -n 24 --tile-size 256 --gpu-mem 60MB -s dm --keep-outputs',
  '-w matmul2d -n 24 --tile-size 256 --gpu-mem 60MB -s dmdar --lookahead 4',
  '-w lu -n 12 --tile-size 512 --gpu-mem 40MB -s dmdar',
  '-w random --tasks 2000 --data 300 --gpu-mem 40MB -s dmda --noise 0.2',
  '-w random --tasks 3000 --data 400 --gpu-mem 40MB -s hfp',
  '-w random --tasks 3000 --data 400 --degree 2 --gpu-mem 20MB -s hfp',
  '-w matmul2d -n 48 --tile-size 256 --gpu-mem 100MB -s hfp',
  '-w matmul2d -n 48 --tile-size 256 --gpu-mem 100MB -s dmdar',
  '-w gemm -n 12 --tile-size 512 --gpu-mem 40MB -s hfp',
  '-w cholesky -n 16 --tile-size 512 --gpu-mem 40MB -s dmdas --priorities bottom-level',
  '-w cholesky -n 16 --tile-size 512 --gpu-mem 40MB -s dmdas --priorities bottom-level -e belady',
  '-w cholesky -n 16 --tile-size 512 --gpu-mem 40MB -s dmdas --priorities bottom-level -e luf',
  '-w lu -n 12 --tile-size 512 --gpu-mem 40MB -s dmdas --priorities bottom-level --noise 0.3',
  '-w matmul2d -n 24 --tile-size 256 --gpu-mem 60MB -s dmdas -e belady',
].map((v) => v.split(' '));
const configs = [];
for (const w of quick ? WORKLOADS.slice(0, 1) : WORKLOADS)
  for (const s of SCHEDULERS) configs.push([...w, '-s', s]);
if (!quick) configs.push(...VARIANTS);

const tmp = mkdtempSync(join(tmpdir(), 'locus-compare-'));

/** Runs one config with `tree`; returns the report (wall-clock fields dropped) and the trace's hash. */
async function once(tree, argv, tag) {
  const trace = join(tmp, `${tag}.json`);
  try {
    const { stdout } = await run(
      process.execPath,
      [join(tree, 'bin/locus.mjs'), 'run', ...argv, '--json', '--no-progress', '--trace', trace],
      { maxBuffer: 1 << 28 },
    );
    const report = JSON.parse(stdout, (k, v) => (/wall/i.test(k) ? undefined : v));
    // The trace's events byte for byte; its `locus` block carries the run report, whose
    // wall-clock fields differ from run to run: dropped before hashing.
    const text = readFileSync(trace, 'utf8').replace(/"(wallS|wall[A-Za-z]*)":[0-9.e+-]+,?/g, '');
    const hash = createHash('sha256').update(text).digest('hex');
    return { report, hash };
  } catch (err) {
    return {
      error: String(err.stderr || err.message)
        .trim()
        .split('\n')[0],
    };
  }
}

/** Paths where two JSON values differ. */
function diff(a, b, path = '') {
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    return Object.is(a, b) ? [] : [`${path || '.'}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`];
  }
  const out = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
    out.push(...diff(a[k], b[k], `${path}.${k}`));
  return out;
}

let failed = 0;
let i = 0;
const queue = configs.map((c, k) => [c, k]);
async function worker() {
  for (let item = queue.shift(); item; item = queue.shift()) {
    const [argv, k] = item;
    const [a, b] = [await once(oldTree, argv, `o${k}`), await once(newTree, argv, `n${k}`)];
    const problems =
      a.error || b.error ? (a.error === b.error ? [] : [`error: ${a.error} vs ${b.error}`]) : [];
    if (!a.error && !b.error) {
      problems.push(...diff(a.report, b.report));
      if (a.hash !== b.hash) problems.push('trace differs');
    }
    i++;
    const label = argv.join(' ');
    if (problems.length > 0) {
      failed++;
      process.stdout.write(`DIFF ${label}\n  ${problems.slice(0, 5).join('\n  ')}\n`);
    } else {
      process.stdout.write(
        `same ${label}${a.error ? ` (both fail: ${a.error})` : ` (${a.report.evictions} evictions)`}\n`,
      );
    }
  }
}
await Promise.all([worker(), worker()]);
rmSync(tmp, { recursive: true, force: true });
process.stdout.write(`${i - failed} of ${i} runs identical\n`);
process.exit(failed > 0 ? 1 : 0);
