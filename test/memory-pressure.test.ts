/**
 * Memory pressure: clean victims before dirty ones under every eviction policy (the memory
 * manager's clean-first rule), the old order with the switch off, and the values still those
 * of the sequential execution (the invariant checker's oracle).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import type { EvictionContext, EvictionPolicy } from '../src/core/policy.ts';
import { TransferKind } from '../src/core/protocol.ts';
import { AccessMode } from '../src/core/types.ts';
import { createEviction } from '../src/evict/index.ts';
import { testPlatform } from './helpers/platforms.ts';
import { checkedRun, FixedScheduler } from './helpers/run.ts';

/** Wraps a policy and records every victim it hands out (each one is evicted). */
class RecordingEviction implements EvictionPolicy {
  readonly name: string;
  readonly dynamic = true;
  readonly victims: number[] = [];
  constructor(private readonly inner: EvictionPolicy) {
    this.name = inner.name;
  }
  init(ctx: EvictionContext): void {
    this.inner.init(ctx);
  }
  added(h: number, n: number): void {
    this.inner.added(h, n);
  }
  used(h: number, n: number): void {
    this.inner.used(h, n);
  }
  removed(h: number, n: number): void {
    this.inner.removed(h, n);
  }
  victim(n: number, allow?: (h: number) => boolean): number {
    const v = this.inner.victim(n, allow);
    if (v >= 0) this.victims.push(v);
    return v;
  }
}

/**
 * One GPU holding four data of 1000 bytes, one task at a time, no lookahead: A and B written
 * (dirty), C and D read (clean), then E, F read, C read again, H read, and a last task reading
 * I, J, K (three evictions at once, more than the clean replicas left).
 */
function scenario() {
  const g = new TaskGraph();
  const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
  const names = 'ABCDEFGHIJK';
  const h: Record<string, number> = {};
  for (const x of names) h[x] = g.addHandle(1000, { name: x });
  const R = AccessMode.R;
  const RW = AccessMode.RW;
  g.submit(c, [[h.A!, RW]]);
  g.submit(c, [[h.B!, RW]]);
  g.submit(c, [[h.C!, R]]);
  g.submit(c, [[h.D!, R]]);
  g.submit(c, [[h.E!, R]]);
  g.submit(c, [[h.F!, R]]);
  g.submit(c, [[h.C!, R]]);
  g.submit(c, [[h.H!, R]]);
  g.submit(c, [
    [h.I!, R],
    [h.J!, R],
    [h.K!, R],
  ]);
  return { g, label: (v: number) => names[v]! };
}

function run(eviction: string, cleanFirst: boolean) {
  const { g, label } = scenario();
  const rec = new RecordingEviction(createEviction(eviction));
  const platform = testPlatform({ gpus: 1, gpuCapacity: 4000 });
  const r = checkedRun(g, platform, {
    sched: new FixedScheduler(() => 0),
    eviction: rec,
    gpuPipeline: 1,
    gpuLookahead: 0,
    cleanFirst,
  });
  assert.deepEqual(r.checker.violations, [], `${eviction}: the invariant checker found violations`);
  assert.ok(r.checker.finished, `${eviction}: the run finished`);
  return {
    order: rec.victims.map(label).join(''),
    writebacks: r.stats.transfersByKind[TransferKind.WRITEBACK]!,
    flushes: r.stats.transfersByKind[TransferKind.FLUSH]!,
  };
}

describe('clean-first eviction', () => {
  // Expected victims, in order, and the write-backs before eviction (WRITEBACK) and at the end
  // (FLUSH): clean first in the policy's own order, dirty A and B last.
  const cases: Record<string, { on: string; off: string }> = {
    // LRU: C D E F (clean), then C H clean, A dirty. Off: A B (dirty, oldest), D, then C E F.
    lru: { on: 'CDEFCHA', off: 'ABDEFC' },
    // FIFO: as LRU with clean-first (no hit reorders). Off: C stays oldest though read again.
    fifo: { on: 'CDEFCHA', off: 'ABCDEF' },
    // Belady: D (no next use) before C (read by the 7th task), E, F. Off: A, B first.
    belady: { on: 'DEFCHA', off: 'ABDEFC' },
    // LUF: fewest planned uses: D (0) before C (1), then E, F; C H then A at the end.
    luf: { on: 'DEFCHA', off: 'ABDEFC' },
  };
  for (const [policy, want] of Object.entries(cases)) {
    test(`${policy}: clean victims first, dirty last; the old order with the switch off`, () => {
      const on = run(policy, true);
      assert.equal(on.order, want.on, `${policy} clean-first: victim order`);
      // Only A is written back to make room (in the last task), B at the end.
      assert.equal(on.writebacks, 1, `${policy} clean-first: write-backs before eviction`);
      assert.equal(on.flushes, 1, `${policy} clean-first: write-backs at the end`);
      const off = run(policy, false);
      assert.equal(off.order, want.off, `${policy} without clean-first: victim order`);
      assert.equal(off.writebacks, 2, `${policy} without clean-first: A and B written back to make room`);
      assert.equal(off.flushes, 0, `${policy} without clean-first: nothing dirty left at the end`);
    });
  }
});
