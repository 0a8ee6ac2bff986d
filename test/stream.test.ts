/**
 * Endless streams in bounded memory (issue 10): a task source submits as the simulated run
 * goes, the engine recycles finished tasks' records (Engine.compact), and the run is the
 * same, event for event, as the same tasks built into one graph beforehand and submitted
 * with the same window.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import { createScheduler, SCHEDULERS } from '../src/sched/index.ts';
import { simulate } from '../src/sim/simulate.ts';
import {
  addStreamTask,
  comparableReport,
  prepareStream,
  runStream,
  streamPlatform,
} from './helpers/stream-source.ts';

/** Every registered scheduler that takes tasks while it runs, and DARTS with LUF. */
const DYNAMIC = [
  ...Object.keys(SCHEDULERS).filter((name) => createScheduler(name).dynamic === true),
  'darts+luf',
  'dmdar+belady',
  'dmda+belady',
];

describe('task sources: endless streams with recycled records', () => {
  test('the streamed schedulers include the dm family, ws, prio, lws, darts and hfp', () => {
    for (const name of ['dmdar', 'dmdas', 'ws', 'prio', 'lws', 'darts', 'hfp'])
      assert.ok(DYNAMIC.includes(name), name);
  });
  // Every scheduler's conformance suite checks that a recycled stream runs as the same stream
  // kept whole; here, that it also runs as the same tasks built into one graph beforehand.
  for (const spec of DYNAMIC) {
    if (spec.startsWith('hfp')) continue; // hfp plans the whole graph it is given: not comparable
    test(`${spec}: 30,000 tasks through a window of 300, recycled, equal the same graph built beforehand`, () => {
      const n = 30_000;
      const window = 300;
      const [scheduler, eviction] = spec.split('+');
      const b = runStream(n, window, scheduler!, eviction, true);
      assert.equal(b.report.tasks, n);
      assert.ok(b.graph.retired > 0, `${spec} recycled nothing`);
      assert.ok(b.maxTasks <= 2 * 4096 + 2 * window, `graph held ${b.maxTasks} tasks`);
      const full = new TaskGraph();
      prepareStream(full);
      for (let i = 0; i < n; i++) addStreamTask(full, i);
      const a = simulate({
        graph: full,
        platform: streamPlatform,
        scheduler,
        eviction,
        submitWindow: window,
      });
      assert.deepEqual(comparableReport(b.report), comparableReport(a.report));
    });
  }

  test('a source needs a window; a source returning nonsense is refused in one line', () => {
    const g = new TaskGraph();
    prepareStream(g);
    assert.throws(
      () => simulate({ graph: g, platform: streamPlatform, source: () => 0 }),
      (e: Error) => e.name === 'LocusError' && /a task source needs submitWindow/.test(e.message),
    );
    assert.throws(
      () => simulate({ graph: g, platform: streamPlatform, submitWindow: 10, source: () => 99 }),
      (e: Error) =>
        e.name === 'LocusError' && /the task source returned 99 for at most 10 tasks/.test(e.message),
    );
  });
});
