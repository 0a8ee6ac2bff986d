/**
 * A deterministic stream for the recycling checks: 40 data of 4,000 bytes, each task reads two
 * and updates a third (a seeded draw, priorities 0 to 2, 1e6 to 3e6 flops), submitted by a task
 * source through a window; two GPUs of five data each, so that every policy evicts.
 */
import { TaskGraph } from '../../src/core/graph.ts';
import type { Scheduler } from '../../src/core/policy.ts';
import { AccessMode } from '../../src/core/types.ts';
import { simulate } from '../../src/sim/simulate.ts';
import type { TaskSource } from '../../src/sim/simulator.ts';
import { testPlatform } from './platforms.ts';

const { R, RW } = AccessMode;
const HANDLES = 40;

/** The stream's platform: 2 GPUs of 5 data, 2 CPUs, peer-to-peer. */
export const streamPlatform = testPlatform({ gpus: 2, gpuCapacity: 5 * 4000, cpus: 2, p2p: true });

/** Declares the codelet and data every stream task uses. */
export function prepareStream(g: TaskGraph): void {
  g.addCodelet({ name: 'k', kinds: ['cpu', 'gpu'] });
  for (let h = 0; h < HANDLES; h++) g.addHandle(4000);
}

/** Appends task i of the stream to `g`. */
export function addStreamTask(g: TaskGraph, i: number): void {
  const x = (i * 2654435761) >>> 0;
  const a = x % HANDLES;
  const b = (a + 1 + ((x >>> 8) % (HANDLES - 1))) % HANDLES;
  let c = (x >>> 16) % HANDLES;
  while (c === a || c === b) c = (c + 1) % HANDLES;
  g.submit(
    0,
    [
      [a, R],
      [b, R],
      [c, RW],
    ],
    { flops: 1e6 * (1 + (x % 3)), priority: (x >>> 4) % 3 },
  );
}

/** A source of the stream's first `n` tasks that records the largest graph it saw. */
export function streamSource(n: number, seen: { maxTasks: number }): TaskSource {
  let next = 0;
  return (g, max) => {
    seen.maxTasks = Math.max(seen.maxTasks, g.taskCount);
    const k = Math.min(max, n - next);
    for (let i = 0; i < k; i++) addStreamTask(g, next++);
    return k;
  };
}

/** A report without its wall-clock fields (comparable between runs). */
export function comparableReport(r: ReturnType<typeof simulate>['report']): unknown {
  return JSON.parse(JSON.stringify(r, (k, v) => (/wall|scheduling|tasksPerS/i.test(k) ? undefined : v)));
}

/** One run of the stream's first `n` tasks through `window`, records recycled or kept. */
export function runStream(
  n: number,
  window: number,
  scheduler: string | Scheduler,
  eviction: string | undefined,
  recycle: boolean,
): { graph: TaskGraph; report: ReturnType<typeof simulate>['report']; maxTasks: number } {
  const graph = new TaskGraph();
  prepareStream(graph);
  const seen = { maxTasks: 0 };
  const { report } = simulate({
    graph,
    platform: streamPlatform,
    scheduler,
    eviction,
    submitWindow: window,
    source: streamSource(n, seen),
    recycle,
  });
  return { graph, report, maxTasks: seen.maxTasks };
}
