/**
 * Every policy at scale (issue 25): for every registered scheduler (and darts+luf), matmul2d
 * at 10k, 100k and 1M tasks (tile size 256, GPUs capped at 100 MB so that every size evicts)
 * and Cholesky at about 10k and 100k tasks, on v100x2. Each point runs in its own process and
 * reports simulated tasks per CPU-second of the simulation (process.cpuUsage around
 * simulate(), graph generation excluded) and the process's peak RSS. Then the checks: each
 * scheduler's cost per task at the largest matmul2d size against 10k (goal: within 2x), and
 * the dm family's against eager at 100k (goal: within 3x). Points past the time limit are
 * reported as such.
 *
 *   node --import tsx bench/scale.ts [largest=100k|10k|1m] [scheduler,...] [--limit=SECONDS]
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

interface Point {
  workload: 'matmul2d' | 'cholesky';
  /** Label of the size ("10k"). */
  label: string;
  tiles: number;
}

const MATMUL: Point[] = [
  { workload: 'matmul2d', label: '10k', tiles: 100 },
  { workload: 'matmul2d', label: '100k', tiles: 317 },
  { workload: 'matmul2d', label: '1M', tiles: 1000 },
];
// Cholesky of N tiles has N (N + 1) (N + 2) / 6 tasks: 39 -> 10,660; 84 -> 102,340.
const CHOLESKY: Point[] = [
  { workload: 'cholesky', label: '10k', tiles: 39 },
  { workload: 'cholesky', label: '100k', tiles: 84 },
];
const GPU_MEM = 100e6;
const TILE = 256;

/** One point in this process; prints a JSON line. */
async function child(workload: string, tiles: number, spec: string): Promise<void> {
  const { simModules, timedSimulation } = await import('./timed-sim.ts');
  const { report, cpu } = timedSimulation(
    await simModules(),
    workload,
    { tiles, tileSize: TILE },
    spec,
    GPU_MEM,
  );
  process.stdout.write(
    `${JSON.stringify({ tasks: report.tasks, cpu, evictions: report.evictions, rssMiB: process.resourceUsage().maxRSS / 1024 })}\n`,
  );
}

interface Result {
  tasks: number;
  cpu: number;
  evictions: number;
  rssMiB: number;
}

/** Runs one point in a child process; undefined past the time limit. */
function point(p: Point, spec: string, limitS: number): Result | undefined | string {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', p.workload, String(p.tiles), spec],
    { encoding: 'utf8', timeout: limitS * 1000, maxBuffer: 1 << 20 },
  );
  if (r.error || r.signal) return undefined;
  if (r.status !== 0) return r.stderr.trim().split('\n').pop() ?? 'failed';
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Result;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1]!, Number(args[2]), args[3]!);
  const limitArg = args.find((a) => a.startsWith('--limit='));
  const limitS = limitArg ? Number(limitArg.slice('--limit='.length)) : 120;
  const plain = args.filter((a) => !a.startsWith('--'));
  const largest = (plain[0] ?? '100k').toLowerCase();
  const sizes = largest === '1m' ? 3 : largest === '10k' ? 1 : 2;
  const { SCHEDULERS } = await import('../src/sched/index.ts');
  const specs = plain[1] ? plain[1].split(',') : [...Object.keys(SCHEDULERS), 'darts+luf'];
  const points = [...MATMUL.slice(0, sizes), ...CHOLESKY.slice(0, Math.min(sizes, 2))];
  console.log(
    `scale: v100x2, GPUs of ${GPU_MEM / 1e6} MB, tile ${TILE}; simulated tasks per CPU-second, peak RSS ` +
      `(Node ${process.version}, ${cpus().length} CPUs, load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')})`,
  );
  const rate = new Map<string, number>(); // "spec workload label" -> tasks per CPU-second
  for (const spec of specs) {
    const cells: string[] = [];
    for (const p of points) {
      const r = point(p, spec, limitS);
      const name = `${p.workload} ${p.label}`;
      if (r === undefined) cells.push(`${name}: over ${limitS} s`);
      else if (typeof r === 'string') cells.push(`${name}: ${r}`);
      else {
        const perS = r.tasks / r.cpu;
        rate.set(`${spec} ${p.workload} ${p.label}`, perS);
        cells.push(`${name}: ${Math.round(perS).toLocaleString('en-US')}/s, ${Math.round(r.rssMiB)} MiB`);
      }
    }
    const top = MATMUL[sizes - 1]!.label;
    const small = rate.get(`${spec} matmul2d 10k`);
    const big = rate.get(`${spec} matmul2d ${top}`);
    const ratio = small !== undefined && big !== undefined && sizes > 1 ? small / big : undefined;
    // 10k includes the JIT's warm-up: 1M against 100k is the sterner figure.
    const mid = rate.get(`${spec} matmul2d 100k`);
    const late =
      sizes === 3 && mid !== undefined && big !== undefined ? `, 1M / 100k: ${(mid / big).toFixed(2)}x` : '';
    const verdict =
      ratio === undefined
        ? ''
        : `; cost per task ${top} / 10k: ${ratio.toFixed(2)}x ${ratio <= 2 ? 'ok' : 'OVER 2x'}${late}`;
    console.log(`  ${spec}: ${cells.join('; ')}${verdict}`);
  }
  const eager = rate.get('eager matmul2d 100k');
  if (eager !== undefined) {
    for (const spec of specs.filter((s) => /^(dm|heft)/.test(s))) {
      const r = rate.get(`${spec} matmul2d 100k`);
      if (r === undefined) continue;
      const x = eager / r;
      console.log(
        `  ${spec} vs eager at 100k: ${x.toFixed(2)}x the cost per task ${x <= 3 ? 'ok' : 'OVER 3x'}`,
      );
    }
  }
  console.log(`  load after: ${loadavg()[0]!.toFixed(2)}`);
}

await main();
