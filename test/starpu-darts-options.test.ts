/**
 * StarPU master's DARTS behaviours that seed 000 does not state, behind options (issue 24):
 * the ready-first task buffer (`readyFirst`, StarPU's STARPU_SCHED_READY) and DARTS planning a
 * pushed task at once on a GPU that holds its inputs (`dartsPushFree`), the fallback to the
 * highest-priority task one datum away from free (`dartsOneFromFree`) and StarPU's D_opt tie
 * order (`dartsStarpuTies`).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EngineObserver } from '../src/core/engine.ts';
import { TaskGraph } from '../src/core/graph.ts';
import { AccessMode } from '../src/core/types.ts';
import { DartsScheduler } from '../src/sched/darts/darts.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { testPlatform } from './helpers/platforms.ts';
import { checkedRun, FixedScheduler } from './helpers/run.ts';

const { R } = AccessMode;

/** Records the order in which tasks start. */
class StartOrder implements EngineObserver {
  readonly order: number[] = [];
  taskStarted(task: number): void {
    this.order.push(task);
  }
}

describe('readyFirst', () => {
  // One GPU (1 GB/s), pipeline 1, lookahead 2. T0 reads D1 (1 MB, 1 ms to load) and runs 1 ms;
  // X reads D2 (100 MB, 100 ms to load); Y reads D1, valid once T0 started. The scheduler hands
  // out T0, X, Y in that order. When T0 ends (about 2 ms), X's input is still loading and Y's
  // is in place: ready-first runs Y before X; the buffer's order runs X (after its load), then Y.
  function run(readyFirst: boolean): number[] {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const d1 = g.addHandle(1e6);
    const d2 = g.addHandle(1e8);
    const t0 = g.submit(c, [[d1, R]], { flops: 1e9 });
    const x = g.submit(c, [[d2, R]], { flops: 1e9 });
    const y = g.submit(c, [[d1, R]], { flops: 1e9 });
    assert.deepEqual([t0, x, y], [0, 1, 2]);
    const order = new StartOrder();
    const r = checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 1e9 }), {
      sched: new FixedScheduler(() => 0),
      gpuPipeline: 1,
      gpuLookahead: 2,
      readyFirst,
      observers: [order],
    });
    assert.deepEqual(r.checker.violations, []);
    return order.order;
  }

  test('a buffered task whose inputs are in place runs before the head that waits for its load', () => {
    assert.deepEqual(run(true), [0, 2, 1]);
  });

  test('off, the buffer runs in the order the scheduler gave', () => {
    assert.deepEqual(run(false), [0, 1, 2]);
  });
});

describe('darts pushFree', () => {
  /** Cholesky 8 x 8 tiles of 64 on two GPUs holding 6 tiles each (memory pressure). */
  function cholesky(options: { dartsPushFree?: boolean }, readyFirst = false) {
    const wl = generateWorkload('cholesky', { tiles: 8, tileSize: 64 });
    wl.graph.setBottomLevelPriorities();
    const tile = 64 * 64 * 4;
    return checkedRun(wl.graph, testPlatform({ gpus: 2, gpuCapacity: 6 * tile, p2p: true }), {
      sched: new DartsScheduler(options),
      eviction: 'luf',
      gpuPipeline: 2,
      readyFirst,
    });
  }

  test('keeps the invariants and runs every task, with and without ready-first', () => {
    for (const readyFirst of [false, true]) {
      const r = cholesky({ dartsPushFree: true }, readyFirst);
      assert.deepEqual(r.checker.violations, []);
      assert.ok(r.checker.finished);
    }
  });

  test('changes the plan: fewer copies between GPUs on this case (exact counts)', () => {
    const off = cholesky({});
    const on = cholesky({ dartsPushFree: true });
    assert.equal(off.stats.transfersDeviceToDevice, 31);
    assert.equal(on.stats.transfersDeviceToDevice, 29);
    assert.equal(off.stats.transfersToDevices, 121);
    assert.equal(on.stats.transfersToDevices, 119);
  });
});

