/**
 * Issue 24's options for a shared host bus under memory pressure, off by default: the
 * prefetch window (copies into a GPU issued in the buffer's order, a few at a time), parallel
 * evictions (each waiting prefetch evicts for itself), lazy write-backs (write-backs no task
 * waits for share the bus as prefetches do) and hfp's critical-path options (its slack, the
 * critical task with the fewest missing bytes first, and in the run's tail the buffered task
 * with the longest expected path first, through Scheduler.bufferRank). Each keeps the
 * engine's invariants;
 * the figures on StarPU's sirocco are in docs/results.md ("Cholesky on StarPU's sirocco").
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Engine, EngineObserver } from '../src/core/engine.ts';
import { TaskGraph } from '../src/core/graph.ts';
import type { SchedContext } from '../src/core/policy.ts';
import { TransferKind } from '../src/core/protocol.ts';
import { HfpScheduler } from '../src/sched/hfp.ts';
import type { SchedulerOptions } from '../src/sched/options.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { testPlatform } from './helpers/platforms.ts';
import { type CheckedRunOptions, checkedRun, FixedScheduler } from './helpers/run.ts';

/** Copies in flight per destination and per kind, and the most seen at once. */
class CopyCounter implements EngineObserver {
  readonly into = new Map<number, number>();
  /** Most copies in flight into one node when a prefetch to it was issued (that one apart). */
  maxIntoAtPrefetch = 0;
  /** Most write-backs in flight from one node at once. */
  maxWritebacks = 0;
  /** Write-backs issued without urgency (a prefetch's class) / with it. */
  lazy = 0;
  urgent = 0;
  private readonly out = new Map<number, number>();
  constructor(private readonly engine: () => Engine) {}
  transferStarted(id: number): void {
    const e = this.engine();
    const dst = e.trDst.data[id]!;
    const src = e.trSrc.data[id]!;
    const kind = e.trKind.data[id]!;
    if (kind === TransferKind.PREFETCH)
      this.maxIntoAtPrefetch = Math.max(this.maxIntoAtPrefetch, this.into.get(dst) ?? 0);
    this.into.set(dst, (this.into.get(dst) ?? 0) + 1);
    if (kind === TransferKind.WRITEBACK) {
      const n = (this.out.get(src) ?? 0) + 1;
      this.out.set(src, n);
      this.maxWritebacks = Math.max(this.maxWritebacks, n);
      if (e.trUrgent.data[id] === 1) this.urgent++;
      else this.lazy++;
    }
  }
  transferFinished(id: number): void {
    const e = this.engine();
    const dst = e.trDst.data[id]!;
    this.into.set(dst, this.into.get(dst)! - 1);
    if (e.trKind.data[id] === TransferKind.WRITEBACK) {
      const src = e.trSrc.data[id]!;
      this.out.set(src, this.out.get(src)! - 1);
    }
  }
}

/** hfp that keeps the engine it runs in (the counter reads the transfer tables). */
class SeenHfp extends HfpScheduler {
  engine: Engine | undefined;
  override init(ctx: SchedContext): void {
    this.engine = ctx as Engine;
    super.init(ctx);
  }
}

/** Per worker, the tasks in the order popped and in the order started. */
class OrderLog implements EngineObserver {
  readonly popped = new Map<number, number[]>();
  readonly started = new Map<number, number[]>();
  taskPopped(task: number, worker: number): void {
    this.popped.set(worker, [...(this.popped.get(worker) ?? []), task]);
  }
  taskStarted(task: number, worker: number): void {
    this.started.set(worker, [...(this.started.get(worker) ?? []), task]);
  }
  /** Tasks that started on their worker before a task popped there earlier (overtakes). */
  overtakers(): number[] {
    const out: number[] = [];
    for (const [w, started] of this.started) {
      const rank = new Map(this.popped.get(w)!.map((t, i) => [t, i]));
      const begun = new Set<number>();
      for (const t of started) {
        begun.add(t);
        if (this.popped.get(w)!.some((u, i) => i < rank.get(t)! && !begun.has(u))) out.push(t);
      }
    }
    return out;
  }
}

/** Cholesky 10 x 10 tiles of 64 on two GPUs of 8 tiles each behind one shared bus. */
function cholesky(o: CheckedRunOptions, sched: SchedulerOptions = {}) {
  const wl = generateWorkload('cholesky', { tiles: 10, tileSize: 64 });
  wl.graph.setBottomLevelPriorities();
  const tile = 64 * 64 * 4;
  const hfp = new SeenHfp(sched);
  const counter = new CopyCounter(() => hfp.engine!);
  const r = checkedRun(wl.graph, testPlatform({ gpus: 2, gpuCapacity: 8 * tile, p2p: true }), {
    sched: hfp,
    gpuLookahead: 8,
    cleanFirst: false,
    readyFirst: true,
    ...o,
    observers: [counter, ...(o.observers ?? [])],
  });
  return { ...r, counter, hfp };
}

