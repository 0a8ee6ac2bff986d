/** DARTS (seed 000 Alg. 2), LUF (Alg. 3) and Belady eviction on hand-checkable cases. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EngineObserver } from '../src/core/engine.ts';
import { TaskGraph } from '../src/core/graph.ts';
import { AccessMode } from '../src/core/types.ts';
import { BeladyEviction } from '../src/evict/belady.ts';
import { LufEviction } from '../src/evict/luf.ts';
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

describe('darts', () => {
  test("the choices on a small graph are Algorithm 2's, worked by hand", () => {
    // Data D0..D3 (one GPU, room for all). Tasks: F {D0}, T0 {D0,D1} (priority 5),
    // T1 {D0,D2}, T2 {D0,D3}, T3 {D1,D2}.
    // Request 1: nothing loaded; only D0 frees a task (F): n(D0) = 1 -> plan F.
    // Request 2: D0 loaded; D1, D2, D3 each free one task (T0, T1, T2); D1 and D2 are used
    //   by 2 unprocessed tasks, D3 by 1; the highest priority among D1's tasks (T0: 5) beats
    //   D2's (0) -> plan T0.
    // Request 3: D0, D1 loaded; D2 frees T1 and T3, D3 frees T2 -> D2, plan T1 then T3.
    // Request 4: D3 frees T2.
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const d = [0, 1, 2, 3].map(() => g.addHandle(1000));
    const F = g.submit(c, [[d[0]!, R]], { flops: 1e6 });
    const T0 = g.submit(
      c,
      [
        [d[0]!, R],
        [d[1]!, R],
      ],
      { flops: 1e6, priority: 5 },
    );
    const T1 = g.submit(
      c,
      [
        [d[0]!, R],
        [d[2]!, R],
      ],
      { flops: 1e6 },
    );
    const T2 = g.submit(
      c,
      [
        [d[0]!, R],
        [d[3]!, R],
      ],
      { flops: 1e6 },
    );
    const T3 = g.submit(
      c,
      [
        [d[1]!, R],
        [d[2]!, R],
      ],
      { flops: 1e6 },
    );
    const order = new StartOrder();
    const run = checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 1e6 }), {
      sched: new DartsScheduler(),
      gpuPipeline: 1,
      observers: [order],
    });
    assert.deepEqual(run.checker.violations, []);
    assert.deepEqual(order.order, [F, T0, T1, T3, T2]);
  });

  test('darts loads every block of matmul2d once when everything fits', () => {
    const wl = generateWorkload('matmul2d', { tiles: 6 });
    const run = checkedRun(wl.graph, testPlatform({ gpus: 1, gpuCapacity: 1e12 }), {
      sched: new DartsScheduler(),
    });
    assert.deepEqual(run.checker.violations, []);
    assert.equal(run.stats.loads[1], 12);
  });

  test('every variant keeps the invariants on matmul2d and cholesky with small GPUs', () => {
    const variants = [{}, { dartsThreshold: 2 }, { darts3inputs: true }, { dartsOpti: true }];
    for (const options of variants) {
      for (const eviction of ['lru', 'luf']) {
        for (const wl of [
          generateWorkload('matmul2d', { tiles: 8, tileSize: 64, inner: 256 }),
          generateWorkload('cholesky', { tiles: 6, tileSize: 64 }),
        ]) {
          wl.graph.setBottomLevelPriorities();
          const block = 64 * 256 * 4;
          const run = checkedRun(wl.graph, testPlatform({ gpus: 2, gpuCapacity: 6 * block, p2p: true }), {
            sched: new DartsScheduler(options),
            eviction,
            gpuPipeline: 3,
          });
          assert.deepEqual(run.checker.violations, [], `${JSON.stringify(options)} ${eviction} ${wl.name}`);
          assert.ok(run.checker.finished);
        }
      }
    }
  });
});

describe('luf', () => {
  /** LUF that checks, at every victim, that it spares the task buffer when it can. */
  class CheckedLuf extends LufEviction {
    readonly problems: string[] = [];
    calls = 0;
    private ectx!: Parameters<LufEviction['init']>[0];
    override init(ctx: Parameters<LufEviction['init']>[0]): void {
      super.init(ctx);
      this.ectx = ctx;
    }
    override victim(node: number, allow?: (h: number) => boolean): number {
      const ctx = this.ectx;
      const g = ctx.graph;
      const buffered = new Set<number>();
      ctx.platform.workers.forEach((w, i) => {
        if (w.node !== node) return;
        for (const t of ctx.pipeline(i)) for (const [h] of g.accesses(t)) buffered.add(h);
      });
      const candidates: number[] = [];
      for (let h = 0; h < g.handleCount; h++)
        if (ctx.isEvictable(h, node) && (!allow || allow(h))) candidates.push(h);
      const v = super.victim(node, allow);
      this.calls++;
      if (v >= 0 && buffered.has(v) && candidates.some((h) => !buffered.has(h))) {
        this.problems.push(
          `evicted ${v}, needed by the task buffer, while ${candidates.find((h) => !buffered.has(h))} was not`,
        );
      }
      return v;
    }
  }

  test('never evicts a datum needed by the task buffer while another candidate exists', () => {
    const wl = generateWorkload('matmul2d', { tiles: 12, tileSize: 64, inner: 256 });
    const block = 64 * 256 * 4;
    const luf = new CheckedLuf();
    const run = checkedRun(wl.graph, testPlatform({ gpus: 2, gpuCapacity: 7 * block }), {
      sched: new DartsScheduler(),
      eviction: luf,
      gpuPipeline: 4,
    });
    assert.deepEqual(run.checker.violations, []);
    assert.ok(luf.calls > 10, `LUF was asked for victims (${luf.calls} times)`);
    assert.deepEqual(luf.problems, []);
  });
});

