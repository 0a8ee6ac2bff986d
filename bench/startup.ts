/**
 * `npm run bench` (first part): start-up of the `locus` command as whole processes. Times
 * `node -e 0`, `locus --version`, `locus --help` and a tiny `locus run` (the compiled command,
 * bin/locus.mjs), interleaved, and prints the median and best wall time of each with its
 * ratio to `node -e 0`'s median measured in the same run.
 *
 *   node --import tsx bench/startup.ts [--runs N]   (default 15 runs per command, after one warm-up)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 15;
if (!Number.isInteger(RUNS) || RUNS < 1) {
  process.stderr.write('bench/startup: --runs must be a positive integer\n');
  process.exit(2);
}

const CASES: { name: string; args: string[] }[] = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'locus --version', args: ['bin/locus.mjs', '--version'] },
  { name: 'locus --help', args: ['bin/locus.mjs', '--help'] },
  { name: 'locus run -w cholesky -n 4', args: ['bin/locus.mjs', 'run', '-w', 'cholesky', '-n', '4'] },
];

/** Wall time of one whole process, in ms; exits the bench if the process fails. */
function time(args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) {
    process.stderr.write(`bench/startup: node ${args.join(' ')} exited with ${r.status}: ${r.stderr}`);
    process.exit(1);
  }
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const samples = CASES.map(() => [] as number[]);
for (const c of CASES) time(c.args); // warm-up: file cache
for (let i = 0; i < RUNS; i++) {
  for (const [k, c] of CASES.entries()) samples[k]!.push(time(c.args));
}

const base = median(samples[0]!);
console.log(`start-up, whole processes (${RUNS} runs each, interleaved; Node ${process.version})`);
console.log(
  `${'command'.padEnd(30)} ${'median'.padStart(9)} ${'best'.padStart(9)} ${'x node -e 0'.padStart(12)}`,
);
CASES.forEach((c, k) => {
  const m = median(samples[k]!);
  const best = Math.min(...samples[k]!);
  console.log(
    `${c.name.padEnd(30)} ${`${m.toFixed(0)} ms`.padStart(9)} ${`${best.toFixed(0)} ms`.padStart(9)} ${(m / base).toFixed(2).padStart(12)}`,
  );
});
