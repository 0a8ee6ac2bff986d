/**
 * Clean buffers (EngineOptions.minClean / targetClean, StarPU's STARPU_MINIMUM_CLEAN_BUFFERS and
 * STARPU_TARGET_CLEAN_BUFFERS): early write-backs of modified replicas, in the eviction
 * policy's order, while the route home is idle, at exact moments; none when off.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Engine, EngineObserver } from '../src/core/engine.ts';
import { TaskGraph } from '../src/core/graph.ts';
import { TRANSFER_KIND_NAMES, TransferKind } from '../src/core/protocol.ts';
import { AccessMode } from '../src/core/types.ts';
import { testPlatform } from './helpers/platforms.ts';
import { checkedRun, FixedScheduler } from './helpers/run.ts';

/** Records every transfer with the tasks finished before it started (read as lines after the run). */
class TransferLog implements EngineObserver {
  private readonly ids: number[] = [];
  private readonly at: number[] = [];
  private readonly ended: boolean[] = [];
  private done = 0;
  constructor(private readonly ends = false) {}
  taskFinished(): void {
    this.done++;
  }
  transferStarted(id: number): void {
    this.ids.push(id);
    this.at.push(this.done);
    this.ended.push(false);
  }
  transferFinished(id: number): void {
    if (!this.ends) return;
    this.ids.push(id);
    this.at.push(this.done);
    this.ended.push(true);
  }
  /** "k: [end] kind handle src->dst" per transfer start (and end), k tasks finished before it. */
  lines(e: Engine, label: (h: number) => string): string[] {
    return this.ids.map((id, i) => {
      const kind = TRANSFER_KIND_NAMES[e.trKind.data[id]!]!;
      return `${this.at[i]}: ${this.ended[i] ? 'end ' : ''}${kind} ${label(e.trHandle.data[id]!)} ${e.trSrc.data[id]}->${e.trDst.data[id]}`;
    });
  }
}

/**
 * One GPU with room for everything (no eviction), one task at a time, no lookahead; tasks of
 * 1 ms writing A, B, C, D in turn, then one reading E. Each datum is 1000 bytes (11 us a copy).
 */
function scenario(o: { minClean?: number; targetClean?: number; eviction?: string }) {
  const g = new TaskGraph();
  const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
  const names = 'ABCDE';
  const h = [...names].map((x) => g.addHandle(1000, { name: x }));
  for (let i = 0; i < 4; i++) g.submit(c, [[h[i]!, AccessMode.RW]], { flops: 1e9 });
  g.submit(c, [[h[4]!, AccessMode.R]], { flops: 1e9 });
  const log = new TransferLog();
  const platform = testPlatform({ gpus: 1, gpuCapacity: 100_000 });
  const r = checkedRun(g, platform, {
    sched: new FixedScheduler(() => 0),
    eviction: o.eviction ?? 'lru',
    gpuPipeline: 1,
    gpuLookahead: 0,
    minClean: o.minClean,
    targetClean: o.targetClean,
    observers: [log],
  });
  assert.deepEqual(r.checker.violations, [], 'the invariant checker found violations');
  assert.ok(r.checker.finished, 'the run finished');
  return { lines: log.lines(r.engine, (v) => names[v]!), engine: r.engine };
}

