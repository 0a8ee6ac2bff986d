/**
 * Chrome traces (issue 11): a transfer's slice starts when its copy starts moving; the time it
 * waited in a queue before that (behind other copies on its stream) is a slice of its own.
 * Times derived by hand on a one-GPU machine whose link has one stream.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import { AccessMode } from '../src/core/types.ts';
import { Runtime } from '../src/exec/runtime.ts';
import { simulate } from '../src/sim/simulate.ts';
import { testPlatform } from './helpers/platforms.ts';

interface Slice {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur: number;
  pid: number;
  tid: number;
  args: Record<string, unknown>;
}

const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-6, `${what}: ${actual} us, expected ${expected} us`);

/**
 * The trace of two tasks on one GPU, each reading its own 1 MB input over a 1 GB/s link with
 * 10 us latency (a copy alone lasts 10 us + 1000 us), with `streams` copies at once per link.
 */
function twoFetches(streams: number): Slice[] {
  const platform = testPlatform({ gpus: 1, gpuCapacity: 1e8, bandwidth: 1e9, latency: 1e-5 });
  const g = new TaskGraph();
  const k = g.addCodelet({ name: 'k', kinds: ['gpu'], flops: () => 1e9 });
  const a = g.addHandle(1e6, { name: 'a' });
  const b = g.addHandle(1e6, { name: 'b' });
  g.submit(k, [[a, AccessMode.R]], { dims: [1] });
  g.submit(k, [[b, AccessMode.R]], { dims: [1] });
  const { trace } = simulate({ graph: g, platform, trace: true, streams });
  return trace!.toJSON().traceEvents as Slice[];
}

describe('Chrome trace: copy start and queue wait', () => {
  test('two fetches on one stream: the second waits for the first, its slice starts after it', () => {
    const events = twoFetches(1);
    const copies = events.filter((e) => e.ph === 'X' && e.pid === 2).sort((x, y) => x.ts - y.ts);
    const queued = events.filter((e) => e.ph === 'X' && e.cat === 'queued');
    assert.deepEqual(
      copies.map((c) => c.name),
      ['a ram->gpu0', 'b ram->gpu0'],
    );
    // The first copy starts when issued (t = 0) and lasts 1010 us; the second starts as it ends.
    close(copies[0]!.ts, 0, 'a starts');
    close(copies[0]!.dur, 1010, 'a lasts');
    close(copies[1]!.ts, 1010, 'b starts');
    close(copies[1]!.dur, 1010, 'b lasts');
    assert.equal(copies[0]!.args.queuedUs, 0);
    close(copies[1]!.args.queuedUs as number, 1010, 'b queued');
    // Only b waited: from its issue (t = 0) to the start of its copy.
    assert.equal(queued.length, 1);
    assert.equal(queued[0]!.name, 'b ram->gpu0');
    assert.equal(queued[0]!.pid, 5);
    close(queued[0]!.ts, 0, 'b queued from');
    close(queued[0]!.dur, 1010, 'b queued for');
    assert.equal(queued[0]!.args.transfer, copies[1]!.args.transfer);
    // Both copies fit one lane (one after the other); the queue has a track name.
    assert.equal(copies[0]!.tid, copies[1]!.tid);
    const names = events.filter((e) => e.ph === 'M').map((e) => (e.args as { name: string }).name);
    assert.ok(names.includes('queued for gpu0 #0'), names.join(', '));
  });

  test('with two streams both copies start at once and share the link: no queue slice', () => {
    const events = twoFetches(2);
    const copies = events.filter((e) => e.ph === 'X' && e.pid === 2).sort((x, y) => x.ts - y.ts);
    assert.equal(events.filter((e) => e.cat === 'queued').length, 0);
    // Each gets half the bandwidth: 10 us + 2 MB-worth at 1 GB/s = 2010 us, on two lanes.
    for (const c of copies) {
      close(c.ts, 0, `${c.name} starts`);
      close(c.dur, 2010, `${c.name} lasts`);
    }
    assert.notEqual(copies[0]!.tid, copies[1]!.tid);
  });

  test("real mode: every copy's slice lies between its issue and its end", async () => {
    const rt = await Runtime.create({
      cpus: 1,
      gpus: 1,
      gpuMemory: 1 << 20,
      throttle: true,
      trace: true,
      perfModels: 'off',
    });
    try {
      const k = rt.codelet({ name: 'k', kinds: ['gpu'] });
      const xs = [0, 1, 2, 3].map((i) => rt.data(new Float64Array(1024), { name: `x${i}` }));
      for (const x of xs) rt.submit(k, [[x, 'R']]);
      await rt.wait();
    } finally {
      await rt.close();
    }
    const events = rt.trace!.toJSON().traceEvents as Slice[];
    const copies = events.filter((e) => e.ph === 'X' && e.pid === 2);
    assert.equal(copies.length, 4);
    const queued = new Map(
      events.filter((e) => e.cat === 'queued').map((e) => [e.args.transfer as number, e] as const),
    );
    for (const c of copies) {
      assert.ok(c.dur >= 0, `${c.name} lasts ${c.dur} us`);
      const q = queued.get(c.args.transfer as number);
      // A queued copy starts where its wait ends.
      if (q) close(q.ts + q.dur, c.ts, `${c.name}'s wait ends at its start`);
      close(c.args.queuedUs as number, q ? q.dur : 0, `${c.name} queued`);
    }
  });
});
