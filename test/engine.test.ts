import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TRANSFER_KIND_NAMES, TransferKind } from '../src/core/engine.ts';
import { TaskGraph } from '../src/core/graph.ts';
import type { SchedContext } from '../src/core/policy.ts';
import { AccessMode, LocusError } from '../src/core/types.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { testPlatform } from './helpers/platforms.ts';
import { checkedRun, FixedScheduler } from './helpers/run.ts';

const { R, W, RW } = AccessMode;

function kinds(engine: ReturnType<typeof checkedRun>['engine']): string[] {
  const out: string[] = [];
  for (let i = 0; i < engine.trHandle.length; i++) {
    out.push(
      `${engine.trHandle.data[i]}:${engine.trSrc.data[i]}->${engine.trDst.data[i]}:${engine.trKind.data[i]}`,
    );
  }
  return out;
}

describe('engine: exact counts on hand-checkable cases', () => {
  // matmul2d 2 x 2 on one GPU whose memory holds two input blocks and one C block. EAGER
  // pops T00, T01, T10, T11 (row-major). With LRU, by hand:
  //   T00: load A0, B0                                  (loads 2)
  //   T01: A0 hit; B1 needs room: A0 is pinned, evict B0; load B1       (3, evictions 1)
  //   T10: A1: LRU order is A0 (used before B1), B1 -> evict A0, load A1 (4, 2)
  //        B0: A1 pinned -> evict B1, load B0                           (5, 3)
  //   T11: A1 hit; B1: evict B0, load B1                                (6, 4)
  // With a pipeline of 2 the next task's requests wait behind the running one's pins and
  // the same victims come out, so the counts are the same. (No lookahead buffer: its
  // prefetches would add loads to the derivation.)
  for (const depth of [1, 2]) {
    test(`matmul2d 2x2, eager + LRU, GPU for 2 blocks, pipeline ${depth}: 6 loads, 4 evictions`, () => {
      const wl = generateWorkload('matmul2d', { tiles: 2 });
      const block = 960 * 3840 * 4;
      const cblock = 960 * 960 * 4;
      const platform = testPlatform({ gpus: 1, gpuCapacity: 2 * block + cblock });
      const { checker, stats } = checkedRun(wl.graph, platform, {
        sched: 'eager',
        gpuPipeline: depth,
        gpuLookahead: 0,
      });
      assert.deepEqual(checker.violations, []);
      assert.equal(stats.loads[1], 6);
      assert.equal(stats.evictions[1], 4);
      assert.equal(stats.bytesToDevices, 6 * block);
      assert.equal(stats.bytesFromDevices, 0, 'C blocks are discarded, nothing is written back');
      assert.equal(stats.discardedBytes, 4 * cblock);
    });
  }

  test('with room for everything, every block is loaded exactly once', () => {
    const wl = generateWorkload('matmul2d', { tiles: 4 });
    const platform = testPlatform({ gpus: 1, gpuCapacity: 1e12 });
    const { checker, stats } = checkedRun(wl.graph, platform);
    assert.deepEqual(checker.violations, []);
    assert.equal(stats.loads[1], 8);
    assert.equal(stats.evictions[1], 0);
  });
});

