/**
 * DARTS under dynamic submission (seed 000 section 4.3, issue 10): new tasks and data join the
 * structures DARTS chooses from; the variant's tie order (priority right after the free count)
 * applies once tasks arrive while the engine runs, section 3.2's order otherwise; LUF unplans
 * tasks of later submissions; a windowed Cholesky under darts+luf ends with the sequential
 * values. The scheduler is driven by hand through a minimal context (one GPU, every datum on
 * the host), so each pop is derivable.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { TaskGraph } from '../../src/core/graph.ts';
import type { Platform } from '../../src/core/platform.ts';
import type { SchedContext } from '../../src/core/policy.ts';
import { AccessMode } from '../../src/core/types.ts';
import { LufEviction } from '../../src/evict/luf.ts';
import { Runtime } from '../../src/exec/runtime.ts';
import { resolvePlatform } from '../../src/platform/presets.ts';
import { DartsScheduler } from '../../src/sched/darts/darts.ts';
import { TaskData } from '../../src/sched/darts/task-data.ts';
import type { SchedulerOptions } from '../../src/sched/options.ts';
import { simulate } from '../../src/sim/simulate.ts';
import { generateWorkload } from '../../src/workloads/index.ts';
import { oracleRun } from '../conformance/harness.ts';
import { testPlatform } from '../helpers/platforms.ts';

const { R, RW } = AccessMode;
const KERNELS = new URL('../helpers/kernels.ts', import.meta.url);

/** A scheduler context over `g` where every task runs anywhere and nothing is on a GPU yet. */
function contextFor(g: TaskGraph, platform: Platform): SchedContext {
  return {
    graph: g,
    platform,
    now: () => 0,
    canRun: () => true,
    isValidOn: () => false,
    isValidOrLoading: () => false,
    memoryUsed: () => 0,
    memoryCapacity: () => Number.POSITIVE_INFINITY,
    needsCalibration: () => false,
    taskDuration: () => 1,
    transferTime: () => 1,
    prefetch: () => true,
    wontUse: () => {},
    warn: () => {},
    currentWorker: () => -1,
    pipeline: () => [],
    random: () => 0,
    get taskCapacity() {
      return Math.max(1, g.taskCount);
    },
    get handleCapacity() {
      return Math.max(1, g.handleCount);
    },
  };
}

/** Submits tasks [from, g.taskCount) to `s` and pushes them (all ready). */
function arrive(s: DartsScheduler, g: TaskGraph, from: number): void {
  s.submitted(from, g.taskCount);
  for (let t = from; t < g.taskCount; t++) s.push(t);
}

/** Pops GPU worker 0 until it returns -1. */
function drain(s: DartsScheduler): number[] {
  const out: number[] = [];
  for (let t = s.pop(0); t >= 0; t = s.pop(0)) out.push(t);
  return out;
}

