/**
 * A scheduler's wontUse hint (SchedContext.wontUse): applied when the scheduler gives it, a
 * modified replica is written back at once (EARLY_WRITEBACK) and the datum is evicted first,
 * under every eviction policy, with clean first on or off; a bad handle is refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import type { SchedContext } from '../src/core/policy.ts';
import { TransferKind } from '../src/core/protocol.ts';
import { AccessMode } from '../src/core/types.ts';
import { EvictionLog } from './helpers/eviction-log.ts';
import { testPlatform } from './helpers/platforms.ts';
import { checkedRun, FixedScheduler } from './helpers/run.ts';

/** Everything on worker 0; when task `after` finishes, a wontUse hint for `handle`. */
class HintingScheduler extends FixedScheduler {
  private ctx!: SchedContext;
  constructor(
    private readonly after: number,
    private readonly handle: number,
  ) {
    super(() => 0);
  }
  override init(ctx: SchedContext): void {
    super.init(ctx);
    this.ctx = ctx;
  }
  taskFinished(task: number): void {
    if (task === this.after) this.ctx.wontUse(this.handle);
  }
}

/**
 * One GPU holding three data of 1000 bytes: A and B written, C read, then D read (one
 * eviction). With `hint`, the scheduler hints A when A's task (task 0) ends.
 */
function run(eviction: string, hint: boolean, cleanFirst: boolean) {
  const g = new TaskGraph();
  const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
  const [A, B, C, D] = [0, 1, 2, 3].map((i) => g.addHandle(1000, { name: 'ABCD'[i]! }));
  const flops = 1e9; // 1 ms each on the test GPU: every copy lands long before the next task
  g.submit(c, [[A!, AccessMode.RW]], { flops });
  g.submit(c, [[B!, AccessMode.RW]], { flops });
  g.submit(c, [[C!, AccessMode.R]], { flops });
  g.submit(c, [[D!, AccessMode.R]], { flops });
  const log = new EvictionLog();
  const r = checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 3000 }), {
    sched: hint ? new HintingScheduler(0, A!) : new FixedScheduler(() => 0),
    eviction,
    gpuPipeline: 1,
    gpuLookahead: 0,
    cleanFirst,
    observers: [log],
  });
  assert.deepEqual(r.checker.violations, [], `${eviction}: the invariant checker found violations`);
  assert.ok(r.checker.finished, `${eviction}: the run finished`);
  const e = r.engine;
  const kinds = (k: number) =>
    log.started
      .filter((s) => e.trKind.data[s.id] === k)
      .map((s) => ({ handle: e.trHandle.data[s.id]!, at: s.at }));
  return { log, kinds, names: (hs: number[]) => hs.map((h) => 'ABCD'[h]).join('') };
}

describe('a scheduler-issued wontUse hint', () => {
  for (const policy of ['lru', 'fifo', 'belady', 'luf']) {
    test(`${policy}: the datum is written back when the scheduler hints it and evicted first`, () => {
      for (const cleanFirst of [true, false]) {
        const on = run(policy, true, cleanFirst);
        const early = on.kinds(TransferKind.EARLY_WRITEBACK);
        assert.equal(early.length, 1, `${policy}: one early write-back`);
        assert.equal(early[0]!.handle, 0, `${policy}: of A`);
        assert.equal(early[0]!.at, on.log.ended.get(0), `${policy}: issued when A's task ends`);
        assert.equal(on.names(on.log.evicted), 'A', `${policy}: A evicted first, and alone`);
        assert.equal(on.kinds(TransferKind.WRITEBACK).length, 0, `${policy}: no write-back at eviction`);
        assert.deepEqual(
          on.kinds(TransferKind.FLUSH).map((f) => f.handle),
          [1],
          `${policy}: B alone flushed at the end`,
        );
      }
      const off = run(policy, false, true);
      assert.equal(
        off.kinds(TransferKind.EARLY_WRITEBACK).length,
        0,
        `${policy}: no hint, no early write-back`,
      );
      assert.equal(off.names(off.log.evicted), 'C', `${policy}: no hint: the clean C goes`);
      assert.equal(off.kinds(TransferKind.FLUSH).length, 2, `${policy}: no hint: A and B flushed`);
    });
  }

  test('a hint for a handle the engine does not hold is refused', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const A = g.addHandle(1000, { name: 'A' });
    g.submit(c, [[A, AccessMode.RW]], { flops: 1e9 });
    assert.throws(
      () =>
        checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 3000 }), { sched: new HintingScheduler(0, 7) }),
      /wontUse of handle 7, which the engine does not hold/,
    );
  });
});
