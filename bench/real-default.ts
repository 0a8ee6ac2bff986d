/**
 * Which scheduler real runs should use by default (issue 26, item 3): real runs on emulated
 * devices under each candidate policy, on a quiet machine and with the machine loaded, and
 * what each moved and took. Placement in a real run follows the timing of the moment, so a
 * policy that reads no locality (eager) moves data back and forth when other processes take
 * the cores; StarPU's default is lws (locality work stealing) for that reason.
 *
 * Cases: the iterated Jacobi of the issue (bytes moved per iteration after the first five:
 * the data should stay where they are), a tiled Cholesky and a tiled GEMM on 2 emulated GPUs
 * and 2 CPU workers (bytes moved in all, makespan). Each case, scheduler and round runs as its
 * own `locus run --mode real` process (the compiled CLI: `npm run build` first), interleaved.
 * `--load N` runs N busy-loop processes (plain `node -e 'for(;;){}'`, the machine's default
 * priority) while measuring, as another user's work would. Prints one table per condition and,
 * with `--json`, one JSON object.
 *
 *   node --import tsx bench/real-default.ts [--rounds 3] [--load 0|N] [--scheds eager,lws,...] [--json]
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    load: { type: 'string', default: '0' },
    scheds: { type: 'string', default: 'eager,lws,ws,dmdar' },
    json: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const load = Number(values.load);
const scheds = values.scheds.split(',');
if (!(Number.isInteger(rounds) && rounds > 0) || !(Number.isInteger(load) && load >= 0)) {
  process.stderr.write('real-default: --rounds must be a positive integer, --load a non-negative one\n');
  process.exit(2);
}

interface Case {
  name: string;
  args: string[];
  /** Report bytes per iteration from this iteration on (iterated workloads). */
  steadyFrom?: number;
}
const CASES: Case[] = [
  {
    name: 'jacobi 8x8 tiles of 64, 50 iterations, 2 GPUs of 4 MiB',
    args: '--workload jacobi --tiles 8 --tile-size 64 --iterations 50 --gpus 2 --gpu-mem 4MiB'.split(' '),
    steadyFrom: 5,
  },
  {
    name: 'cholesky 8x8 tiles of 128, 2 GPUs of 2 MiB + 2 CPUs',
    args: '--workload cholesky --tiles 8 --tile-size 128 --gpus 2 --cpus 2 --gpu-mem 2MiB'.split(' '),
  },
  {
    name: 'gemm 6x6 tiles of 128, 2 GPUs of 2 MiB + 2 CPUs',
    args: '--workload gemm --tiles 6 --tile-size 128 --gpus 2 --cpus 2 --gpu-mem 2MiB'.split(' '),
  },
];

const BIN = new URL('../bin/locus.mjs', import.meta.url).pathname;
const models = mkdtempSync(join(tmpdir(), 'locus-real-default-'));

interface Sample {
  makespanS: number;
  bytes: number;
  steadyBytes: number | undefined;
  residual: number;
}

interface Report {
  makespanS: number;
  bytesToDevices: number;
  bytesFromDevices: number;
  bytesDeviceToDevice: number;
  residual: number;
  iterations?: { bytesToDevices: number; bytesFromDevices: number; bytesDeviceToDevice: number }[];
}

function runOnce(c: Case, sched: string): Sample {
  const r = spawnSync(
    process.execPath,
    [BIN, 'run', '--mode', 'real', ...c.args, '--sched', sched, '--check', '--json'],
    {
      encoding: 'utf8',
      env: { ...process.env, LOCUS_PERFMODEL_DIR: models },
    },
  );
  if (r.status !== 0)
    throw new Error(`${c.name} under ${sched} failed: ${r.stderr.trim().split('\n').pop()}`);
  const j = JSON.parse(r.stdout) as Report;
  const moved = (x: { bytesToDevices: number; bytesFromDevices: number; bytesDeviceToDevice: number }) =>
    x.bytesToDevices + x.bytesFromDevices + x.bytesDeviceToDevice;
  const later = c.steadyFrom !== undefined && j.iterations ? j.iterations.slice(c.steadyFrom) : undefined;
  return {
    makespanS: j.makespanS,
    bytes: moved(j),
    steadyBytes:
      later && later.length > 0 ? later.reduce((s, x) => s + moved(x), 0) / later.length : undefined,
    residual: j.residual,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const loaders: ChildProcess[] = [];
for (let i = 0; i < load; i++)
  loaders.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
const stopLoaders = () => {
  for (const p of loaders) p.kill('SIGKILL');
};
process.on('exit', stopLoaders);
const loadBefore = loadavg()[0]!;
const cpu0 = process.cpuUsage();
const samples = new Map<string, Sample[]>();
try {
  for (let r = 0; r < rounds; r++)
    for (const c of CASES)
      for (const s of scheds) {
        const key = `${c.name}\u0000${s}`;
        const list = samples.get(key) ?? [];
        list.push(runOnce(c, s));
        samples.set(key, list);
        process.stderr.write(`[real-default] round ${r + 1}/${rounds} ${c.name.split(' ')[0]} ${s}\n`);
      }
} finally {
  stopLoaders();
}
void cpu0;
const rows = CASES.flatMap((c) =>
  scheds.map((s) => {
    const xs = samples.get(`${c.name}\u0000${s}`)!;
    const steady = xs.map((x) => x.steadyBytes).filter((x): x is number => x !== undefined);
    return {
      case: c.name,
      sched: s,
      makespanS: median(xs.map((x) => x.makespanS)),
      bytes: median(xs.map((x) => x.bytes)),
      steadyBytesPerIteration: steady.length > 0 ? median(steady) : undefined,
      steadyBytesMax: steady.length > 0 ? Math.max(...steady) : undefined,
      worstResidual: Math.max(...xs.map((x) => x.residual)),
    };
  }),
);
const result = { load, rounds, loadAverage: [loadBefore, loadavg()[0]!], rows };
if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
else {
  process.stdout.write(
    `busy-loop processes: ${load}; load average ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after; medians of ${rounds} rounds\n`,
  );
  for (const x of rows)
    process.stdout.write(
      `${x.case.padEnd(56)} ${x.sched.padEnd(6)} makespan ${x.makespanS.toFixed(3)} s  moved ${(x.bytes / 1024).toFixed(0)} KiB${x.steadyBytesPerIteration === undefined ? '' : `  per later iteration ${(x.steadyBytesPerIteration / 1024).toFixed(1)} KiB (max ${(x.steadyBytesMax! / 1024).toFixed(1)})`}\n`,
    );
}