describe('darts oneFromFree and starpuTies', () => {
  /**
   * One GPU; task i reads `inputs[i]` data of its own (none in memory at the start), with
   * priority `priorities[i]`: no datum frees a task, so each decision falls back. Returns the
   * start order.
   */
  function fallbackOrder(
    inputs: number[],
    priorities: number[],
    options: { dartsOneFromFree?: boolean; dartsOneAway?: boolean },
    seed = 1,
  ): number[] {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    inputs.forEach((k, i) => {
      const data = Array.from({ length: k }, () => [g.addHandle(1e6), R] as const);
      g.submit(c, data, { flops: 1e9, priority: priorities[i]! });
    });
    const order = new StartOrder();
    const r = checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 1e9 }), {
      sched: new DartsScheduler(options),
      eviction: 'luf',
      gpuPipeline: 1,
      gpuLookahead: 0,
      observers: [order],
      seed,
    });
    assert.deepEqual(r.checker.violations, []);
    return order.order;
  }

  test('with no datum freeing a task, the highest-priority task one datum away goes first', () => {
    // A (priority 10) reads three data; B (5) and C (7) two each: the one-away tasks by
    // priority (C, then B), then A.
    assert.deepEqual(fallbackOrder([3, 2, 2], [10, 5, 7], { dartsOneFromFree: true }), [2, 1, 0]);
  });

  test('oneAway: the top-priority one-away tasks first, in a random order among equals (the seed picks it)', () => {
    // A (priority 10) reads three data; B, C and D (priority 5) two each: B, C and D are the
    // one-away tasks of top priority.
    const orderWith = (options: { dartsOneAway?: boolean; dartsOneFromFree?: boolean }, seed: number) =>
      fallbackOrder([3, 2, 2, 2], [10, 5, 5, 5], options, seed).join(',');
    const seeds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const orders = new Set(seeds.map((s) => orderWith({ dartsOneAway: true }, s)));
    for (const o of orders) {
      assert.deepEqual(o.split(',').slice(0, 3).map(Number).sort(), [1, 2, 3], o);
      assert.ok(o.endsWith(',0'), o);
    }
    assert.ok(orders.size > 1, 'the ties were never broken at random');
    // StarPU's rule wins when both are given: the earliest submitted first, whatever the seed.
    for (const s of seeds)
      assert.equal(orderWith({ dartsOneAway: true, dartsOneFromFree: true }, s), '1,2,3,0');
  });

  test('keeps the invariants on Cholesky under memory pressure, and changes the plan', () => {
    const wl = () => {
      const w = generateWorkload('cholesky', { tiles: 8, tileSize: 64, starpuPriorities: true });
      return w.graph;
    };
    const tile = 64 * 64 * 4;
    const runWith = (o: { dartsOneFromFree?: boolean; dartsOneAway?: boolean; dartsStarpuTies?: boolean }) =>
      checkedRun(wl(), testPlatform({ gpus: 2, gpuCapacity: 6 * tile, p2p: true }), {
        sched: new DartsScheduler({ dartsPushFree: true, ...o }),
        eviction: 'luf',
        gpuPipeline: 2,
        readyFirst: true,
      });
    const base = runWith({});
    for (const o of [
      { dartsOneFromFree: true },
      { dartsOneAway: true },
      { dartsStarpuTies: true },
      { dartsOneFromFree: true, dartsStarpuTies: true },
    ]) {
      const r = runWith(o);
      assert.deepEqual(r.checker.violations, []);
      assert.ok(r.checker.finished);
    }
    const both = runWith({ dartsOneFromFree: true, dartsStarpuTies: true });
    assert.notEqual(both.stats.transfersToDevices, base.stats.transfersToDevices);
  });
});

describe('cholesky starpuPriorities', () => {
  test("gives cholesky_implicit's default priorities (2N - 2k - m - n), and none without it", () => {
    const priorities = (starpuPriorities: boolean) => {
      const { graph: g } = generateWorkload('cholesky', { tiles: 3, tileSize: 8, starpuPriorities });
      const out: Record<string, number> = {};
      for (let t = 0; t < g.taskCount; t++) out[g.taskNames[t]!] = g.taskPriority.data[t]!;
      return out;
    };
    assert.deepEqual(priorities(true), {
      'POTRF(0)': 6,
      'TRSM(1,0)': 5,
      'TRSM(2,0)': 4,
      'SYRK(1,0)': 5,
      'GEMM(2,1,0)': 3,
      'SYRK(2,0)': 4,
      'POTRF(1)': 4,
      'TRSM(2,1)': 2,
      'SYRK(2,1)': 2,
      'POTRF(2)': 2,
    });
    assert.ok(Object.values(priorities(false)).every((p) => p === 0));
  });
});
