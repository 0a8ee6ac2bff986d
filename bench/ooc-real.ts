/**
 * Real runs out of core (issue 30): makespan, wall and CPU time of `locus run --mode real -w
 * cholesky --host-mem ... --disk DIR --check` under the default scheduler (lws) in RAM (no
 * `--host-mem`, no `--disk`: what out of core costs), out of core with and without the read-ahead from the disk (`--read-ahead`, src/exec/read-ahead.ts), and under darts+luf with
 * and without its host level (`--no-darts-host-level`, src/sched/darts/host-level.ts). Each
 * variant and round runs as its own process (the compiled CLI: `npm run build` first), the
 * variants interleaved round by round so that a change of the machine's load falls on all of
 * them; the disk folder is a fresh one under the system's temporary directory, removed by the
 * run. Reports per case and variant the median, min and max of the makespan, the medians of the
 * process's wall and CPU time (user + system, from bash's `time`), the bytes read from the
 * disk and read ahead, and the largest residual (0: bit for bit the sequential run). The load
 * average (1 min) at the start and the end comes with it: the machine is shared.
 *
 *   node --import tsx bench/ooc-real.ts [--rounds 5] [--json]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, json: { type: 'boolean', default: false } },
});
const rounds = Number(values.rounds);
if (!(Number.isInteger(rounds) && rounds > 0)) {
  process.stderr.write('ooc-real: --rounds must be a positive integer\n');
  process.exit(2);
}

/** A problem out of core: its size and host memory cap. */
const CASES = [
  {
    name: 'cholesky 8x8 tiles of 128, 1 MiB',
    args: ['--tiles', '8', '--tile-size', '128'],
    hostMem: '1MiB',
  },
  {
    name: 'cholesky 16x16 tiles of 256, 17 MiB',
    args: ['--tiles', '16', '--tile-size', '256'],
    hostMem: '17MiB',
  },
];

/** The settings compared. */
const VARIANTS = [
  { name: 'lws, in RAM', args: [] as string[], inRam: true },
  { name: 'lws', args: [] as string[] },
  { name: 'lws --read-ahead', args: ['--read-ahead'] },
  { name: 'darts+luf --no-darts-host-level', args: ['-s', 'darts+luf', '--no-darts-host-level'] },
  { name: 'darts+luf', args: ['-s', 'darts+luf'] },
];

/** One run's figures. */
interface Sample {
  makespanMs: number;
  wallS: number;
  cpuS: number;
  residual: number;
  bytesRead: number;
  bytesReadAhead: number;
}

/** Runs one variant of one case in its own process. */
function runOnce(args: string[], inRam: boolean): Sample {
  const dir = mkdtempSync(join(tmpdir(), 'locus-ooc-bench-'));
  try {
    const cmd = ['node', 'bin/locus.mjs', 'run', '--mode', 'real', '-w', 'cholesky', ...args];
    if (!inRam) cmd.push('--disk', dir);
    cmd.push('--check', '--json', '--no-record');
    const script = `TIMEFORMAT='%R %U %S'; { time ${cmd.map((a) => `'${a}'`).join(' ')} > "$OUT" ; } 2>&1 | tail -1`;
    const out = join(dir, 'out.json');
    const times = execFileSync('bash', ['-c', script], {
      encoding: 'utf8',
      env: { ...process.env, OUT: out },
    });
    const [wall, user, sys] = times.trim().split(/\s+/).map(Number);
    const r = JSON.parse(execFileSync('cat', [out], { encoding: 'utf8' }));
    return {
      makespanMs: r.makespanS * 1000,
      wallS: wall!,
      cpuS: user! + sys!,
      residual: r.residual,
      bytesRead: r.outOfCore?.bytesRead ?? 0,
      bytesReadAhead: r.outOfCore?.bytesReadAhead ?? 0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const loadStart = loadavg()[0]!;
const samples = new Map<string, Sample[]>();
for (let round = 0; round < rounds; round++) {
  for (const c of CASES) {
    for (const v of VARIANTS) {
      const key = `${c.name}|${v.name}`;
      const inRam = 'inRam' in v && v.inRam === true;
      const s = runOnce([...c.args, ...(inRam ? [] : ['--host-mem', c.hostMem]), ...v.args], inRam);
      if (!samples.has(key)) samples.set(key, []);
      samples.get(key)!.push(s);
    }
  }
}
const loadEnd = loadavg()[0]!;

const rows = [...samples.entries()].map(([key, s]) => {
  const [caseName, variant] = key.split('|');
  const ms = s.map((x) => x.makespanMs);
  return {
    case: caseName!,
    variant: variant!,
    runs: s.length,
    makespanMs: { median: median(ms), min: Math.min(...ms), max: Math.max(...ms) },
    wallS: median(s.map((x) => x.wallS)),
    cpuS: median(s.map((x) => x.cpuS)),
    bytesRead: median(s.map((x) => x.bytesRead)),
    bytesReadAhead: median(s.map((x) => x.bytesReadAhead)),
    residual: Math.max(...s.map((x) => x.residual)),
  };
});
if (values.json) {
  process.stdout.write(`${JSON.stringify({ rounds, loadStart, loadEnd, rows }, null, 2)}\n`);
} else {
  process.stdout.write(
    `load average ${loadStart.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end\n`,
  );
  for (const r of rows) {
    process.stdout.write(
      `${r.case.padEnd(38)} ${r.variant.padEnd(32)} makespan ${r.makespanMs.median.toFixed(1)} ms [${r.makespanMs.min.toFixed(1)}-${r.makespanMs.max.toFixed(1)}]  wall ${r.wallS.toFixed(2)} s  cpu ${r.cpuS.toFixed(2)} s  read ${(r.bytesRead / 2 ** 20).toFixed(1)} MiB (${(r.bytesReadAhead / 2 ** 20).toFixed(1)} ahead)  residual ${r.residual}\n`,
    );
  }
}
