/**
 * `locus run --mode real --backend webgpu` end to end on the adapter found here (lavapipe on
 * CI): GEMM (every task may run on a device), Cholesky (POTRF on the CPU worker) and Jacobi
 * (CPU kernels only, so far) pass their checks, and the JSON names the adapter; float64 is
 * refused in one line with exit code 2. Skipped, with the reason, where no adapter is found.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { noAdapter } from './helpers/webgpu.ts';

const ENV = { ...process.env, LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-models-')) };

function locus(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], { encoding: 'utf8', env: ENV });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const skip = noAdapter === undefined ? {} : { skip: noAdapter };

describe('locus run --backend webgpu', { timeout: 300_000, ...skip }, () => {
  test('--trace writes a Chrome trace: one slice per task, and the copies to the devices', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'locus-')), 't.json');
    const r = locus(
      'run',
      '--mode',
      'real',
      '--backend',
      'webgpu',
      '-w',
      'gemm',
      '--tiles',
      '2',
      '--tile-size',
      '32',
      '--json',
      '--trace',
      file,
    );
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out);
    const slices = JSON.parse(readFileSync(file, 'utf8')).traceEvents.filter(
      (e: { ph: string }) => e.ph === 'X',
    );
    assert.equal(
      slices.filter((e: { pid: number }) => e.pid === 1).length,
      report.tasks,
      'one slice per task',
    );
    assert.equal(
      // Copies to the devices (the copies home for sync() come after the report's counts).
      slices.filter((e: { cat: string; name: string }) => e.cat === 'fetch' && /->gpu\d+$/.test(e.name))
        .length,
      report.transfersToDevices,
      'one slice per copy to a device',
    );
  });

  for (const workload of ['gemm', 'cholesky', 'jacobi']) {
    test(`${workload}: 4 tiles of 64 pass --check; the JSON names the adapter`, () => {
      const r = locus(
        'run',
        '--mode',
        'real',
        '--backend',
        'webgpu',
        '--workload',
        workload,
        '--tiles',
        '4',
        '--tile-size',
        '64',
        '--check',
        '--json',
      );
      assert.equal(r.code, 0, r.err);
      const j = JSON.parse(r.out);
      assert.ok(j.residual <= 1e-4, `residual ${j.residual}`);
      assert.equal(typeof j.adapter.vendor, 'string');
      assert.equal(typeof j.adapter.software, 'boolean');
      assert.ok(j.adapter.device.length > 0 || j.adapter.description.length > 0);
      const byName = Object.fromEntries(
        j.workers.map((w: { name: string; tasks: number }) => [w.name, w.tasks]),
      );
      assert.equal(
        j.workers.reduce((s: number, w: { tasks: number }) => s + w.tasks, 0),
        j.tasks,
      );
      // POTRF has no WGSL: the 4 ran on the one CPU worker, which may also have taken other
      // tasks (the default lws lets an idle worker steal).
      if (workload === 'cholesky')
        assert.ok(byName.cpu0 >= 4, `the 4 POTRFs ran on the CPU worker (${byName.cpu0} tasks)`);
      if (workload !== 'cholesky') assert.ok(byName.gpu0 + byName.gpu1 > 0, 'tasks ran on the devices');
      if (workload === 'gemm') assert.ok(j.transfersToDevices > 0);
    });
  }

  test('out of core: cholesky 8x8 tiles of 32 with 12 KiB of host memory and a disk passes --check', () => {
    // 36 tiles of 4 KiB against a 12 KiB host cap: host memory holds 3 tiles, so the GPUs also
    // read tiles from the disk directly and write theirs back there (the engine's direct copies
    // when host memory has no room), through the same disk file as the CPU worker's copies.
    const dir = mkdtempSync(join(tmpdir(), 'locus-webgpu-disk-'));
    const r = locus(
      'run',
      '--mode',
      'real',
      '--backend',
      'webgpu',
      '-w',
      'cholesky',
      '--tiles',
      '8',
      '--tile-size',
      '32',
      '--host-mem',
      '12KiB',
      '--disk',
      dir,
      '--check',
      '--json',
    );
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.ok(j.residual <= 1e-4, `residual ${j.residual}`);
    assert.ok(j.bytesFromDisk > 0 && j.bytesToDisk > 0);
    assert.ok(j.outOfCore.hostPeakBytes <= 12 * 1024);
    assert.ok(j.outOfCore.diskBytes >= 4 * 12 * 1024);
    assert.ok(j.transfersToDevices > 0, 'tiles went to the devices');
    assert.deepEqual(readdirSync(dir), [], 'the disk folder is removed');
  });

  for (const [workload, extra, tasks] of [
    ['matmul2d', ['--tiles', '3', '--tile-size', '32', '--inner', '64'], 9],
    ['stencil', ['--tiles', '3', '--tile-size', '16', '--inner', '9', '--iterations', '3'], 3 * 3 + 2 * 3],
  ] as const) {
    test(`${workload}: small sizes pass --check on the devices; the JSON names the adapter`, () => {
      const r = locus(
        'run',
        '--mode',
        'real',
        '--backend',
        'webgpu',
        '--workload',
        workload,
        ...extra,
        '--check',
        '--json',
      );
      assert.equal(r.code, 0, r.err);
      const j = JSON.parse(r.out);
      assert.ok(
        j.residual > 0 && j.residual <= 1e-4,
        `residual ${j.residual} (0 would mean nothing to compare)`,
      );
      assert.equal(j.tasks, tasks);
      assert.equal(typeof j.adapter.software, 'boolean');
      const byName = Object.fromEntries(
        j.workers.map((w: { name: string; tasks: number }) => [w.name, w.tasks]),
      );
      assert.ok(byName.gpu0 + byName.gpu1 > 0, 'tasks ran on the devices');
    });
  }

  test('matmul2d refuses an --inner that is not a multiple of 4 in one line', () => {
    const r = locus(
      'run',
      '--mode',
      'real',
      '--backend',
      'webgpu',
      '-w',
      'matmul2d',
      '--inner',
      '30',
      '--tiles',
      '2',
    );
    assert.equal(r.code, 2);
    assert.match(r.err, /^locus: --backend webgpu: --inner must be a multiple of 4 .*\n$/);
  });

  test('float64 is refused in one line with exit code 2', () => {
    const r = locus(
      'run',
      '--mode',
      'real',
      '--backend',
      'webgpu',
      '--workload',
      'gemm',
      '--precision',
      'double',
    );
    assert.equal(r.code, 2);
    assert.match(r.err, /^locus: --backend webgpu computes in float32 .*\n$/);
  });
});