describe('clean buffers (minClean / targetClean)', () => {
  test('off: no early write-back, everything flushed at the end', () => {
    const { lines } = scenario({});
    assert.deepEqual(lines, [
      '0: fetch A 0->1',
      '1: fetch B 0->1',
      '2: fetch C 0->1',
      '3: fetch D 0->1',
      '4: fetch E 0->1',
      '5: flush A 1->0',
      '5: flush B 1->0',
      '5: flush C 1->0',
      '5: flush D 1->0',
    ]);
  });

  // Counts per StarPU's integer rule: clean < floor(replicas x pct / 100). When T1 starts, A and
  // B are modified (0 of 2 clean < 1): A, the least recently used the policy may take, goes
  // (B is pinned by T1). When T2 starts, 1 of 3 is clean (not < 1): nothing. When T3 starts,
  // 1 of 4 is clean (< 2): B, then C (LRU order) until the target; D is T3's.
  test('min 50 / target 75: A when T1 starts, then B and C when T3 starts; D flushed', () => {
    const { lines, engine } = scenario({ minClean: 50, targetClean: 75 });
    assert.deepEqual(lines, [
      '0: fetch A 0->1',
      '1: fetch B 0->1',
      '1: early-writeback A 1->0',
      '2: fetch C 0->1',
      '3: fetch D 0->1',
      '3: early-writeback B 1->0',
      '3: early-writeback C 1->0',
      '4: fetch E 0->1',
      '5: flush D 1->0',
    ]);
    assert.equal(engine.memory.tidyWritebacks, 3);
    assert.deepEqual([...engine.memory.dirty], [0, 0], 'nothing dirty once flushed');
    assert.deepEqual([...engine.memory.count], [5, 5], 'replicas per node');
  });

  test('target = min (50): one write-back per shortfall, C left for the flush', () => {
    const { lines } = scenario({ minClean: 50, targetClean: 50 });
    assert.deepEqual(
      lines.filter((l) => !l.includes('fetch')),
      ['1: early-writeback A 1->0', '3: early-writeback B 1->0', '5: flush C 1->0', '5: flush D 1->0'],
    );
  });

  test('a busy route defers them: the write-back waits for the prefetches on the shared bus', () => {
    // Data of 1 MB (1 ms a copy, on one bus both ways), tasks of 1 us: T0 ends while d1..d3
    // are still on their way; d0, dirty and unpinned, goes home once the bus is free.
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const h = [0, 1, 2, 3].map((i) => g.addHandle(1e6, { name: `d${i}` }));
    for (let i = 0; i < 4; i++) g.submit(c, [[h[i]!, AccessMode.RW]], { flops: 1e6 });
    const log = new TransferLog(true);
    const platform = testPlatform({ gpus: 1, gpuCapacity: 1e8, bus: true });
    const r = checkedRun(g, platform, {
      sched: new FixedScheduler(() => 0),
      gpuPipeline: 1,
      gpuLookahead: 4,
      minClean: 100,
      targetClean: 100,
      observers: [log],
    });
    assert.deepEqual(r.checker.violations, []);
    // d0 waits for the last prefetch to land (three tasks have run by then: d1, d2 are
    // unpinned too); d3 goes when T3 ends, before the final flush finds anything dirty.
    assert.deepEqual(
      log.lines(r.engine, (v) => `d${v}`),
      [
        '0: fetch d0 0->1',
        '0: prefetch d1 0->1',
        '0: prefetch d2 0->1',
        '0: prefetch d3 0->1',
        '0: end fetch d0 0->1',
        '1: end prefetch d1 0->1',
        '2: end prefetch d2 0->1',
        '3: end prefetch d3 0->1',
        '3: early-writeback d0 1->0',
        '3: early-writeback d1 1->0',
        '3: early-writeback d2 1->0',
        '4: early-writeback d3 1->0',
        '4: end early-writeback d0 1->0',
        '4: end early-writeback d1 1->0',
        '4: end early-writeback d2 1->0',
        '4: end early-writeback d3 1->0',
      ],
    );
    assert.equal(r.stats.transfersByKind[TransferKind.FLUSH], 0);
  });

  test('bad percentages are refused with one clear error', () => {
    const g = new TaskGraph();
    const platform = testPlatform({ gpus: 1, gpuCapacity: 1000 });
    assert.throws(
      () => checkedRun(g, platform, { minClean: 120 }),
      /minClean must be a percentage in \[0, 100\] \(got 120\)/,
    );
    assert.throws(
      () => checkedRun(g, platform, { minClean: 10, targetClean: 5 }),
      /targetClean \(5\) is below minClean \(10\)/,
    );
  });
});
