/**
 * An endless stream in bounded memory (issues 10 and 25): tiny tasks submitted by a task
 * source through a window (the simulator's application thread), finished tasks' records
 * recycled, under each scheduler given (default eager, dmdar, darts+luf and hfp: LRU, LUF,
 * Belady). Each size runs in its own process, whose peak RSS is the figure; the baseline is
 * the same stream 10x shorter, in the same run: bounded memory means a ratio near 1.
 *
 *   node --import tsx bench/stream.ts [tasks=10000000] [window=10000] [--sched eager,dmdar,...]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const HANDLES = 1000;

/** One stream run in this process; prints a JSON line. */
async function child(n: number, window: number, spec: string): Promise<void> {
  const { TaskGraph } = await import('../src/core/graph.ts');
  const { AccessMode } = await import('../src/core/types.ts');
  const { simulate } = await import('../src/sim/simulate.ts');
  const { resolvePlatform } = await import('../src/platform/presets.ts');
  const g = new TaskGraph();
  g.addCodelet({ name: 'tiny', kinds: ['cpu', 'gpu'] });
  for (let h = 0; h < HANDLES; h++) g.addHandle(64 * 1024);
  let next = 0;
  let maxGraph = 0;
  const source = (graph: typeof g, max: number): number => {
    maxGraph = Math.max(maxGraph, graph.taskCount);
    const k = Math.min(max, n - next);
    for (let i = 0; i < k; i++, next++) {
      const x = (next * 2654435761) >>> 0;
      const a = x % HANDLES;
      const c = (a + 1 + ((x >>> 12) % (HANDLES - 1))) % HANDLES;
      graph.submit(
        0,
        [
          [a, AccessMode.R],
          [c, AccessMode.RW],
        ],
        { flops: 1e5 },
      );
    }
    return k;
  };
  const platform = resolvePlatform('v100x2', {});
  const t0 = performance.now();
  const [scheduler, eviction] = spec.split('+');
  const { report } = simulate({ graph: g, platform, scheduler, eviction, submitWindow: window, source });
  const wallS = (performance.now() - t0) / 1000;
  const rssMB = process.resourceUsage().maxRSS / 1024;
  console.log(
    JSON.stringify({ tasks: report.tasks, window, wallS, tasksPerS: report.tasks / wallS, rssMB, maxGraph }),
  );
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]), Number(process.argv[4]), process.argv[5]!);
} else {
  const args = process.argv.slice(2);
  const schedAt = args.indexOf('--sched');
  const specs =
    schedAt >= 0 ? args.splice(schedAt, 2)[1]!.split(',') : ['eager', 'dmdar', 'darts+luf', 'hfp'];
  const n = Number(args[0] ?? 10_000_000);
  const window = Number(args[1] ?? 10_000);
  const self = fileURLToPath(import.meta.url);
  const run = (
    tasks: number,
    spec: string,
  ): { tasks: number; wallS: number; tasksPerS: number; rssMB: number; maxGraph: number } => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', self, '--child', String(tasks), String(window), spec],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`stream child (${spec}) failed: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop()!);
  };
  console.log('stream: tiny tasks through a task source, window', window, '(v100x2)');
  for (const spec of specs) {
    const base = run(Math.max(window, Math.floor(n / 10)), spec);
    const full = run(n, spec);
    console.log(`  ${spec}:`);
    for (const r of [base, full]) {
      console.log(
        `    ${String(r.tasks).padStart(9)} tasks: ${r.wallS.toFixed(1)} s, ${Math.round(r.tasksPerS)} tasks/s, peak RSS ${r.rssMB.toFixed(0)} MB, graph at most ${r.maxGraph} tasks`,
      );
    }
    console.log(`    peak RSS ratio (x10 tasks): ${(full.rssMB / base.rssMB).toFixed(2)}`);
  }
}
