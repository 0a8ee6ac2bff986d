/**
 * Endless streams in bounded memory (issue 10): a task source submits as the simulated run
 * goes, the engine recycles finished tasks' records (Engine.compact), and the run is the
 * same, event for event, as the same tasks built into one graph beforehand and submitted
 * with the same window.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import { AccessMode } from '../src/core/types.ts';
import { simulate } from '../src/sim/simulate.ts';
import type { TaskSource } from '../src/sim/simulator.ts';
import { testPlatform } from './helpers/platforms.ts';

const { R, RW } = AccessMode;
const HANDLES = 40;

/** Declares the codelets and data every stream task uses. */
function prepare(g: TaskGraph): void {
  g.addCodelet({ name: 'k', kinds: ['cpu', 'gpu'] });
  for (let h = 0; h < HANDLES; h++) g.addHandle(4000);
}

/** Task i of the stream: reads two data, updates a third (a seeded draw), 1e6 to 3e6 flops. */
function addTask(g: TaskGraph, i: number): void {
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
    { flops: 1e6 * (1 + (x % 3)) },
  );
}

/** A source of `n` tasks that records the largest graph it saw. */
function source(n: number, seen: { maxTasks: number }): TaskSource {
  let next = 0;
  return (g, max) => {
    seen.maxTasks = Math.max(seen.maxTasks, g.taskCount);
    const k = Math.min(max, n - next);
    for (let i = 0; i < k; i++) addTask(g, next++);
    return k;
  };
}

const platform = testPlatform({ gpus: 2, gpuCapacity: 5 * 4000, cpus: 2, p2p: true });

/** The report without its wall-clock fields. */
function comparable(r: ReturnType<typeof simulate>['report']): unknown {
  return JSON.parse(JSON.stringify(r, (k, v) => (/wall|scheduling|tasksPerS/i.test(k) ? undefined : v)));
}

describe('task sources: endless streams with recycled records', () => {
  for (const sched of ['eager', 'random', 'dmda']) {
    test(`${sched}: 30,000 tasks through a window of 300 equal the same graph built beforehand`, () => {
      const n = 30_000;
      const window = 300;
      const full = new TaskGraph();
      prepare(full);
      for (let i = 0; i < n; i++) addTask(full, i);
      const a = simulate({ graph: full, platform, scheduler: sched, submitWindow: window });
      const g = new TaskGraph();
      prepare(g);
      const seen = { maxTasks: 0 };
      const b = simulate({
        graph: g,
        platform,
        scheduler: sched,
        submitWindow: window,
        source: source(n, seen),
      });
      assert.deepEqual(comparable(b.report), comparable(a.report));
      assert.equal(b.report.tasks, n);
      if (sched === 'dmda') {
        // dmda keeps per-task tables and does not rebase: nothing is recycled, all still works.
        assert.equal(g.retired, 0);
        assert.equal(g.taskCount, n);
      } else {
        // Recycled: the graph never held more than the compaction threshold plus the window.
        assert.ok(g.retired > 0);
        assert.ok(seen.maxTasks <= 2 * 4096 + 2 * window, `graph held ${seen.maxTasks} tasks`);
      }
    });
  }

  test('a source needs a window; a source returning nonsense is refused in one line', () => {
    const g = new TaskGraph();
    prepare(g);
    assert.throws(
      () => simulate({ graph: g, platform, source: () => 0 }),
      (e: Error) => e.name === 'LocusError' && /a task source needs submitWindow/.test(e.message),
    );
    assert.throws(
      () => simulate({ graph: g, platform, submitWindow: 10, source: () => 99 }),
      (e: Error) =>
        e.name === 'LocusError' && /the task source returned 99 for at most 10 tasks/.test(e.message),
    );
  });
});
