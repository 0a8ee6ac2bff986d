import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LocusError } from '../src/core/types.ts';
import type { Sample } from '../src/perf/history.ts';
import { realMachineName } from '../src/perf/machine-name.ts';
import { ModelStore } from '../src/perf/store.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'locus-perfrel-'));
const sample = (seconds: number, over: Partial<Sample> = {}): Sample => ({
  codelet: 'gemm',
  kind: 'cpu',
  footprint: '524288x3',
  size: 2 * 64 ** 3,
  seconds,
  ...over,
});

/** A codelet file of one entry with the given fields. */
function modelFile(codelet: string, entry: Record<string, unknown>): string {
  const e = { kind: 'cpu', footprint: '524288x3', size: 2 * 64 ** 3, count: 2, mean: 1e-3, m2: 0, ...entry };
  return `${JSON.stringify({ format: 'locus-perfmodel', version: 1, codelet, entries: [e] }, null, 2)}\n`;
}

// Issue 12 item 11: the writer validates what it writes as the reader validates what it reads.
describe('perf model store: strict both ways', () => {
  test('a mean of 1e200 (readable) is not merged into a file the reader would refuse', () => {
    const store = new ModelStore(tmp());
    store.saveSamples([sample(1e-3)]);
    const file = store.codeletFile('gemm');
    const text = modelFile('gemm', { mean: 1e200 });
    writeFileSync(file, text);
    assert.equal(store.loadHistory().entry('gemm', 'cpu', '524288x3')!.mean, 1e200);
    assert.throws(
      () => store.saveSamples([sample(1e-3)]),
      (e: unknown) =>
        e instanceof LocusError &&
        e.message.startsWith(
          `perf model file ${file} not updated: the merged statistics have a bad field entries[0].m2 (cpu, footprint 524288x3)`,
        ) &&
        !e.message.includes('\n'),
    );
    assert.equal(readFileSync(file, 'utf8'), text, 'the file is kept as it was');
    assert.doesNotMatch(readFileSync(file, 'utf8'), /null/);
    store.loadHistory();
  });

  test('zero and negative means are refused when read', () => {
    const store = new ModelStore(tmp());
    store.saveSamples([sample(1e-3)]);
    for (const mean of [0, -1]) {
      writeFileSync(store.codeletFile('gemm'), modelFile('gemm', { mean }));
      assert.throws(() => store.loadHistory(), /has a bad field entries\[0\]\.mean \(/);
    }
  });

  test('a tolerant load skips the bad codelet, reports it once, and saving leaves its file alone', () => {
    const store = new ModelStore(tmp());
    store.saveSamples([sample(1e-3), sample(2e-3, { codelet: 'trsm' })]);
    const bad = modelFile('gemm', { mean: -1 });
    writeFileSync(store.codeletFile('gemm'), bad);
    assert.throws(() => store.loadHistory(), LocusError);
    const messages: string[] = [];
    const model = store.loadHistory((m) => messages.push(m));
    assert.equal(messages.length, 1);
    assert.match(messages[0]!, /gemm\.json has a bad field entries\[0\]\.mean/);
    assert.deepEqual(model.codelets(), ['trsm']);
    store.saveSamples([sample(1e-3), sample(2e-3, { codelet: 'trsm' })]);
    assert.equal(readFileSync(store.codeletFile('gemm'), 'utf8'), bad);
    assert.equal(store.loadCodelet('trsm')[0]!.count, 2);
  });
});

// Issue 12 item 10: stale locks are detected and cleared.
describe('perf model store: stale locks', () => {
  for (const [what, content] of [
    ['an empty lock (a full disk) from 5 s ago', ''],
    ['a lock of a process that has ended', `${spawnSync(process.execPath, ['-e', '0']).pid} 0123abcd\n`],
  ] as const) {
    test(`${what} is cleared at once`, () => {
      const store = new ModelStore(tmp());
      store.saveSamples([sample(1e-3)]);
      const lock = `${store.codeletFile('gemm')}.lock`;
      writeFileSync(lock, content);
      const t = (Date.now() - 5000) / 1000;
      utimesSync(lock, t, t);
      const t0 = Date.now();
      store.saveSamples([sample(2e-3)]);
      assert.equal(store.loadCodelet('gemm')[0]!.count, 2);
      assert.equal(existsSync(lock), false);
      assert.ok(Date.now() - t0 < 9000, 'did not wait for the 10 s lock timeout');
    });
  }
});

function locus(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const REAL = [
  'run',
  '--mode',
  'real',
  '-w',
  'cholesky',
  '--tiles',
  '3',
  '--tile-size',
  '16',
  '--cpus',
  '2',
  '--check',
];

describe('locus run --mode real: the results come first', () => {
  test('models that cannot be saved: report, check line, then one warning; --no-record skips saving', () => {
    const blocker = join(tmp(), 'a-file');
    writeFileSync(blocker, 'not a folder');
    const r = locus({ LOCUS_PERFMODEL_DIR: blocker }, ...REAL);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /makespan/);
    assert.match(r.out, /check: relative difference to the sequential run/);
    const lines = r.err.trim().split('\n');
    assert.equal(lines.length, 1, r.err);
    assert.match(
      lines[0]!,
      /^locus: warning: performance models not saved: cannot write perf models in folder .*a-file.* \(--no-record skips saving\)$/,
    );
    const q = locus({ LOCUS_PERFMODEL_DIR: blocker }, ...REAL, '--no-record');
    assert.equal(q.code, 0, q.err);
    assert.equal(q.err, '');
    assert.match(q.out, /check: relative difference/);
  });

  test('a corrupt model file: a run warns once and goes on; export and calibrate refuse', () => {
    const dir = tmp();
    mkdirSync(join(dir, realMachineName('local'), 'codelets'), { recursive: true });
    const file = join(dir, realMachineName('local'), 'codelets', 'gemm.json');
    const bad = modelFile('gemm', { mean: 1e-3, m2: null });
    writeFileSync(file, bad);
    const env = { LOCUS_PERFMODEL_DIR: dir };
    const r = locus(env, ...REAL);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /check: relative difference/);
    const lines = r.err.trim().split('\n');
    assert.equal(lines.length, 1, r.err);
    assert.match(
      lines[0]!,
      /^locus: warning: perf model file .*gemm\.json has a bad field entries\[0\]\.m2 .*; its model is ignored$/,
    );
    assert.equal(readFileSync(file, 'utf8'), bad, 'the corrupt file is kept');
    assert.ok(
      existsSync(join(dir, realMachineName('local'), 'codelets', 'potrf.json')),
      'the other codelets are saved',
    );
    for (const args of [
      ['platform', 'export'],
      ['calibrate', '--tile-size', '16', '--cpus', '1'],
    ]) {
      const x = locus(env, ...args);
      assert.equal(x.code, 2, `${args.join(' ')}: ${x.err}`);
      assert.match(x.err, /^locus: perf model file .*gemm\.json has a bad field entries\[0\]\.m2/);
      assert.equal(x.err.trim().split('\n').length, 1);
    }
  });
});