describe('bus options under memory pressure', () => {
  test('each keeps the invariants and runs every task', () => {
    for (const o of [
      { prefetchWindow: 1 },
      { parallelEvictions: true },
      { lazyWritebacks: true },
      { prefetchWindow: 2, parallelEvictions: true, lazyWritebacks: true },
    ]) {
      const r = cholesky(o);
      assert.deepEqual(r.checker.violations, [], JSON.stringify(o));
      assert.ok(r.checker.finished, JSON.stringify(o));
    }
  });

  test('prefetchWindow: no prefetch into a GPU while the window is full', () => {
    assert.ok(cholesky({}).counter.maxIntoAtPrefetch > 1);
    assert.ok(cholesky({ prefetchWindow: 1 }).counter.maxIntoAtPrefetch < 1);
    assert.ok(cholesky({ prefetchWindow: 2 }).counter.maxIntoAtPrefetch < 2);
  });

  test('lazyWritebacks: a prefetch evicting modified data writes it back without urgency', () => {
    const off = cholesky({}).counter;
    const on = cholesky({ lazyWritebacks: true }).counter;
    assert.equal(off.lazy, 0);
    assert.ok(off.urgent > 0);
    assert.ok(on.lazy > 0);
  });

  test('parallelEvictions: several write-backs from one GPU at once', () => {
    assert.ok(cholesky({ parallelEvictions: true }).counter.maxWritebacks > 1);
  });
});

describe('hfp critical-path options', () => {
  test('criticalSlack 0.03 is the default; criticalLocal and criticalFixed keep the invariants', () => {
    const base = cholesky({});
    const same = cholesky({}, { criticalSlack: 0.03 });
    assert.equal(same.result.makespanS, base.result.makespanS);
    for (const sched of [
      { criticalLocal: true },
      { criticalSlack: 0.06, criticalLocal: true },
      { criticalLocal: true, criticalFixed: true },
    ]) {
      const r = cholesky({}, sched);
      assert.deepEqual(r.checker.violations, [], JSON.stringify(sched));
      assert.ok(r.checker.finished, JSON.stringify(sched));
    }
  });
});

describe('Scheduler.bufferRank and hfp criticalTail', () => {
  test('with readyFirst the buffered task of highest rank whose inputs are in place starts first', () => {
    // Eight independent tasks without data (always in place), popped in submission order
    // into a lookahead buffer of 8 on one GPU with a pipeline of 1; the rank is the task id.
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    for (let i = 0; i < 8; i++) g.submit(c, [], { flops: 1e9 });
    class Ranked extends FixedScheduler {
      readonly bufferRank = (task: number) => task;
    }
    const run = (sched: FixedScheduler) => {
      const log = new OrderLog();
      const r = checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 1e9 }), {
        sched,
        gpuPipeline: 1,
        gpuLookahead: 8,
        readyFirst: true,
        observers: [log],
      });
      assert.deepEqual(r.checker.violations, []);
      return log.started.get([...log.started.keys()][0]!)!;
    };
    const gpu = testPlatform({ gpus: 1, gpuCapacity: 1e9 }).workers.findIndex((w) => w.kind === 'gpu');
    const fifo = run(new FixedScheduler(() => gpu));
    const ranked = run(new Ranked(() => gpu));
    assert.deepEqual(fifo, [0, 1, 2, 3, 4, 5, 6, 7]);
    // The first task goes to the pipeline before the buffer fills; then highest rank first.
    assert.deepEqual(ranked, [0, 7, 6, 5, 4, 3, 2, 1]);
  });

  test('hfp: off by default; with a tail, ranks are bottom levels in seconds there; invariants kept', () => {
    assert.equal(new HfpScheduler().bufferRank, undefined);
    const r = cholesky({}, { criticalTail: 0.5 });
    assert.deepEqual(r.checker.violations, []);
    assert.ok(r.checker.finished);
    // After the run every task is handed out (the front is past the end: the tail): the
    // first POTRF has the longest path to the end, the last task's is its own duration.
    const rank = r.hfp.bufferRank!;
    const g = r.hfp.engine!.graph;
    const last = g.taskCount - 1;
    for (let t = 1; t < g.taskCount; t++) assert.ok(rank(0) > rank(t));
    const gpu = r.hfp.engine!.platform.workers.findIndex((w) => w.kind === 'gpu');
    assert.equal(rank(last), r.hfp.engine!.taskDuration(last, gpu));
  });
});
