/**
 * A long library session in bounded memory (issue 25): a Runtime on the worker threads
 * submits no-op tasks (bench/noop.mjs) over four small data in batches, waiting after each, so
 * that the engine recycles finished tasks' records and the runtime's tables follow. Each size
 * runs in its own process, whose peak RSS is the figure; the baseline is the same session 10x
 * shorter, in the same run: bounded memory means a ratio near 1 (the goal: at most 1.2).
 * `--keep` runs with recycling off (RuntimeOptions.recycle: false), for comparison.
 *
 *   node --import tsx bench/runtime-stream.ts [tasks=10000000] [batch=10000] [--keep]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DATA = 4;

/** What one session reports. */
interface Figures {
  tasks: number;
  batch: number;
  wallS: number;
  tasksPerS: number;
  rssMB: number;
  workers: number;
}

/** One session in this process; prints a JSON line. */
async function child(n: number, batch: number, recycle: boolean): Promise<void> {
  const { Runtime } = await import('../src/exec/runtime.ts');
  // The measurements of the no-op kernel go to a temporary model folder, removed at the end.
  const models = mkdtempSync(join(tmpdir(), 'locus-runtime-stream-'));
  const rt = await Runtime.create({ perfModelDir: models, recycle });
  try {
    const noop = rt.codelet({
      name: 'noop',
      kernel: { module: new URL('./noop.mjs', import.meta.url), export: 'noop' },
    });
    const data = Array.from({ length: DATA }, (_, i) => rt.data(new Float64Array(8), { name: `d${i}` }));
    const t0 = performance.now();
    let tasks = 0;
    for (let done = 0; done < n; done += batch) {
      const k = Math.min(batch, n - done);
      for (let i = 0; i < k; i++) {
        const t = done + i;
        rt.submit(noop, [
          [data[t % DATA]!, 'R'],
          [data[(t + 1) % DATA]!, 'RW'],
        ]);
      }
      tasks = (await rt.wait()).tasks;
    }
    const wallS = (performance.now() - t0) / 1000;
    const figures: Figures = {
      tasks,
      batch,
      wallS,
      tasksPerS: tasks / wallS,
      rssMB: process.resourceUsage().maxRSS / 1024,
      workers: rt.platform.workers.length,
    };
    console.log(JSON.stringify(figures));
  } finally {
    await rt.close();
    rmSync(models, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]), Number(process.argv[4]), process.argv[5] !== 'keep');
} else {
  const args = process.argv.slice(2);
  const keepAt = args.indexOf('--keep');
  const keep = keepAt >= 0;
  if (keep) args.splice(keepAt, 1);
  const n = Number(args[0] ?? 10_000_000);
  const batch = Number(args[1] ?? 10_000);
  const self = fileURLToPath(import.meta.url);
  const run = (tasks: number): Figures => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', self, '--child', String(tasks), String(batch), keep ? 'keep' : 'recycle'],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`runtime-stream child (${tasks} tasks) failed: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop()!);
  };
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(
    `runtime-stream: no-op tasks through a Runtime on worker threads, batches of ${batch}, recycling ${keep ? 'off' : 'on'}`,
  );
  console.log(`  load average before: ${load()}`);
  const base = run(Math.max(batch, Math.floor(n / 10)));
  const full = run(n);
  for (const r of [base, full]) {
    console.log(
      `  ${String(r.tasks).padStart(9)} tasks: ${r.wallS.toFixed(1)} s, ${Math.round(r.tasksPerS)} tasks/s (${r.workers} workers), peak RSS ${r.rssMB.toFixed(0)} MB`,
    );
  }
  console.log(`  peak RSS ratio (x10 tasks): ${(full.rssMB / base.rssMB).toFixed(2)} (goal <= 1.2)`);
  console.log(`  load average after: ${load()}`);
}
