/**
 * lws (issue 26 item 3): where a ready task goes (the worker that released it, the memory
 * holding its inputs, else round-robin) and what an idle worker steals (its own node's
 * queues first; across nodes only from a queue of 2 tasks or more), on a context the test
 * controls. The conformance suite is test/policies/sched-lws.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import type { SchedContext } from '../src/core/policy.ts';
import { AccessMode } from '../src/core/types.ts';
import { LocalityWorkStealingScheduler } from '../src/sched/lws.ts';
import { testPlatform } from './helpers/platforms.ts';

const { R } = AccessMode;

/** Workers gpu0 (node 1), gpu1 (node 2), cpu0 and cpu1 (node 0, home); `tasks` tasks on x. */
function setup(tasks: number, priorities: number[] = []) {
  const g = new TaskGraph();
  const c = g.addCodelet({ name: 'k', kinds: ['cpu', 'gpu'] });
  const x = g.addHandle(1000);
  const y = g.addHandle(3000);
  for (let t = 0; t < tasks; t++) g.submit(c, [[t % 2 === 0 ? x : y, R]], { priority: priorities[t] ?? 0 });
  const platform = testPlatform({ gpus: 2, cpus: 2, gpuCapacity: 1e9 });
  const valid = new Set<string>();
  let current = -1;
  const ctx: SchedContext = {
    graph: g,
    platform,
    now: () => 0,
    canRun: () => true,
    isValidOn: (h, n) => valid.has(`${h}@${n}`),
    isValidOrLoading: (h, n) => valid.has(`${h}@${n}`),
    memoryUsed: () => 0,
    memoryCapacity: () => 1e9,
    needsCalibration: () => false,
    taskDuration: () => 1,
    transferTime: () => 1,
    prefetch: () => true,
    wontUse: () => {},
    warn: () => {},
    currentWorker: () => current,
    pipeline: () => [],
    random: () => 0,
    taskCapacity: 64,
    handleCapacity: 64,
  };
  const s = new LocalityWorkStealingScheduler();
  s.init(ctx);
  return {
    s,
    x,
    y,
    valid,
    releasedBy: (w: number) => {
      current = w;
    },
  };
}

describe('lws placement', () => {
  test('no input off the home node: the releasing worker keeps the task, else round-robin', () => {
    const { s, releasedBy } = setup(7);
    for (let t = 0; t < 5; t++) s.push(t);
    releasedBy(3);
    s.push(5);
    s.push(6);
    assert.deepEqual(
      [0, 1, 2, 3].map((w) => [...s.plannedTasks(w)]),
      [[0, 4], [1], [2], [3, 5, 6]],
    );
  });

  test('a task goes to the memory holding most of its input bytes, the releasing worker on a tie', () => {
    const { s, x, y, valid, releasedBy } = setup(4);
    valid.add(`${x}@1`); // task 0, 2 read x (on gpu0); task 1, 3 read y (on gpu1)
    valid.add(`${y}@2`);
    releasedBy(2); // cpu0 released them all: its node (home) counts nothing
    for (let t = 0; t < 4; t++) s.push(t);
    assert.deepEqual(
      [0, 1, 2, 3].map((w) => [...s.plannedTasks(w)]),
      [[0, 2], [1, 3], [], []],
    );
  });

  test('inputs on several memories: the releasing worker keeps the task when its memory holds as many bytes', () => {
    const { s, x, valid, releasedBy } = setup(1);
    valid.add(`${x}@1`);
    valid.add(`${x}@2`);
    releasedBy(1);
    s.push(0);
    assert.deepEqual([...s.plannedTasks(1)], [0]);
    assert.deepEqual([...s.plannedTasks(0)], []);
  });

  test('each queue pops highest priority first, then push order', () => {
    const { s, releasedBy } = setup(4, [0, 5, 5, 9]);
    releasedBy(0);
    for (let t = 0; t < 4; t++) s.push(t);
    assert.deepEqual([s.pop(0), s.pop(0), s.pop(0), s.pop(0), s.pop(0)], [3, 1, 2, 0, -1]);
  });
});

describe('lws stealing', () => {
  test('an idle worker steals from its own node first, then across nodes only from 2 tasks or more', () => {
    const { s, releasedBy } = setup(6);
    releasedBy(2); // cpu0 holds tasks 0, 1
    s.push(0);
    s.push(1);
    releasedBy(0); // gpu0 holds task 2
    s.push(2);
    // cpu1 (same node as cpu0) steals cpu0's first task, although gpu0 comes first in index.
    assert.equal(s.pop(3), 0);
    // gpu1: cpu0 and gpu0 hold one task each: no steal across nodes.
    assert.equal(s.pop(1), -1);
    releasedBy(0);
    s.push(3); // gpu0 now holds 2, 3
    assert.equal(s.pop(1), 2);
    assert.deepEqual([...s.plannedTasks(0)], [3]);
    assert.deepEqual([...s.plannedTasks(2)], [1]);
  });
});
