/**
 * A scheduler's wontUse hint (SchedContext.wontUse): applied when the scheduler gives it, a
 * modified replica is written back at once (EARLY_WRITEBACK) and the datum is evicted first,
 * under every eviction policy, with clean first on or off; a bad handle is refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import { TransferKind } from '../src/core/protocol.ts';
import { AccessMode } from '../src/core/types.ts';
import { HintingScheduler, hintRun } from './helpers/hint-case.ts';
import { testPlatform } from './helpers/platforms.ts';
import { checkedRun } from './helpers/run.ts';

describe('a scheduler-issued wontUse hint', () => {
  for (const policy of ['lru', 'fifo', 'belady', 'luf']) {
    test(`${policy}: the datum is written back when the scheduler hints it and evicted first`, () => {
      for (const cleanFirst of [true, false]) {
        const on = hintRun(policy, 'scheduler', cleanFirst);
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
      const off = hintRun(policy, 'none', true);
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
