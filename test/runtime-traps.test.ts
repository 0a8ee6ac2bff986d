/**
 * Issue 26 item 7, the library's traps: checkAccesses (a kernel that writes an R datum or does
 * not overwrite all of a W datum fails naming the task and datum), wait({ sync: true }),
 * options checked at creation, malformed access lists and relative kernel paths refused at
 * declaration, each in one line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Runtime, TaskFailedError } from '../src/exec/runtime.ts';

process.env.LOCUS_PERFMODEL_DIR = mkdtempSync(join(tmpdir(), 'locus-models-'));

const KERNELS = new URL('./fixtures/access-kernels.ts', import.meta.url);

describe('checkAccesses', { timeout: 120_000 }, () => {
  for (const gpus of [0, 1]) {
    test(`a kernel that breaks its declared accesses fails naming the task and datum (${gpus} emulated GPUs)`, async () => {
      const rt = await Runtime.create({ cpus: 1, gpus, checkAccesses: true, onWarning: () => {} });
      try {
        const input = new Float64Array(8).fill(3);
        const x = rt.data(input, { name: 'x' });
        const y = rt.data(new Float64Array(8), { name: 'y' });
        const z = rt.data(new Float64Array(8), { name: 'z' });
        const codelet = (name: string) => rt.codelet({ name, kernel: { module: KERNELS, export: name } });
        const good = rt.submit(
          codelet('copy'),
          [
            [x, 'R'],
            [y, 'W'],
          ],
          { name: 'GOOD' },
        );
        const bad = rt.submit(
          codelet('writesInput'),
          [
            [x, 'R'],
            [z, 'W'],
          ],
          { name: 'BAD_R' },
        );
        const half = rt.submit(
          codelet('writesHalf'),
          [
            [x, 'R'],
            [y, 'W'],
          ],
          { name: 'HALF_W' },
        );
        await good.done;
        await assert.rejects(bad.done, {
          message:
            /^task BAD_R \(codelet writesInput\) failed: its kernel wrote datum x, declared R \(element 0 changed\): declare it RW, or do not write it$/,
        });
        await assert.rejects(half.done, {
          message:
            /failed: its kernel left 4 of the 8 elements of datum y, declared W, unwritten: write all of it, or declare it RW$/,
        });
        const e = await rt.wait().then(
          () => undefined,
          (err: unknown) => err,
        );
        assert.ok(e instanceof TaskFailedError);
        assert.equal(e.failures.length, 2);
      } finally {
        await rt.close();
      }
    });
  }

  test('locus run --check-accesses: the built-in kernels keep their declared accesses', () => {
    const r = spawnSync(
      process.execPath,
      ['bin/locus.mjs', 'run', '--mode', 'real', '-w', 'cholesky', '--tiles', '3', '--tile-size', '8'].concat(
        ['--check-accesses', '--check', '--no-record', '--json'],
      ),
      { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { residual: number }).residual, 0);
  });

  test('without it the same kernels run unchecked; a simulation refuses it', async () => {
    const rt = await Runtime.create({ cpus: 1 });
    try {
      const x = rt.data(new Float64Array(4), { name: 'x' });
      const y = rt.data(new Float64Array(4), { name: 'y' });
      const c = rt.codelet({ name: 'writesInput', kernel: { module: KERNELS, export: 'writesInput' } });
      await rt.submit(c, [
        [x, 'R'],
        [y, 'W'],
      ]).done;
    } finally {
      await rt.close();
    }
    await assert.rejects(Runtime.create({ mode: 'simulated', checkAccesses: true }), {
      code: 'LOCUS_OPTION_CONFLICT',
      message: 'RuntimeOptions.checkAccesses applies to real mode (a simulation runs no kernel)',
    });
    await assert.rejects(Runtime.create({ backend: 'webgpu', checkAccesses: true }), {
      code: 'LOCUS_OPTION_CONFLICT',
      message: /^RuntimeOptions\.checkAccesses applies to the threads backend/,
    });
  });
});

describe('traps refused in one line', { timeout: 120_000 }, () => {
  test('wait({ sync: true }) brings the results into the arrays; wait() alone does not', async () => {
    const rt = await Runtime.create({ cpus: 1, gpus: 1, scheduler: 'dmda', onWarning: () => {} });
    try {
      const a = new Float64Array(4);
      const x = rt.data(a, { name: 'x' });
      const inc = rt.codelet({ name: 'inc', kinds: ['gpu'], kernel: { module: KERNELS, export: 'inc' } });
      rt.submit(inc, [[x, 'RW']]);
      await rt.wait();
      assert.deepEqual(
        [...a],
        [0, 0, 0, 0],
        'the task ran on the emulated GPU: the array is not updated yet',
      );
      rt.submit(inc, [[x, 'RW']]);
      await rt.wait({ sync: true });
      assert.deepEqual([...a], [2, 2, 2, 2]);
    } finally {
      await rt.close();
    }
  });

  test('options out of range are refused at creation', async () => {
    for (const [options, message] of [
      [{ pipeline: 0 }, /^RuntimeOptions\.pipeline must be an integer from 1 up \(got 0\)$/],
      [{ lookahead: -1 }, /^RuntimeOptions\.lookahead must be an integer from 0 up/],
      [{ seed: 2 ** 31 }, /^RuntimeOptions\.seed must be an integer from 0 to 2147483647/],
      [{ minClean: 101 }, /^RuntimeOptions\.minClean must be a percentage from 0 to 100/],
      [{ scheduler: 'nope' }, /^unknown scheduler 'nope': use one of /],
      [{ eviction: 'nope' }, /^unknown eviction policy 'nope': use one of /],
    ] as const) {
      await assert.rejects(Runtime.create({ mode: 'simulated', ...options }), { message });
    }
  });

  test('a malformed access list names the shape expected', async () => {
    const rt = await Runtime.create({ mode: 'simulated' });
    try {
      const x = rt.data(new Float64Array(4), { name: 'x' });
      const c = rt.codelet({ name: 'k' });
      assert.throws(() => rt.submit(c, [x, 'R'] as never), {
        code: 'LOCUS_GRAPH_INVALID',
        message:
          "task k: accesses must be a list of [data, mode] pairs such as [[x, 'R'], [y, 'RW']] (got an object where a pair was expected)",
      });
      assert.throws(() => rt.submit(c, x as never), {
        message: /^task k: accesses must be a list of \[data, mode\] pairs/,
      });
      assert.throws(() => rt.submit(c, [[x]] as never), {
        message: /got a list of 1 where a pair was expected/,
      });
    } finally {
      await rt.close();
    }
  });

  test('a relative kernel path is refused at declaration; an absolute one is a file URL', async () => {
    const rt = await Runtime.create({ cpus: 1 });
    try {
      assert.throws(() => rt.codelet({ name: 'k', kernel: { module: './kernels.mjs', export: 'k' } }), {
        code: 'LOCUS_GRAPH_INVALID',
        message:
          "codelet k: kernel.module './kernels.mjs' is a relative path, which the worker threads cannot resolve from your program: give new URL('./kernels.mjs', import.meta.url) or an absolute path",
      });
      const a = new Float64Array(2);
      const x = rt.data(a, { name: 'x' });
      const inc = rt.codelet({ name: 'inc', kernel: { module: fileURLToPath(KERNELS), export: 'inc' } });
      await rt.submit(inc, [[x, 'RW']]).done;
      await rt.sync();
      assert.deepEqual([...a], [1, 1]);
    } finally {
      await rt.close();
    }
  });
});
