/**
 * This tree's simulator speed against another built tree's (an earlier commit built in a
 * temporary folder: `git archive REV | tar -x -C DIR`, node_modules linked, `npx tsc -p
 * tsconfig.build.json`), interleaved in one run so that a shared, noisy machine weighs on both
 * alike: for each case and round, one process per tree imports that tree's dist/, generates the
 * graph and measures simulate() in tasks per CPU-second (process.cpuUsage). Prints the median
 * per tree, the ratio and the load average; checks that both trees simulate the same makespan.
 * With `--warm W`, each process first simulates the case W times unmeasured (bench/run.ts's
 * warm-up rounds: V8 has compiled the hot paths before the measured run), so the ratio is the
 * steady state's rather than a cold process's.
 *
 *   node --import tsx bench/vs-tree.ts [--warm W] OLD_TREE [rounds=3] [case-filter]
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Case {
  name: string;
  workload: string;
  tiles: number;
  tileSize?: number;
  sched: string;
  /** GPU memory in bytes (default: the preset's 500 MiB). */
  gpuMem?: number;
}

const CASES: Case[] = [
  { name: 'eager matmul2d 317 (500 MiB)', workload: 'matmul2d', tiles: 317, sched: 'eager' },
  { name: 'dmda matmul2d 317 (500 MiB)', workload: 'matmul2d', tiles: 317, sched: 'dmda' },
  { name: 'dmdar matmul2d 317 (500 MiB)', workload: 'matmul2d', tiles: 317, sched: 'dmdar' },
  { name: 'hfp matmul2d 317 (500 MiB)', workload: 'matmul2d', tiles: 317, sched: 'hfp' },
  {
    name: 'eager matmul2d 317 t256 100 MB',
    workload: 'matmul2d',
    tiles: 317,
    tileSize: 256,
    sched: 'eager',
    gpuMem: 100e6,
  },
  {
    name: 'dmda matmul2d 317 t256 100 MB',
    workload: 'matmul2d',
    tiles: 317,
    tileSize: 256,
    sched: 'dmda',
    gpuMem: 100e6,
  },
  {
    name: 'dmdar matmul2d 317 t256 100 MB',
    workload: 'matmul2d',
    tiles: 317,
    tileSize: 256,
    sched: 'dmdar',
    gpuMem: 100e6,
  },
  {
    name: 'hfp matmul2d 317 t256 100 MB',
    workload: 'matmul2d',
    tiles: 317,
    tileSize: 256,
    sched: 'hfp',
    gpuMem: 100e6,
  },
  {
    name: 'dmdas cholesky 84 t256 100 MB',
    workload: 'cholesky',
    tiles: 84,
    tileSize: 256,
    sched: 'dmdas',
    gpuMem: 100e6,
  },
];

/** One case with `tree`'s build in this process, after `warm` unmeasured runs; prints a JSON line. */
async function child(tree: string, c: Case, warm: number): Promise<void> {
  const { simModules, timedSimulation } = await import('./timed-sim.ts');
  const params: Record<string, number> = { tiles: c.tiles };
  if (c.tileSize !== undefined) params.tileSize = c.tileSize;
  const m = await simModules(tree);
  for (let i = 0; i < warm; i++) timedSimulation(m, c.workload, params, c.sched, c.gpuMem);
  const { report, cpu } = timedSimulation(m, c.workload, params, c.sched, c.gpuMem);
  process.stdout.write(`${JSON.stringify({ rate: report.tasks / cpu, makespan: report.makespanS })}\n`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1]!, JSON.parse(args[2]!) as Case, Number(args[3]));
  let warm = 0;
  const w = args.indexOf('--warm');
  if (w >= 0) {
    warm = Number(args[w + 1]);
    args.splice(w, 2);
  }
  if (args.length < 1 || !(Number.isInteger(warm) && warm >= 0)) {
    process.stderr.write('usage: vs-tree.ts [--warm W] OLD_TREE [rounds=3] [case-filter]\n');
    process.exit(2);
  }
  const oldTree = resolve(args[0]!);
  const newTree = fileURLToPath(new URL('..', import.meta.url));
  const rounds = Number(args[1] ?? 3);
  const filter = args[2];
  console.log(
    `simulated tasks per CPU-second, ${oldTree} -> this tree; median of ${rounds} interleaved rounds` +
      (warm > 0 ? `, each after ${warm} warm-up runs in its process` : ', each a cold process'),
  );
  for (const c of CASES) {
    if (filter !== undefined && !c.name.includes(filter)) continue;
    const rates: [number[], number[]] = [[], []];
    const makespans = new Set<number>();
    const load0 = loadavg()[0]!;
    for (let r = 0; r < rounds; r++) {
      [oldTree, newTree].forEach((tree, i) => {
        const out = spawnSync(
          process.execPath,
          [
            '--import',
            'tsx',
            fileURLToPath(import.meta.url),
            '--child',
            tree,
            JSON.stringify(c),
            String(warm),
          ],
          {
            encoding: 'utf8',
          },
        );
        if (out.status !== 0) throw new Error(`${c.name} with ${tree}: ${out.stderr}`);
        const res = JSON.parse(out.stdout.trim().split('\n').pop()!) as { rate: number; makespan: number };
        rates[i]!.push(res.rate);
        makespans.add(res.makespan);
      });
    }
    const [a, b] = [median(rates[0]), median(rates[1])];
    const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
    console.log(
      `  ${c.name}: ${fmt(a)} -> ${fmt(b)} tasks/CPU-s (${(b / a).toFixed(2)}x)` +
        `${makespans.size === 1 ? '' : ' MAKESPANS DIFFER'}; load ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`,
    );
  }
}

await main();
