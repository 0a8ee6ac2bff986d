/**
 * Task time limits in real runs (issue 12 item 5): a spinning kernel no longer blocks wait()
 * forever. Its thread is terminated and replaced, the task fails naming the limit, its
 * dependents are cancelled, its writes are undone, and the runtime goes on. No timing
 * threshold is asserted beyond the limit being exceeded (the kernels never return).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Runtime, TaskCancelledError, TaskFailedError } from '../src/exec/runtime.ts';

const MODELS = mkdtempSync(join(tmpdir(), 'locus-models-'));
process.env.LOCUS_PERFMODEL_DIR = MODELS;
const KERNELS = new URL('./helpers/kernels.ts', import.meta.url);

const LIMIT_MESSAGE =
  /it ran past its time limit of 200 ms: its worker \w+ was terminated and replaced, and its writes were undone \(raise the limit: timeLimit of its codelet or submit\(\), taskTimeLimit of the Runtime, --task-time-limit of locus run\)/;

describe('task time limits (real mode)', { timeout: 120_000 }, () => {
  test('a spinning task fails, its dependents are cancelled, its writes undone; the runtime goes on', async () => {
    const rt = await Runtime.create({ cpus: 2, gpus: 1, gpuMemory: 4096 });
    try {
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
      const spin = rt.codelet({ name: 'spin', kernel: { module: KERNELS, export: 'spin' }, timeLimit: 0.2 });
      const a = new Float64Array(8);
      const b = new Float64Array(8);
      const x = rt.data(a, { name: 'x' });
      const y = rt.data(b, { name: 'y' });
      rt.submit(inc, [[x, 'RW']]);
      const spinning = rt.submit(spin, [[x, 'RW']], { name: 'SPIN' });
      const after = rt.submit(inc, [[x, 'RW']], { name: 'AFTER' });
      for (let i = 0; i < 5; i++) rt.submit(inc, [[y, 'RW']]);
      await assert.rejects(spinning.done, (e: unknown) => {
        assert.ok(e instanceof TaskFailedError);
        assert.match(e.message, /^task SPIN \(codelet spin\) failed: /);
        assert.match(e.message, LIMIT_MESSAGE);
        return true;
      });
      await assert.rejects(after.done, TaskCancelledError);
      await assert.rejects(rt.wait(), (e: unknown) => {
        assert.ok(e instanceof TaskFailedError);
        assert.equal(e.failures.length, 1);
        assert.equal(e.failures[0]!.label, 'SPIN');
        assert.equal(e.failures[0]!.codelet, 'spin');
        assert.match(e.failures[0]!.message, LIMIT_MESSAGE);
        assert.equal(e.cancelled, 1);
        return true;
      });
      await rt.sync();
      // The first inc ran; what the spinning kernel added was undone; AFTER never ran.
      assert.deepEqual([...a], new Array(8).fill(1));
      assert.deepEqual([...b], new Array(8).fill(5));
      // Later work runs on every worker, the replaced thread included.
      for (let i = 0; i < 30; i++) rt.submit(inc, [[x, 'RW']]);
      for (let i = 0; i < 30; i++) rt.submit(inc, [[y, 'RW']]);
      await rt.wait();
      await rt.sync();
      assert.deepEqual([...a], new Array(8).fill(31));
      assert.deepEqual([...b], new Array(8).fill(35));
    } finally {
      await rt.close();
    }
  });

  test("submit's timeLimit overrides the codelet's, which overrides the runtime's", async () => {
    const rt = await Runtime.create({ cpus: 1, taskTimeLimit: '600s' });
    try {
      const spin = rt.codelet({
        name: 'spin',
        kernel: { module: KERNELS, export: 'spin' },
        timeLimit: '150ms',
      });
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
      const a = new Float64Array(4);
      const x = rt.data(a, { name: 'x' });
      const y = rt.data(new Float64Array(4), { name: 'y' });
      // Within the runtime's limit: runs as without one.
      rt.submit(inc, [[x, 'RW']], { args: [3] });
      await rt.wait();
      const byCodelet = rt.submit(spin, [[y, 'RW']], { name: 'C' });
      const byTask = rt.submit(spin, [[y, 'RW']], { name: 'T', timeLimit: 0.25 });
      await assert.rejects(byCodelet.done, /failed: it ran past its time limit of 150 ms: /);
      // T depends on C (both write y): C's failure cancels it. Submitted apart, it runs.
      await assert.rejects(byTask.done, TaskCancelledError);
      await assert.rejects(rt.wait(), /^TaskFailedError: task C \(codelet spin\) failed: it ran past/);
      const again = rt.submit(spin, [[y, 'RW']], { name: 'T', timeLimit: 0.25 });
      await assert.rejects(again.done, /failed: it ran past its time limit of 250 ms: /);
      await assert.rejects(rt.wait(), TaskFailedError);
      rt.submit(inc, [[x, 'RW']]);
      await rt.wait();
      await rt.sync();
      assert.deepEqual([...a], [4, 4, 4, 4]);
    } finally {
      await rt.close();
    }
  });

  test('the runtime-wide limit applies to tasks without their own', async () => {
    const rt = await Runtime.create({ cpus: 2, taskTimeLimit: 0.2 });
    try {
      const spin = rt.codelet({ name: 'spin', kernel: { module: KERNELS, export: 'spin' } });
      const x = rt.data(new Float64Array(2), { name: 'x' });
      const y = rt.data(new Float64Array(2), { name: 'y' });
      const t1 = rt.submit(spin, [[x, 'RW']], { name: 'S1' });
      const t2 = rt.submit(spin, [[y, 'RW']], { name: 'S2' });
      await assert.rejects(t1.done, LIMIT_MESSAGE);
      await assert.rejects(t2.done, LIMIT_MESSAGE);
      await assert.rejects(rt.wait(), /task S1 \(codelet spin\) failed: .* \(and 1 more failed tasks\)/);
    } finally {
      await rt.close();
    }
  });

  test('bad limits are refused in one line; a simulation accepts them and runs', async () => {
    const sim = await Runtime.create({ mode: 'simulated', taskTimeLimit: '10s' });
    try {
      const spin = sim.codelet({ name: 'spin', timeLimit: 0.001 });
      const x = sim.data(new Float64Array(2), { name: 'x' });
      sim.submit(spin, [[x, 'RW']], { timeLimit: '1ms' });
      await sim.wait();
      assert.throws(() => sim.codelet({ name: 'k', timeLimit: 0 }), {
        message: 'codelet k: timeLimit must be a positive duration such as 10, "10s" or "500ms" (got 0)',
      });
      assert.throws(() => sim.submit(spin, [], { name: 'T', timeLimit: 'soon' }), {
        message: 'task T: timeLimit must be a positive duration such as 10, "10s" or "500ms" (got soon)',
      });
      assert.throws(() => sim.submit(spin, [], { timeLimit: -1 }), /timeLimit must be a positive duration/);
    } finally {
      await sim.close();
    }
    await assert.rejects(Runtime.create({ mode: 'simulated', taskTimeLimit: Number.POSITIVE_INFINITY }), {
      message: 'taskTimeLimit must be a positive duration such as 10, "10s" or "500ms" (got Infinity)',
    });
  });
});

describe('locus run --task-time-limit', { timeout: 120_000 }, () => {
  const env = { ...process.env, LOCUS_PERFMODEL_DIR: MODELS };
  const locus = (...args: string[]) => {
    const r = spawnSync(process.execPath, ['bin/locus.mjs', 'run', ...args], { encoding: 'utf8', env });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  test('is refused in a simulation, and when not a positive duration, in one line', () => {
    const sim = locus('--workload', 'cholesky', '--tiles', '2', '--task-time-limit', '10s');
    assert.equal(sim.code, 2);
    assert.equal(
      sim.err,
      'locus: --task-time-limit applies to --mode real (a simulation runs no kernel that could hang)\n',
    );
    const zero = locus('--mode', 'real', '--workload', 'cholesky', '--tiles', '2', '--task-time-limit', '0s');
    assert.equal(zero.code, 2);
    assert.equal(zero.err, 'locus: --task-time-limit must be a positive duration such as 10s (got 0 s)\n');
    const bad = locus('--mode', 'real', '--task-time-limit', 'soon');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /'soon' is not a duration/);
    assert.equal(bad.err.trim().split('\n').length, 1, bad.err);
  });

  test('a real run within the limit is checked correct', () => {
    const r = locus(
      '--mode',
      'real',
      '--workload',
      'cholesky',
      '--tiles',
      '3',
      '--tile-size',
      '16',
      '--cpus',
      '2',
      '--task-time-limit',
      '60s',
      '--check',
    );
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /check: relative difference to the sequential run 0.00e\+0/);
  });
});