describe('belady', () => {
  /** Textbook MIN: on a fault with full memory, evict the page whose next use is furthest. */
  function minEvictions(refs: number[], frames: number): { faults: number; evicted: number[] } {
    const resident: number[] = [];
    const lastUse = new Map<number, number>();
    const evicted: number[] = [];
    let faults = 0;
    refs.forEach((page, i) => {
      if (!resident.includes(page)) {
        faults++;
        if (resident.length === frames) {
          const next = (p: number) => {
            const j = refs.indexOf(p, i + 1);
            return j < 0 ? Number.POSITIVE_INFINITY : j;
          };
          // Furthest next use; among pages never used again, the least recently used.
          const victim = [...resident].sort(
            (a, b) =>
              next(b) - next(a) ||
              (next(a) === Number.POSITIVE_INFINITY ? lastUse.get(a)! - lastUse.get(b)! : 0),
          )[0]!;
          resident.splice(resident.indexOf(victim), 1);
          evicted.push(victim);
        }
        resident.push(page);
      }
      lastUse.set(page, i);
    });
    return { faults, evicted };
  }

  test('the eviction sequence on a reference string is the textbook MIN sequence', () => {
    const refs = [7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1];
    const expected = minEvictions(refs, 3);
    assert.equal(expected.faults, 9, 'the textbook count for 3 frames');
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const pages = Array.from({ length: 8 }, () => g.addHandle(1000));
    for (const p of refs) g.submit(c, [[pages[p]!, R]], { flops: 1e6 });
    const evicted: number[] = [];
    const run = checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 3000 }), {
      sched: new FixedScheduler(() => 0),
      eviction: new BeladyEviction(),
      gpuPipeline: 1,
      gpuLookahead: 0,
      observers: [
        {
          replicaFreed: (h: number, _n: number, reason: string) => {
            if (reason === 'evict') evicted.push(pages.indexOf(h));
          },
        },
      ],
    });
    assert.deepEqual(run.checker.violations, []);
    assert.equal(run.stats.loads[1], expected.faults);
    assert.deepEqual(evicted, expected.evicted);
  });
});

// Issue 12 item 15: a datum read by every task must not plan them all on the first GPU.
describe('darts: a datum shared by every task', () => {
  for (const [sched, eviction] of [
    ['darts', 'lru'],
    ['darts', 'luf'],
    ['eager', 'lru'],
  ]) {
    test(`3,000 tasks reading one datum on 4 GPUs: ${sched}+${eviction} runs 750 on each`, () => {
      const wl = generateWorkload('random', { tasks: 3000, data: 1, degree: 1 });
      const platform = testPlatform({ gpus: 4, gpuCapacity: 500 * 2 ** 20 });
      const { checker, stats } = checkedRun(wl.graph, platform, { sched, eviction });
      assert.deepEqual(checker.violations, []);
      const gpus = platform.workers.flatMap((w, i) => (w.kind === 'gpu' ? [i] : []));
      assert.deepEqual(
        gpus.map((w) => stats.tasksRun[w]),
        [750, 750, 750, 750],
      );
    });
  }
});
