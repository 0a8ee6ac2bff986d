/**
 * The programs in examples/ run as a user would run them (a child process through tsx) and
 * print what docs/api.md says they print.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { noAdapter } from './helpers/webgpu.ts';

// Real runs save their measurements as performance models: keep them out of ~/.locus.
const env = { ...process.env, LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-models-')) };

function runExample(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'examples/cholesky.ts', ...args], {
    cwd: fileURLToPath(new URL('..', import.meta.url)), // the repository root
    encoding: 'utf8',
    env,
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `exit code ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r.stdout;
}

describe('examples/cholesky.ts', { timeout: 120_000 }, () => {
  test('real run: factorises the matrix and passes its own backward-error check', () => {
    const out = runExample();
    assert.match(out, /^cholesky 1024 x 1024, 8 x 8 tiles of 128: 120 tasks$/m);
    assert.match(
      out,
      /^real run on local \(\d+ workers, scheduler dmdar\): makespan \d+\.\d{4} s, \d+\.\d{2} GFlop\/s$/m,
    );
    assert.match(out, /^L\(0,0\) = 32 \(sqrt\(A\(0,0\)\) = 32\)$/m);
    const err = /^\|\|A - L L\^T\|\|_F \/ \|\|A\|\|_F = (\S+)$/m.exec(out);
    assert.ok(err, out);
    assert.ok(Number(err[1]) <= 1e-10, `backward error ${err[1]}`);
  });

  test('--simulate: the same program, simulated; nothing computed, check skipped', () => {
    const out = runExample('--simulate');
    assert.match(out, /^cholesky 1024 x 1024, 8 x 8 tiles of 128: 120 tasks$/m);
    assert.match(out, /^simulated run on local \(\d+ workers, scheduler dmdar\): makespan \d+\.\d{4} s, /m);
    assert.match(out, /^check skipped: a simulated run computes nothing$/m);
    assert.doesNotMatch(out, /L L\^T/);
  });
});

/** Runs examples/hybrid.mjs (plain JavaScript importing the package) with `args` and --json. */
function runHybrid(...args: string[]) {
  const r = spawnSync(process.execPath, ['examples/hybrid.mjs', ...args, '--json'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    encoding: 'utf8',
    env,
    timeout: 120_000,
  });
  assert.equal(r.status, 0, `exit code ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return JSON.parse(r.stdout) as {
    backend: string;
    mode: string;
    tasks: number;
    residual: number | null;
    adapter?: { software: boolean };
    workers: { name: string; kind: string; tasks: number }[];
  };
}

describe('examples/hybrid.mjs: one file, three backends', { timeout: 300_000 }, () => {
  // 4 x 4 tiles: 64 GEMM tasks (JavaScript and WGSL implementations), 16 CPU-only reductions.
  test('threads: the product and the norms equal the sequential ones', () => {
    const r = runHybrid('--backend', 'threads', '--cpus', '2');
    assert.equal(r.mode, 'real');
    assert.equal(r.tasks, 80);
    assert.ok(r.residual !== null && r.residual < 1e-5, `residual ${r.residual}`);
    assert.equal(r.adapter, undefined);
  });

  test('simulated: the same tasks, on both kinds of worker, nothing computed', () => {
    const r = runHybrid('--backend', 'simulated', '--cpus', '2', '--gpus', '2');
    assert.equal(r.mode, 'simulated');
    assert.equal(r.tasks, 80);
    assert.equal(r.residual, null);
  });

  test(
    'webgpu: GEMM tasks on the devices and the CPUs, reductions on the CPUs only',
    noAdapter ? { skip: noAdapter } : {},
    () => {
      const r = runHybrid('--backend', 'webgpu', '--cpus', '2', '--gpus', '2');
      assert.equal(r.mode, 'real');
      assert.equal(r.tasks, 80);
      assert.ok(r.residual !== null && r.residual < 1e-5, `residual ${r.residual}`);
      assert.equal(typeof r.adapter?.software, 'boolean');
      const by = (kind: string) => r.workers.filter((w) => w.kind === kind).reduce((s, w) => s + w.tasks, 0);
      assert.ok(by('gpu') > 0, 'tasks ran on the GPUs');
      assert.ok(by('cpu') >= 16, 'the 16 reductions ran on the CPUs');
      assert.equal(by('gpu') + by('cpu'), 80);
    },
  );
});
