/**
 * The worker pool's 'serve' message (src/exec/pool.ts, worker.ts): a thread of the pool runs a
 * service function from a module (the partition runner's device threads use it), replying
 * 'served' when it returns, with the error when it throws or is missing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkerPool } from '../src/exec/pool.ts';

const SERVICES = new URL('./fixtures/pool-services.ts', import.meta.url).href;

test("a pool thread serves a module's function and replies when it returns", async () => {
  const pool = new WorkerPool(1);
  try {
    const word = new Int32Array(new SharedArrayBuffer(4));
    const r = await pool.threads[0]!.request({
      type: 'serve',
      module: SERVICES,
      export: 'store42',
      data: word,
    });
    assert.deepEqual(r, { type: 'served' });
    assert.equal(word[0], 42, 'the service wrote into the shared memory it was given');
    const missing = await pool.threads[0]!.request({
      type: 'serve',
      module: SERVICES,
      export: 'nope',
      data: 0,
    });
    assert.equal(missing.type, 'served');
    assert.match((missing as { error?: string }).error ?? '', /has no exported function 'nope'/);
    const thrown = await pool.threads[0]!.request({
      type: 'serve',
      module: SERVICES,
      export: 'fails',
      data: 0,
    });
    assert.match((thrown as { error?: string }).error ?? '', /service failed on purpose/);
  } finally {
    await pool.close();
  }
});