describe('engine: coherence', () => {
  function writeThenRead() {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const h = g.addHandle(1000);
    g.submit(c, [[h, RW]], { flops: 1e6 }); // on gpu0
    g.submit(c, [[h, R]], { flops: 1e6 }); // on gpu1
    return g;
  }

  test('a read after a write on another GPU goes through host memory without peer-to-peer', () => {
    const platform = testPlatform({ gpus: 2, gpuCapacity: 1e6, p2p: false });
    const { checker, engine } = checkedRun(writeThenRead(), platform, {
      sched: new FixedScheduler((t) => t),
    });
    assert.deepEqual(checker.violations, []);
    assert.deepEqual(kinds(engine), [
      `0:0->1:${TransferKind.FETCH}`,
      `0:1->0:${TransferKind.STAGE}`,
      `0:0->2:${TransferKind.FETCH}`,
    ]);
  });

  test('a read after a write on another GPU copies peer-to-peer when it can, then flushes home', () => {
    const platform = testPlatform({ gpus: 2, gpuCapacity: 1e6, p2p: true });
    const { checker, engine } = checkedRun(writeThenRead(), platform, {
      sched: new FixedScheduler((t) => t),
    });
    assert.deepEqual(checker.violations, []);
    assert.deepEqual(kinds(engine), [
      `0:0->1:${TransferKind.FETCH}`,
      `0:1->2:${TransferKind.FETCH}`,
      `0:1->0:${TransferKind.FLUSH}`,
    ]);
  });

  test('the only valid copy is written back before it is evicted', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const a = g.addHandle(1000);
    const b = g.addHandle(1000);
    g.submit(c, [[a, RW]], { flops: 1e6 });
    g.submit(c, [[b, RW]], { flops: 1e6 }); // needs a's room: a must go home first
    g.submit(c, [[a, R]], { flops: 1e6 });
    const platform = testPlatform({ gpus: 1, gpuCapacity: 1000 });
    const { checker, engine, stats } = checkedRun(g, platform);
    assert.deepEqual(checker.violations, []);
    assert.ok(kinds(engine).includes(`0:1->0:${TransferKind.WRITEBACK}`));
    assert.equal(stats.writebacks[1], 2, 'a written back on eviction, b at the end');
  });

  test('write-only accesses allocate without loading', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const h = g.addHandle(1000);
    g.submit(c, [[h, W]], { flops: 1e6 });
    const { checker, stats } = checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 1000 }));
    assert.deepEqual(checker.violations, []);
    assert.equal(stats.bytesToDevices, 0);
    assert.equal(stats.bytesFromDevices, 1000);
  });

  test('CPU workers read data last written on a GPU', () => {
    const g = new TaskGraph();
    const gpuOnly = g.addCodelet({ name: 'g', kinds: ['gpu'] });
    const cpuOnly = g.addCodelet({ name: 'c', kinds: ['cpu'] });
    const h = g.addHandle(1000);
    g.submit(gpuOnly, [[h, RW]], { flops: 1e6 });
    g.submit(cpuOnly, [[h, RW]], { flops: 1e6 });
    g.submit(gpuOnly, [[h, R]], { flops: 1e6 });
    const { checker } = checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 1000, cpus: 1 }));
    assert.deepEqual(checker.violations, []);
    assert.ok(checker.finished);
  });
});

describe('engine: bad input', () => {
  test('a task that fits in no memory is a LocusError naming it', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const h = g.addHandle(5000, { name: 'big' });
    g.submit(c, [[h, R]], { name: 'T' });
    assert.throws(
      () => checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 1000 })),
      (e: unknown) => e instanceof LocusError && /T \(#0\) needs 4\.88 KiB.*holds 1000 B/.test(e.message),
    );
  });

  test('a codelet without a worker of its kind is a LocusError', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    g.submit(c, [[g.addHandle(10), R]]);
    assert.throws(
      () => checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 1000 })),
      (e: unknown) => e instanceof LocusError && /no such worker/.test(e.message),
    );
  });

  test('a cycle of explicit dependencies is a LocusError', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    g.submit(c, []);
    g.submit(c, []);
    g.addDependency(1, 0);
    g.addDependency(0, 1);
    assert.throws(
      () => checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 1000 })),
      (e: unknown) => e instanceof LocusError && /cycle/.test(e.message),
    );
  });

  test('an empty graph finishes at time 0', () => {
    const g = new TaskGraph();
    const { checker, result } = checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 1000 }));
    assert.ok(checker.finished);
    assert.equal(result.makespanS, 0);
  });
});

describe('engine: prefetch', () => {
  /** Places every task on worker 0 and prefetches the inputs of the task queued behind. */
  class PrefetchingScheduler extends FixedScheduler {
    results: boolean[] = [];
    private ctx!: SchedContext;
    constructor(private readonly mayEvict: boolean) {
      super(() => 0);
    }
    override init(ctx: SchedContext): void {
      super.init(ctx);
      this.ctx = ctx;
    }
    override push(task: number): void {
      super.push(task);
      for (const [h] of this.ctx.graph.accesses(task))
        this.results.push(this.ctx.prefetch(h, 1, this.mayEvict));
    }
  }

  function threeReaders() {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    for (let i = 0; i < 3; i++) g.submit(c, [[g.addHandle(1000), R]], { flops: 1e6 });
    return g;
  }

  test('prefetches load into free memory ahead of the tasks, which then find their data', () => {
    const sched = new PrefetchingScheduler(false);
    const { checker, engine, stats } = checkedRun(
      threeReaders(),
      testPlatform({ gpus: 1, gpuCapacity: 3000 }),
      { sched },
    );
    assert.deepEqual(checker.violations, []);
    assert.deepEqual(sched.results, [true, true, true]);
    assert.equal(engine.trKind.length, 3);
    for (let i = 0; i < 3; i++) assert.equal(engine.trKind.data[i], TransferKind.PREFETCH);
    assert.equal(stats.loads[1], 3);
  });

  test('a prefetch that would need an eviction is refused unless allowed', () => {
    // Memory for two handles, both prefetched at once. The third prefetch is asked when the
    // first task finishes: then h0 and h1 are valid, h0 unpinned, so only an eviction makes room.
    class Late extends FixedScheduler {
      late: boolean[] = [];
      private c!: SchedContext;
      constructor(private readonly mayEvict: boolean) {
        super(() => 0);
      }
      override init(ctx: SchedContext): void {
        super.init(ctx);
        this.c = ctx;
      }
      override push(task: number): void {
        super.push(task);
        if (task < 2) this.c.prefetch(task, 1); // task t reads handle t
      }
      taskFinished(task: number): void {
        if (task === 0) this.late.push(this.c.prefetch(2, 1, this.mayEvict));
      }
    }
    const platform = testPlatform({ gpus: 1, gpuCapacity: 2000 });
    const refused = new Late(false);
    const a = checkedRun(threeReaders(), platform, { sched: refused, gpuPipeline: 1, gpuLookahead: 0 });
    assert.deepEqual(a.checker.violations, []);
    assert.deepEqual(refused.late, [false]);
    const allowed = new Late(true);
    const b = checkedRun(threeReaders(), platform, { sched: allowed, gpuPipeline: 1, gpuLookahead: 0 });
    assert.deepEqual(b.checker.violations, []);
    assert.deepEqual(allowed.late, [true]);
    // The allowed prefetch evicted something (h0, or h1 if it had arrived; which one depends
    // on the order the copies end).
    assert.ok(b.stats.evictions[1]! >= 1);
    assert.equal(a.stats.transfersByKind[TransferKind.PREFETCH], 2);
    assert.equal(b.stats.transfersByKind[TransferKind.PREFETCH], 3);
  });
});

