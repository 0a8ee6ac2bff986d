/**
 * `npm run bench` (MPI part): ping-pong latency (1 KB messages, half a round trip) and bandwidth
 * (16 MB messages) between 2 ranks on this machine, through the addon (bench/mpi-pingpong-rank.ts)
 * and through the same exchange in C (bench/mpi-pingpong.c, compiled now with mpicc: the same
 * Open MPI), alternated `--rounds` times; prints the median over the runs of each figure and
 * the ratios addon / C. Each run gives the mean over its round trips and the median round trip:
 * on a shared machine, preemptions stall a few round trips for milliseconds and dominate the
 * mean, while the median shows the cost of one message.
 * Skips with one line where mpirun, mpicc or the addon is missing.
 *
 *   node --import tsx bench/mpi-pingpong.ts [--rounds N] [--spin-us US]
 * (--rounds: default 3; --spin-us: Mpi.init's spinUs in the addon runs, default its own default)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addonPath } from '../src/cluster/addon.ts';
import { DEFAULT_SPIN_US } from '../src/cluster/mpi.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const roundsFlag = process.argv.indexOf('--rounds');
const ROUNDS = roundsFlag > 0 ? Number(process.argv[roundsFlag + 1]) : 3;
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  process.stderr.write('bench/mpi-pingpong: --rounds must be a positive integer\n');
  process.exit(2);
}
const spinFlag = process.argv.indexOf('--spin-us');
const SPIN_US = spinFlag > 0 ? Number(process.argv[spinFlag + 1]) : DEFAULT_SPIN_US;
if (!Number.isFinite(SPIN_US) || SPIN_US < 0 || SPIN_US > 1e6) {
  process.stderr.write('bench/mpi-pingpong: --spin-us must be a number of microseconds from 0 to 1000000\n');
  process.exit(2);
}
const LAT_ITERS = 2000;
const BW_ITERS = 20;

const missing =
  spawnSync('mpirun', ['--version'], { stdio: 'ignore' }).status !== 0
    ? 'mpirun'
    : spawnSync('mpicc', ['--showme:version'], { stdio: 'ignore' }).status !== 0
      ? 'mpicc'
      : !existsSync(addonPath())
        ? `the MPI addon (${addonPath()})`
        : undefined;
if (missing) {
  console.log(`mpi ping-pong: skipped, ${missing} is missing`);
  process.exit(0);
}

const bin = join(mkdtempSync(join(tmpdir(), 'locus-pingpong-')), 'pingpong');
const cc = spawnSync('mpicc', ['-O2', '-o', bin, join(root, 'bench', 'mpi-pingpong.c')], {
  encoding: 'utf8',
});
if (cc.status !== 0) {
  process.stderr.write(`bench/mpi-pingpong: mpicc failed:\n${cc.stderr}`);
  process.exit(1);
}

/** What one 2-rank run reports (rank 0's JSON line). */
interface PingPong {
  /** Mean and median half round trip of 1 KB messages, microseconds. */
  latencyUs: number;
  latencyMedianUs: number;
  /** Bandwidth of 16 MB messages over all round trips, and from the median round trip, MB/s. */
  bandwidthMBs: number;
  bandwidthMedianMBs: number;
}

/** One 2-rank run; its JSON line. */
function run(cmd: string[], blocking = false): PingPong {
  const r = spawnSync(
    'mpirun',
    [
      '--allow-run-as-root',
      '--oversubscribe',
      '-np',
      '2',
      '-x',
      'LOCUS_BENCH_SPIN_US',
      '-x',
      'LOCUS_BENCH_BLOCKING',
      ...cmd,
      String(LAT_ITERS),
      String(BW_ITERS),
    ],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 300_000,
      killSignal: 'SIGKILL',
      env: {
        ...process.env,
        LOCUS_BENCH_SPIN_US: String(SPIN_US),
        LOCUS_BENCH_BLOCKING: blocking ? '1' : '0',
      },
    },
  );
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  if (r.status !== 0 || !line) {
    process.stderr.write(
      `bench/mpi-pingpong: ${cmd.join(' ')} failed (${r.status ?? r.signal}):\n${r.stderr}`,
    );
    process.exit(1);
  }
  return JSON.parse(line);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const c: PingPong[] = [];
const node: PingPong[] = [];
const nodeBlocking: PingPong[] = [];
const rank = [process.execPath, '--import', 'tsx', 'bench/mpi-pingpong-rank.ts'];
for (let i = 0; i < ROUNDS; i++) {
  c.push(run([bin]));
  node.push(run(rank));
  nodeBlocking.push(run(rank, true));
}
/**
 * One line: the median over the runs of `key` in C, through the addon's non-blocking calls
 * (await) and its blocking ones, and the ratios to C.
 */
function line(label: string, key: keyof PingPong, unit: string, digits: number): string {
  const cv = median(c.map((x) => x[key]));
  const nv = median(node.map((x) => x[key]));
  const bv = median(nodeBlocking.map((x) => x[key]));
  const f = (v: number) => `${v.toFixed(digits)} ${unit}`;
  return (
    `  ${label.padEnd(37)} C ${f(cv)}; addon await ${f(nv)} (x${(nv / cv).toFixed(2)}), ` +
    `blocking ${f(bv)} (x${(bv / cv).toFixed(2)})`
  );
}
console.log(
  `mpi ping-pong, 2 ranks on this machine, median of ${ROUNDS} alternated runs (addon spinUs ${SPIN_US}); ` +
    'addon await: isend/irecv completed by the event-loop polling; blocking: send/recv; (xR): R times C',
);
console.log(line('latency 1 KB, median round trip / 2:', 'latencyMedianUs', 'us', 2));
console.log(line('latency 1 KB, mean:', 'latencyUs', 'us', 2));
console.log(line('bandwidth 16 MB, median round trip:', 'bandwidthMedianMBs', 'MB/s', 0));
console.log(line('bandwidth 16 MB, mean:', 'bandwidthMBs', 'MB/s', 0));