describe('darts: dynamic submission (seed 000 section 4.3)', () => {
  test('data of a later submission join dataNotInMem and free the tasks that read them', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const [a, b] = [g.addHandle(8), g.addHandle(8)];
    g.submit(c, [
      [a, R],
      [b, R],
    ]); // task 0
    const s = new DartsScheduler();
    s.init(contextFor(g, testPlatform({ gpus: 1, gpuCapacity: 1e6 })));
    arrive(s, g, 0);
    assert.equal(s.dynamicVariant, false, 'one batch holding the whole graph: section 3.2 order');
    // No datum frees task 0 alone (it needs two): Algorithm 2 line 14 hands it out; a, b loaded.
    assert.deepEqual(drain(s), [0]);
    const [cc, d] = [g.addHandle(8), g.addHandle(8)];
    g.submit(c, [
      [a, R],
      [cc, R],
    ]); // task 1
    g.submit(c, [
      [b, R],
      [cc, R],
    ]); // task 2
    g.submit(c, [
      [cc, R],
      [d, R],
    ]); // task 3
    arrive(s, g, 1);
    assert.equal(s.dynamicVariant, true, 'tasks arrived while the engine ran');
    // The new datum c frees tasks 1 and 2 (d frees none): both planned at once, in order.
    assert.equal(s.pop(0), 1);
    assert.deepEqual(s.plannedTasks(0), [2]);
    assert.equal(s.plannedUsesOf(0, cc), 1);
    // Then d frees task 3 (c is in memory now).
    assert.deepEqual(drain(s), [2, 3]);
  });

  /**
   * One GPU; task 0 reads a (so a is loaded first); then x frees task 1 (priority 1) and is read
   * by tasks 2 and 3 too (priority 0), y frees task 4 (priority 5). Both free one task: section
   * 3.2 picks x (3 unprocessed tasks against 1), section 4.3 picks y (priority 5 against 1).
   */
  function tieGraph(): { g: TaskGraph; submitRest: () => void } {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const [a, x, y, z1, z2] = [8, 8, 8, 8, 8].map((n) => g.addHandle(n)) as [
      number,
      number,
      number,
      number,
      number,
    ];
    g.submit(c, [[a, R]]); // task 0
    const submitRest = () => {
      g.submit(
        c,
        [
          [a, R],
          [x, R],
        ],
        { priority: 1 },
      ); // task 1
      g.submit(c, [
        [x, R],
        [z1, R],
      ]); // task 2
      g.submit(c, [
        [x, R],
        [z2, R],
      ]); // task 3
      g.submit(
        c,
        [
          [a, R],
          [y, R],
        ],
        { priority: 5 },
      ); // task 4
    };
    return { g, submitRest };
  }

  test('whole graph at once: ties by unprocessed tasks first (section 3.2), as before', () => {
    const { g, submitRest } = tieGraph();
    submitRest();
    const s = new DartsScheduler();
    s.init(contextFor(g, testPlatform({ gpus: 1, gpuCapacity: 1e6 })));
    arrive(s, g, 0);
    assert.equal(s.dynamicVariant, false);
    assert.deepEqual([s.pop(0), s.pop(0)], [0, 1]);
  });

  test('tasks arriving while it runs: ties by priority right after the free count (section 4.3)', () => {
    const { g, submitRest } = tieGraph();
    const s = new DartsScheduler();
    s.init(contextFor(g, testPlatform({ gpus: 1, gpuCapacity: 1e6 })));
    arrive(s, g, 0);
    assert.equal(s.pop(0), 0);
    submitRest();
    arrive(s, g, 1);
    assert.equal(s.dynamicVariant, true);
    assert.equal(s.pop(0), 4, 'y (priority 5) before x (more unprocessed tasks)');
    // Then a and y are loaded: x frees task 1, then z1 and z2 free tasks 2 and 3.
    assert.deepEqual(drain(s), [1, 2, 3]);
  });

  test('a first batch smaller than the graph (a submission window) applies section 4.3 from the start', () => {
    const { g, submitRest } = tieGraph();
    submitRest();
    const s = new DartsScheduler();
    s.init(contextFor(g, testPlatform({ gpus: 1, gpuCapacity: 1e6 })));
    s.submitted(0, 1);
    s.push(0);
    assert.equal(s.dynamicVariant, true);
    assert.equal(s.pop(0), 0);
    s.submitted(1, 5);
    for (let t = 1; t < 5; t++) s.push(t);
    assert.equal(s.pop(0), 4);
  });

  test('LUF unplans the tasks of a later submission that read the victim (Algorithm 3 line 10)', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const a = g.addHandle(8);
    g.submit(c, [[a, R]]); // task 0
    const s = new DartsScheduler();
    s.init(contextFor(g, testPlatform({ gpus: 1, gpuCapacity: 1e6 })));
    arrive(s, g, 0);
    assert.equal(s.pop(0), 0);
    // Many batches reading a and a new datum each time: a's reader list grows (and drops the
    // tasks handed out) while tasks stay planned.
    const news: number[] = [];
    for (let batch = 0; batch < 20; batch++) {
      const from = g.taskCount;
      const h = g.addHandle(8);
      news.push(h);
      g.submit(c, [
        [a, R],
        [h, R],
      ]);
      g.submit(c, [
        [h, R],
        [a, R],
      ]);
      arrive(s, g, from);
      // h frees both tasks of the batch: the first is handed out, the second stays planned.
      assert.equal(s.pop(0), from);
      assert.deepEqual(s.plannedTasks(0), [from + 1]);
      if (batch % 2 === 0) {
        // Evicting a from gpu0 (node 1): its planned task goes back to the pool.
        assert.equal(s.plannedUsesOf(0, a), 1);
        s.unplan(a, 1);
        s.dataRemoved(a, 1);
        assert.equal(s.plannedUsesOf(0, a), 0);
        assert.deepEqual(s.plannedTasks(0), []);
        // a frees it again (h is in memory): planned and handed out.
        assert.equal(s.pop(0), from + 1);
      } else {
        assert.equal(s.pop(0), from + 1);
      }
      assert.equal(s.pop(0), -1);
    }
  });

  test('the reader lists keep task order and drop handed-out tasks when they grow', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const [a, b] = [g.addHandle(8), g.addHandle(8)];
    for (let t = 0; t < 4; t++) g.submit(c, [[a, t === 2 ? RW : R]]);
    const data = new TaskData(4, 2);
    data.add(g, 0, 4, 2, () => false);
    const list = (h: number) => Array.from(data.readersOf(h).subarray(0, data.readerCount[h]!));
    assert.deepEqual(list(a), [0, 1, 2, 3]);
    assert.deepEqual(list(b), []);
    g.submit(c, [
      [b, R],
      [a, R],
    ]); // task 4
    // Tasks 1 and 3 are gone: the full list drops them before growing.
    data.add(g, 4, 5, 2, (t) => t === 1 || t === 3);
    assert.deepEqual(list(a), [0, 2, 4]);
    assert.deepEqual(list(b), [4]);
    assert.deepEqual(Array.from(data.inHandle.data.subarray(data.inStart[4]!, data.inStart[5]!)), [b, a]);
  });

  test('a windowed Cholesky under darts+luf ends with the sequential values, evicting', () => {
    const wl = generateWorkload('cholesky', { tiles: 6, tileSize: 16 });
    wl.graph.setBottomLevelPriorities();
    let tile = 0;
    for (let h = 0; h < wl.graph.handleCount; h++) tile = Math.max(tile, wl.graph.handleSize.data[h]!);
    // Two GPUs holding 5 tiles each, for 21 tiles: LUF must evict.
    const platform = testPlatform({ gpus: 2, gpuCapacity: 5 * tile });
    for (const window of [1, 7, 30]) {
      const scheduler = new DartsScheduler();
      const r = oracleRun(`darts+luf, cholesky 6x6, window ${window}`, wl.graph, platform, {
        scheduler,
        eviction: new LufEviction(),
        submitWindow: window,
      });
      assert.equal(r.placement.order.length, wl.graph.taskCount);
      assert.equal(scheduler.dynamicVariant, true);
      assert.ok(r.stats.totalEvictions > 0, `window ${window}: no eviction`);
    }
  });

  test('a window that holds back no ready task gives the whole-graph run exactly (every option)', () => {
    // Cholesky 10 x 10 tiles of 960 (220 tasks) on two V100 of 40 MiB (8 tiles each), no
    // priorities (both tie orders agree): with windows of 60 and 100 tasks the application
    // thread keeps ahead of the ready tasks, so the runs must match the whole-graph run in
    // every count, through dozens of submissions and LUF's evictions.
    const platform = resolvePlatform('v100x2', { gpuMem: 40 * 2 ** 20 });
    const counts = (o: SchedulerOptions, window?: number) => {
      const batches = { n: 0 };
      const scheduler = new (class extends DartsScheduler {
        override submitted(from: number, to: number): void {
          if (to > from) batches.n++;
          super.submitted(from, to);
        }
      })(o);
      const { graph } = generateWorkload('cholesky', { tiles: 10, tileSize: 960 });
      const { report: r } = simulate({
        graph,
        platform,
        scheduler,
        eviction: new LufEviction(),
        submitWindow: window,
      });
      const figures = [r.makespanS, r.bytesToDevices, r.bytesFromDevices, r.loads, r.evictions, r.writebacks];
      return { figures, batches: batches.n, evictions: r.evictions };
    };
    for (const o of [{}, { dartsThreshold: 2 }, { darts3inputs: true }, { dartsOpti: true }]) {
      const whole = counts(o);
      assert.equal(whole.batches, 1);
      assert.ok(whole.evictions > 100, `${JSON.stringify(o)}: ${whole.evictions} evictions`);
      for (const window of [60, 100]) {
        const w = counts(o, window);
        assert.ok(w.batches >= 10, `${JSON.stringify(o)} window ${window}: ${w.batches} submissions`);
        assert.deepEqual(w.figures, whole.figures, `${JSON.stringify(o)} window ${window}`);
      }
    }
  });

  test('the library: rounds of submit-a-few-then-await-one under darts+luf, values right', {
    timeout: 120_000,
  }, async () => {
    // Two devices holding 3 of the 8 arrays each: DARTS plans each submission's tasks, LUF
    // evicts; every increment lands once.
    const rt = await Runtime.create({
      cpus: 0,
      gpus: 2,
      gpuMemory: 3 * 64 * 8,
      scheduler: 'darts',
      eviction: 'luf',
      perfModelDir: mkdtempSync(join(tmpdir(), 'locus-models-')),
    });
    try {
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' }, kinds: ['gpu'] });
      const arrays = Array.from({ length: 8 }, () => new Float64Array(64));
      const xs = arrays.map((arr, i) => rt.data(arr, { name: `x${i}` }));
      const expect = new Float64Array(8);
      for (let round = 0; round < 300; round++) {
        const tasks = [];
        for (let k = 0; k < 3; k++) {
          const i = (round * 5 + k * 3) % 8;
          tasks.push(rt.submit(inc, [[xs[i]!, 'RW']]));
          expect[i]!++;
        }
        await tasks[round % 3]!.done;
      }
      const report = await rt.wait();
      assert.ok(report.evictions > 0, `${report.evictions} evictions`);
      await rt.sync();
      for (let i = 0; i < 8; i++) assert.equal(arrays[i]![0], expect[i], `x${i}`);
    } finally {
      await rt.close();
    }
  });
});