describe('engine: statistics by transfer kind', () => {
  test('every kind has its counter, write-through included: 2 writers on a GPU, 2 copies home', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const a = g.addHandle(1000);
    const b = g.addHandle(1000);
    g.submit(c, [[a, AccessMode.RW]], { flops: 1e6 });
    g.submit(c, [[b, AccessMode.RW]], { flops: 1e6 });
    const platform = testPlatform({ gpus: 1, gpuCapacity: 1e6 });
    const r = checkedRun(g, platform, {
      sched: new FixedScheduler(() => 0),
      coherence: { writeThrough: true },
    });
    assert.deepEqual(r.checker.violations, []);
    assert.equal(r.stats.transfersByKind.length, TRANSFER_KIND_NAMES.length);
    assert.equal(r.stats.transfersByKind[TransferKind.FETCH], 2);
    assert.equal(r.stats.transfersByKind[TransferKind.WRITETHROUGH], 2);
    assert.equal(r.stats.transfersByKind[TransferKind.FLUSH], 0);
  });
});

describe('engine: tasks without data and issue-ahead', () => {
  test('a task with no accesses runs (simulated): 3 tasks on one CPU', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'empty', kinds: ['cpu'], flops: () => 1e9 });
    for (let i = 0; i < 3; i++) g.submit(c, [], { flops: 1e9 });
    const platform = testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 1, cpuRate: 1e9 });
    const { result, stats } = checkedRun(g, platform);
    assert.equal(stats.tasksRun[0], 3);
    assert.equal(result.makespanS, 3);
  });

  test('issueAhead hands a worker every ready task of its pipeline, finished in order', async () => {
    const { Engine, Cmd } = await import('../src/core/engine.ts');
    const { PlatformModel } = await import('../src/core/model.ts');
    const { createEviction } = await import('../src/evict/index.ts');
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    const hs = [0, 1, 2, 3].map(() => g.addHandle(8));
    for (const h of hs) g.submit(c, [[h, RW]]);
    const platform = testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 1 });
    const runs = (issueAhead: boolean): number[][] => {
      const e = new Engine({
        graph: g,
        platform,
        scheduler: new FixedScheduler(() => 0),
        eviction: createEviction('lru'),
        model: new PlatformModel(platform, g),
        cpuPipeline: 3,
        issueAhead,
      });
      const started: number[][] = [];
      const take = () => {
        const out: number[] = [];
        for (let i = 0; i < e.commandCount; i++) if (e.cmdOp.data[i] === Cmd.RUN) out.push(e.cmdA.data[i]!);
        e.clearCommands();
        started.push(out);
      };
      e.start(0);
      take();
      for (let t = 0; t < 4; t++) {
        e.taskFinished(t, t + 1);
        take();
      }
      assert.ok(e.isFinished);
      return started;
    };
    // Home data, nothing to load: the whole pipeline (3 tasks) starts at once, then one per completion.
    assert.deepEqual(runs(true), [[0, 1, 2], [3], [], [], []]);
    assert.deepEqual(runs(false), [[0], [1], [2], [3], []]);
  });
});
