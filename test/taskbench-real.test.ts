/**
 * Task Bench for real (issue 28): the tasks' kernels (src/kernels/taskbench.ts), the workload on
 * worker threads against its sequential run, and `locus bench metg` (src/exec/metg.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { measureMetg, metgOf } from '../src/exec/metg.ts';
import { Runtime } from '../src/exec/runtime.ts';
import { memoryKernel, TASKBENCH_KERNEL_CODES, taskbenchTask } from '../src/kernels/taskbench.ts';

process.env.LOCUS_PERFMODEL_DIR = mkdtempSync(join(tmpdir(), 'locus-models-'));

function locus(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('Task Bench kernels', () => {
  test('a task writes its (t, x) and checks that its inputs come from timestep t - 1', () => {
    const out = new Float64Array(3);
    const input = Float64Array.of(4, 1, 0);
    taskbenchTask([out, input], Float64Array.of(TASKBENCH_KERNEL_CODES.compute_bound, 3, 5, 2));
    assert.deepEqual([out[0], out[1]], [5, 2]);
    // Task Bench's portable compute_bound: 64 values of 1.2345, 3 times a = a * a + a, then their product.
    let a = 1.2345;
    for (let i = 0; i < 3; i++) a = a * a + a;
    let product = 1;
    for (let i = 0; i < 64; i++) product *= a;
    assert.equal(out[2], product);
    assert.throws(
      () => taskbenchTask([out, Float64Array.of(3, 1)], Float64Array.of(0, 0, 5, 2)),
      /Task Bench task \(5, 2\): input 1 holds timestep 3, expected 4/,
    );
    taskbenchTask([out], Float64Array.of(TASKBENCH_KERNEL_CODES.busy_wait, 2, 0, 0));
    assert.equal(out[2], (((113 * 139) % 2147483647) * 139) % 2147483647);
  });
});

describe("Task Bench's memory kernel", () => {
  test('copies the first half of consecutive samples onto their second half, as Task Bench groups them', () => {
    const m = Uint8Array.from({ length: 256 }, (_, i) => i);
    // 1 iteration at timestep 0: sample 0 (bytes 0..15), its first half onto its second.
    memoryKernel(m, 1, 0, 16);
    assert.deepEqual([...m.subarray(0, 16)], [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(m[16], 16);
    // 20 iterations at timestep 0: samples 0..15 in one copy (bytes 0..127 onto 128..255), then
    // samples 0..3 (bytes 0..31 onto 32..63).
    const n = Uint8Array.from({ length: 256 }, (_, i) => i);
    memoryKernel(n, 20, 0, 16);
    assert.equal(n[128], 0);
    assert.equal(n[255], 127);
    assert.equal(n[32], 0);
    assert.equal(n[63], 31);
    assert.equal(n[64], 64);
  });
});

describe('locus run --mode real -w taskbench', { timeout: 120_000 }, () => {
  for (const kernel of ['empty', 'busy_wait', 'compute_bound', 'load_imbalance'])
    test(`${kernel}: stencil_1d and fft pass --check on worker threads`, () => {
      for (const pattern of ['stencil_1d', 'fft']) {
        const r = locus(
          'run',
          '--mode',
          'real',
          '-w',
          'taskbench',
          '--pattern',
          pattern,
          '--width',
          '4',
          '--steps',
          '5',
          '--kernel',
          kernel,
          '--iterations',
          '50',
          '--imbalance',
          '0.5',
          '--cpus',
          '2',
          '--check',
          '--json',
        );
        assert.equal(r.code, 0, r.err);
        const j = JSON.parse(r.out);
        assert.equal(j.tasks, 20);
        assert.equal(j.residual, 0);
      }
    });

  test('memory_bound streams through --scratch-bytes; without it, one line', () => {
    const ok = locus(
      'run',
      '--mode',
      'real',
      '-w',
      'taskbench',
      '--pattern',
      'stencil_1d',
      '--kernel',
      'memory_bound',
      '--iterations',
      '40',
      '--scratch-bytes',
      '4096',
      '--check',
      '--json',
    );
    assert.equal(ok.code, 0, ok.err);
    assert.equal(JSON.parse(ok.out).residual, 0);
    const r = locus('run', '--mode', 'real', '-w', 'taskbench', '--kernel', 'memory_bound');
    assert.equal(r.code, 2);
    assert.match(
      r.err,
      /^locus: kernel memory_bound streams through each task's scratch memory: give --scratch-bytes of at least 256 \(got 0\)\n$/,
    );
  });
});

describe('METG', { timeout: 120_000 }, () => {
  test('METG(50%) interpolates in log(granularity) between the last point above 50% and the next', () => {
    const points = [
      { granularityUs: 1000, efficiency: 1 },
      { granularityUs: 100, efficiency: 0.75 },
      { granularityUs: 10, efficiency: 0.25 },
      { granularityUs: 1, efficiency: 0.01 },
    ];
    assert.ok(Math.abs(metgOf(points)! - Math.sqrt(1000)) < 1e-9);
    assert.equal(metgOf(points.slice(0, 2)), undefined, 'never below 50%');
  });

  test('a sweep halves the iterations down to 1; efficiencies are relative to its best rate', async () => {
    const rt = await Runtime.create({ cpus: 2, perfModels: 'off' });
    try {
      const r = await measureMetg({ runtime: rt, workers: 2, steps: 4, maxIterations: 4, rounds: 1 });
      assert.deepEqual(
        r.points.map((p) => p.iterations),
        [4, 2, 1],
      );
      for (const p of r.points) assert.equal(p.tasks, 8);
      assert.equal(Math.max(...r.points.map((p) => p.efficiency)), 1);
      assert.equal(r.pattern, 'stencil_1d');
    } finally {
      await rt.close();
    }
  });

  test('locus bench metg writes the curve; --kernel empty gives the cost per task; a bad kernel is one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-metg-'));
    const r = locus('bench', 'metg', '--steps', '4', '--max-iterations', '8', '--rounds', '1', '--out', dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /METG\(50%\): /);
    assert.ok(existsSync(join(dir, 'metg.csv')));
    assert.equal(readFileSync(join(dir, 'metg.csv'), 'utf8').trim().split('\n').length, 1 + 4);
    const empty = locus('bench', 'metg', '--kernel', 'empty', '--steps', '4', '--rounds', '1', '--json');
    assert.equal(empty.code, 0, empty.err);
    assert.ok(JSON.parse(empty.out).granularityUs > 0);
    const bad = locus('bench', 'metg', '--kernel', 'memory_bound');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^locus: --kernel must be compute_bound or busy_wait/);
  });
});
