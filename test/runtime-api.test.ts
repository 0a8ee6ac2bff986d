/**
 * The library API under misuse (issue 12 items 6-9) and dynamic submission (issue 10): each
 * case failed, hung or gave a wrong result with the batch-model runtime.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Runtime, TaskCancelledError, TaskFailedError } from '../src/exec/runtime.ts';

process.env.LOCUS_PERFMODEL_DIR = mkdtempSync(join(tmpdir(), 'locus-models-'));

const KERNELS = new URL('./helpers/kernels.ts', import.meta.url);
const ASYNC = new URL('./fixtures/async-kernels.mjs', import.meta.url);

describe('runtime API: misuse is refused, nothing hangs', { timeout: 120_000 }, () => {
  test("another runtime's data and codelets are refused (item 6)", async () => {
    const a = await Runtime.create({ mode: 'simulated' });
    const b = await Runtime.create({ mode: 'simulated' });
    try {
      const da = a.data(new Float64Array(4), { name: 'xa' });
      b.data(new Float64Array(4), { name: 'xb' }); // same id (0) in b
      const ca = a.codelet({ name: 'ka' });
      const cb = b.codelet({ name: 'kb' });
      assert.throws(() => b.submit(cb, [[da, 'RW']]), {
        code: 'LOCUS_DATA_INVALID',
        message: /xa belongs to another Runtime/,
      });
      assert.throws(() => b.submit(ca, []), {
        code: 'LOCUS_GRAPH_INVALID',
        message: /codelet ka was not declared on this Runtime/,
      });
      await assert.rejects(b.acquire(da), /xa belongs to another Runtime/);
      const forged = { id: 0, name: 'forged', dtype: 'float64', length: 4 } as const;
      assert.throws(() => b.submit(cb, [[forged, 'R']]), /forged is not data registered with a Runtime/);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('an async kernel is refused at load and a kernel returning a promise fails its task (item 7)', async () => {
    const warnings: string[] = [];
    const rt = await Runtime.create({ cpus: 1, onWarning: (m) => warnings.push(m) });
    try {
      const x = rt.data(new Float64Array(1), { name: 'x' });
      const asyncInc = rt.codelet({ name: 'asyncInc', kernel: { module: ASYNC, export: 'asyncInc' } });
      const t1 = rt.submit(asyncInc, [[x, 'RW']], { name: 'A' });
      await assert.rejects(t1.done, /asyncInc' of .* is an async function: kernels must be synchronous/);
      assert.ok(
        warnings.some((w) => /codelet asyncInc: its kernel failed to load/.test(w)),
        warnings.join('\n'),
      );
      const promiseInc = rt.codelet({ name: 'promiseInc', kernel: { module: ASYNC, export: 'promiseInc' } });
      const y = rt.data(new Float64Array(1), { name: 'y' });
      const t2 = rt.submit(promiseInc, [[y, 'RW']], { name: 'P' });
      await assert.rejects(t2.done, /the kernel returned a promise: kernels must be synchronous functions/);
      await assert.rejects(rt.wait(), TaskFailedError);
      // The async kernel never ran (it was not loaded). (promiseInc's promise may still run
      // whenever its thread returns to its event loop: that is why such kernels are refused.)
      const v = await rt.acquire(x);
      assert.equal(v[0], 0);
      rt.release(x);
    } finally {
      await rt.close();
    }
  });

  test('submit and wait while an earlier wait is pending; close during wait; calls after close (item 8)', async () => {
    const rt = await Runtime.create({ cpus: 2 });
    const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
    const a = new Float64Array(1);
    const x = rt.data(a, { name: 'x' });
    for (let i = 0; i < 100; i++) rt.submit(inc, [[x, 'RW']]);
    const first = rt.wait();
    for (let i = 0; i < 100; i++) rt.submit(inc, [[x, 'RW']]);
    const second = rt.wait();
    const [r1, r2] = await Promise.all([first, second]);
    assert.ok(r1.tasks >= 100 && r2.tasks >= 200, `${r1.tasks} ${r2.tasks}`);
    for (let i = 0; i < 50; i++) rt.submit(inc, [[x, 'RW']]);
    const third = rt.wait();
    await rt.close(); // waits for the tasks, then writes the data home
    await third;
    assert.equal(a[0], 250);
    await assert.rejects(rt.wait(), { code: 'LOCUS_STATE_INVALID', message: /this runtime is closed/ });
    await assert.rejects(rt.acquire(x), /this runtime is closed/);
    assert.throws(() => rt.submit(inc, [[x, 'RW']]), /this runtime is closed/);
  });

  test('a codelet whose module fails to load fails its own tasks only (item 9)', async () => {
    const rt = await Runtime.create({ cpus: 1, onWarning: () => {} });
    try {
      const bad = rt.codelet({
        name: 'bad',
        kernel: { module: new URL('./no-such-module.mjs', import.meta.url), export: 'k' },
      });
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
      const x = rt.data(new Float64Array(1), { name: 'x' });
      const y = rt.data(new Float64Array(1), { name: 'y' });
      const failed = rt.submit(bad, [[x, 'RW']], { name: 'BAD' });
      const after = rt.submit(inc, [[x, 'RW']], { name: 'AFTER' });
      const other = rt.submit(inc, [[y, 'RW']], { name: 'OTHER' });
      await assert.rejects(failed.done, /task BAD .*failed/);
      await assert.rejects(
        after.done,
        (e: unknown) => e instanceof TaskCancelledError && e.code === 'LOCUS_TASK_CANCELLED',
      );
      await other.done;
      await assert.rejects(rt.wait(), {
        name: 'TaskFailedError',
        code: 'LOCUS_TASK_FAILED',
        message: /task BAD \(codelet bad\) failed: .*no-such-module/,
      });
      rt.submit(inc, [[y, 'RW']]);
      await rt.wait(); // not poisoned
      const v = await rt.acquire(y);
      assert.equal(v[0], 2);
      rt.release(y);
    } finally {
      await rt.close();
    }
  });
});

describe('runtime API: dynamic submission (issue 10)', { timeout: 120_000 }, () => {
  for (const mode of ['real', 'simulated'] as const) {
    test(`${mode}: a task submitted from another task's callback runs`, async () => {
      const rt = await Runtime.create({ mode, cpus: 2, platform: mode === 'real' ? undefined : 'local' });
      try {
        const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' }, flops: () => 1e6 });
        const a = new Float64Array(1);
        const x = rt.data(a, { name: 'x' });
        let inner: Promise<void> | undefined;
        rt.submit(inc, [[x, 'RW']], {
          dims: [1],
          onDone: (e) => {
            assert.equal(e, undefined);
            inner = rt.submit(inc, [[x, 'RW']], { dims: [1] }).done;
          },
        });
        await rt.wait();
        assert.ok(inner, 'the callback ran');
        await inner;
        await rt.sync();
        assert.equal(a[0], mode === 'real' ? 2 : 0);
      } finally {
        await rt.close();
      }
    });
  }

  test('1,000 rounds of submit-a-few-then-await-one while earlier tasks run', async () => {
    const rt = await Runtime.create({ cpus: 2, gpus: 1, gpuMemory: 64 * 8 * 4, scheduler: 'dmdar' });
    try {
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
      const arrays = Array.from({ length: 8 }, () => new Float64Array(64));
      const xs = arrays.map((arr, i) => rt.data(arr, { name: `x${i}` }));
      const expect = new Float64Array(8);
      for (let round = 0; round < 1000; round++) {
        const tasks = [];
        for (let k = 0; k < 3; k++) {
          const i = (round * 3 + k) % 8;
          tasks.push(rt.submit(inc, [[xs[i]!, 'RW']]));
          expect[i]!++;
        }
        await tasks[round % 3]!.done;
      }
      await rt.wait();
      await rt.sync();
      for (let i = 0; i < 8; i++) assert.equal(arrays[i]![0], expect[i], `x${i}`);
    } finally {
      await rt.close();
    }
  });

  test('an array on a whole SharedArrayBuffer is used in place, registered once', async () => {
    const rt = await Runtime.create({ cpus: 1, gpus: 1, gpuMemory: 1 << 20, scheduler: 'eager' });
    try {
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' }, kinds: ['gpu'] });
      const a = new Float64Array(new SharedArrayBuffer(1024 * 8)).fill(5);
      const x = rt.data(a, { name: 'x' });
      assert.equal(rt.read(x).buffer, a.buffer, 'the home copy is the array itself');
      assert.throws(
        () => rt.data(a),
        (e: Error) => /already registered in place as x: register it once/.test(e.message),
      );
      // A view of part of a shared buffer is copied as before.
      const whole = new Float64Array(new SharedArrayBuffer(2048 * 8));
      const part = rt.data(whole.subarray(1024), { name: 'part' });
      assert.notEqual(rt.read(part).buffer, whole.buffer);
      rt.submit(inc, [[x, 'RW']]);
      rt.submit(inc, [[x, 'RW']]);
      await rt.wait();
      assert.equal(a[0], 5, 'the device copy is not home before sync');
      await rt.sync();
      assert.ok(a.every((v) => v === 7));
      await rt.unregister(x);
      const again = rt.data(a, { name: 'again' });
      assert.equal(rt.read(again).buffer, a.buffer, 'once unregistered, the array registers in place again');
    } finally {
      await rt.close();
    }
  });

  test('data stay on the device between waits, come home on sync', async () => {
    const rt = await Runtime.create({ cpus: 0, gpus: 1, gpuMemory: 1 << 20, scheduler: 'eager' });
    try {
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' }, kinds: ['gpu'] });
      const a = new Float64Array(1024);
      const x = rt.data(a, { name: 'x' });
      rt.submit(inc, [[x, 'RW']]);
      const r1 = await rt.wait();
      rt.submit(inc, [[x, 'RW']]);
      const r2 = await rt.wait();
      // One copy to the device for both tasks, none back: the datum stayed there.
      assert.equal(r2.bytesToDevices, r1.bytesToDevices);
      assert.equal(r2.bytesFromDevices, 0);
      assert.equal(a[0], 0, 'the array is not updated before sync');
      await rt.sync();
      assert.equal(a[0], 2);
    } finally {
      await rt.close();
    }
  });
});
