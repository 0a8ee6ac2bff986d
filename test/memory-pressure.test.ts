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
import { Runtime } from '../src/exec/runtime.ts';
import { cholesky } from '../src/workloads/cholesky.ts';
import { matmul2d } from '../src/workloads/matmul2d.ts';
import { EvictionLog, hintRun } from './helpers/hint-case.ts';
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

describe('wontUse hints', () => {
  for (const policy of ['lru', 'fifo', 'belady', 'luf']) {
    test(`${policy}: a hinted datum is written back when its task ends and evicted first`, () => {
      for (const cleanFirst of [true, false]) {
        const on = hintRun(policy, 'application', cleanFirst);
        const early = on.kinds(TransferKind.EARLY_WRITEBACK);
        assert.equal(early.length, 1, `${policy}: one early write-back`);
        assert.equal(early[0]!.handle, 0, `${policy}: of A`);
        assert.equal(early[0]!.at, on.log.ended.get(0), `${policy}: issued when A's task ends`);
        assert.equal(on.names(on.log.evicted), 'A', `${policy}: A evicted first`);
        assert.equal(on.kinds(TransferKind.WRITEBACK).length, 0, `${policy}: no write-back at eviction`);
        assert.equal(on.kinds(TransferKind.FLUSH).length, 1, `${policy}: B flushed at the end`);
      }
      const clean = hintRun(policy, 'none', true);
      assert.equal(
        clean.kinds(TransferKind.EARLY_WRITEBACK).length,
        0,
        `${policy}: no hint, no early write-back`,
      );
      assert.equal(clean.names(clean.log.evicted), 'C', `${policy}: no hint: the clean C goes`);
      assert.equal(clean.kinds(TransferKind.FLUSH).length, 2, `${policy}: no hint: A and B flushed`);
    });
  }
});

describe('wontUse waits for every reader of the version', () => {
  test('a hint given after two readers applies when the last of them to end ends, not the last submitted', () => {
    // A written on gpu0, then read by a long task on gpu0 and a short one on gpu1 (submitted
    // last, ending first); the hint must wait for the long reader.
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const A = g.addHandle(1000, { name: 'A' });
    g.submit(c, [[A, AccessMode.RW]], { flops: 1e9 });
    const long = g.submit(c, [[A, AccessMode.R]], { flops: 1e10 });
    const short = g.submit(c, [[A, AccessMode.R]], { flops: 1e9 });
    g.wontUse(A);
    const log = new EvictionLog();
    const r = checkedRun(g, testPlatform({ gpus: 2, gpuCapacity: 3000, p2p: true }), {
      sched: new FixedScheduler((t) => (t === short ? 1 : 0)),
      gpuPipeline: 1,
      gpuLookahead: 0,
      observers: [log],
    });
    assert.deepEqual(r.checker.violations, []);
    assert.ok(log.ended.get(short)! < log.ended.get(long)!, 'the reader submitted last ends first');
    const e = r.engine;
    const early = log.started.filter((s) => e.trKind.data[s.id] === TransferKind.EARLY_WRITEBACK);
    assert.equal(early.length, 1, 'one early write-back');
    assert.equal(early[0]!.at, log.ended.get(long), 'issued when the long reader ends');
  });
});

describe('wontUse in the library API and the workloads', () => {
  test('runtime.wontUse writes the datum back early (one early write-back, of it)', async () => {
    for (const hint of [true, false]) {
      const rt = await Runtime.create({
        mode: 'simulated',
        gpus: 1,
        cpus: 0,
        gpuMemory: 1 << 20,
        trace: true,
      });
      try {
        const k = rt.codelet({ name: 'k', kinds: ['gpu'], flops: () => 1e9 });
        const x = rt.data(new Float64Array(1000), { name: 'x' });
        const y = rt.data(new Float64Array(1000), { name: 'y' });
        rt.submit(k, [[x, 'RW']]);
        if (hint) rt.wontUse(x);
        rt.submit(k, [[y, 'RW']]);
        await rt.wait();
        const events = (
          rt.trace!.toJSON() as { traceEvents: { name: string; cat?: string; args?: { kind?: string } }[] }
        ).traceEvents;
        const early = events.filter((ev) => ev.args?.kind === 'early-writeback' && ev.cat !== 'queued');
        assert.deepEqual(
          early.map((ev) => ev.name.split(' ')[0]),
          hint ? ['x'] : [],
          `hint ${hint}: early write-backs`,
        );
      } finally {
        await rt.close();
      }
    }
  });

  test('cholesky hints each tile once (its column finished); matmul2d its kept C blocks; --no-hints none', () => {
    for (const order of ['rows', 'columns'] as const) {
      assert.equal(cholesky({ tiles: 6, tileSize: 8, order }).graph.hintCount, 21, `cholesky ${order}`);
      assert.equal(cholesky({ tiles: 6, tileSize: 8, order, hints: false }).graph.hintCount, 0);
    }
    assert.equal(matmul2d({ tiles: 4, tileSize: 8, inner: 8, keepOutputs: true }).graph.hintCount, 16);
    assert.equal(matmul2d({ tiles: 4, tileSize: 8, inner: 8 }).graph.hintCount, 0, 'discarded C: no hint');
    assert.equal(
      matmul2d({ tiles: 4, tileSize: 8, inner: 8, keepOutputs: true, hints: false }).graph.hintCount,
      0,
    );
  });

  test('cholesky under memory pressure: the values of the sequential run, hints and clean-first on or off', () => {
    const { graph } = cholesky({ tiles: 6, tileSize: 16 });
    const tile = graph.handleSize.data[0]!;
    const platform = testPlatform({ gpus: 2, gpuCapacity: 5 * tile });
    for (const sched of ['eager', 'dmdar', 'darts']) {
      for (const cleanFirst of [true, false]) {
        for (const hints of [true, false]) {
          const g = cholesky({ tiles: 6, tileSize: 16, hints }).graph;
          const r = checkedRun(g, platform, {
            sched,
            eviction: sched === 'darts' ? 'luf' : 'lru',
            cleanFirst,
          });
          const label = `${sched} cleanFirst=${cleanFirst} hints=${hints}`;
          assert.deepEqual(r.checker.violations, [], `${label}: violations`);
          assert.ok(r.checker.finished, `${label}: finished`);
          const early = r.stats.transfersByKind[TransferKind.EARLY_WRITEBACK]!;
          if (hints) assert.ok(early > 0, `${label}: finished tiles written back early`);
          else assert.equal(early, 0, `${label}: no hint, no early write-back`);
        }
      }
    }
  });
});
