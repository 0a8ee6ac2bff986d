/** Performance models: history statistics, regressions, and the model store on disk. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LocusError } from '../src/core/types.ts';
import {
  evalLinear,
  evalPower,
  fitFromHistory,
  fitLinear,
  fitPowerLaw,
  type HistoryEntry,
  HistoryModel,
  ModelStore,
  type Sample,
} from '../src/perf/index.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'locus-perf-'));
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** A small seeded generator (mulberry32) of uniform numbers in [0, 1). */
function uniform(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal numbers (Box-Muller) from a seeded uniform source. */
function normal(seed: number): () => number {
  const u = uniform(seed);
  return () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

const close = (actual: number, expected: number, rel: number, what = '') =>
  assert.ok(
    Math.abs(actual - expected) <= rel * Math.abs(expected),
    `${what} ${actual} vs ${expected} (relative error ${Math.abs(actual / expected - 1)})`,
  );

/** Two-pass mean and sample standard deviation. */
function twoPass(xs: number[]) {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const ss = xs.reduce((s, x) => s + (x - mean) ** 2, 0);
  return { mean, std: Math.sqrt(ss / (xs.length - 1)) };
}

const sample = (seconds: number, over: Partial<Sample> = {}): Sample => ({
  codelet: 'gemm',
  kind: 'cpu',
  footprint: '524288x3',
  size: 2 * 64 ** 3,
  seconds,
  ...over,
});

describe('HistoryModel', () => {
  test("Welford's running mean and std match the two-pass ones, even on a large offset", () => {
    const g = normal(7);
    const xs = Array.from({ length: 1000 }, () => 1e3 + 1e-3 * g());
    const h = new HistoryModel();
    for (const x of xs) h.record(sample(x));
    const e = h.entry('gemm', 'cpu', '524288x3')!;
    const ref = twoPass(xs);
    assert.equal(e.count, 1000);
    close(e.mean, ref.mean, 1e-14, 'mean');
    close(h.std(e), ref.std, 1e-8, 'std');
    assert.equal(h.entry('gemm', 'gpu', '524288x3'), undefined);
    assert.equal(h.entry('other', 'cpu', '524288x3'), undefined);
  });

  test('one sample has std 0; lookups are copies; listings are sorted', () => {
    const h = new HistoryModel();
    h.record(sample(2, { codelet: 'trsm', kind: 'gpu', footprint: 'b', size: 20 }));
    h.record(sample(1, { codelet: 'trsm', kind: 'gpu', footprint: 'a', size: 10 }));
    h.record(sample(3, { codelet: 'trsm', kind: 'cpu', footprint: 'c', size: 30 }));
    h.record(sample(1));
    assert.deepEqual(h.codelets(), ['gemm', 'trsm']);
    assert.deepEqual(
      h.entries('trsm').map((e) => `${e.kind}/${e.footprint}`),
      ['cpu/c', 'gpu/a', 'gpu/b'],
    );
    const e = h.entry('gemm', 'cpu', '524288x3')!;
    assert.equal(h.std(e), 0);
    e.count = 99;
    assert.equal(h.entry('gemm', 'cpu', '524288x3')!.count, 1);
    assert.deepEqual(h.entries('nothing'), []);
    assert.throws(() => h.record(sample(Number.NaN)), RangeError);
    assert.throws(() => h.record(sample(-1)), RangeError);
  });

  test('merging two sets of statistics equals recording every sample (Chan et al.)', () => {
    const g = normal(11);
    const all = new HistoryModel();
    const a = new HistoryModel();
    const b = new HistoryModel();
    for (let i = 0; i < 300; i++) {
      const s = sample(5e-3 + 1e-4 * g(), {
        footprint: i % 3 === 0 ? 'small' : 'big',
        kind: i % 5 === 0 ? 'gpu' : 'cpu',
      });
      all.record(s);
      (i < 120 ? a : b).record(s);
    }
    b.record(sample(1, { footprint: 'only-in-b' }));
    all.record(sample(1, { footprint: 'only-in-b' }));
    a.merge('gemm', b.entries('gemm'));
    const got = a.entries('gemm');
    const want = all.entries('gemm');
    assert.equal(got.length, want.length);
    for (let i = 0; i < got.length; i++) {
      assert.equal(got[i]!.footprint, want[i]!.footprint);
      assert.equal(got[i]!.count, want[i]!.count);
      close(got[i]!.mean, want[i]!.mean, 1e-13, 'mean');
      if (want[i]!.m2 > 0) close(got[i]!.m2, want[i]!.m2, 1e-9, 'm2');
    }
    const c = new HistoryModel();
    c.mergeModel(all);
    assert.deepEqual(c.entries('gemm'), all.entries('gemm'));
  });
});

describe('regressions', () => {
  test('fitLinear recovers an exact line, weighted or not, and needs 2 distinct x', () => {
    const xs = [1, 2, 4, 8, 16];
    const ys = xs.map((x) => 3.5 * x - 2);
    for (const w of [undefined, [1, 2, 3, 4, 5]]) {
      const f = fitLinear(xs, ys, w);
      close(f.a, 3.5, 1e-12);
      close(f.b, -2, 1e-12);
      close(f.r2, 1, 1e-12);
      assert.equal(f.n, 5);
      close(evalLinear(f, 100), 348, 1e-12);
    }
    assert.throws(() => fitLinear([2, 2, 2], [1, 2, 3]), RangeError);
    assert.throws(() => fitLinear([1, 2], [1]), RangeError);
  });

  test('fitPowerLaw recovers noiseless parameters to 1e-6', () => {
    const xs = Array.from({ length: 16 }, (_, i) => 64 * 2 ** (i / 3));
    for (const [a, b, c] of [
      [2e-9, 3, 1e-5],
      [1e-6, 1.5, 2e-4],
      [3e-4, 0.5, 0],
      [1e-13, 4.4, 1e-3],
    ] as const) {
      const f = fitPowerLaw(
        xs,
        xs.map((x) => a * x ** b + c),
      );
      close(f.a, a, 1e-6, 'a');
      close(f.b, b, 1e-6, 'b');
      if (c === 0) assert.ok(Math.abs(f.c) < 1e-12 * a * 2048 ** b);
      else close(f.c, c, 1e-6, 'c');
      close(f.r2, 1, 1e-9, 'r2');
      assert.equal(f.n, 16);
      close(evalPower(f, 4096), a * 4096 ** b + c, 1e-6, 'extrapolated');
    }
    assert.throws(() => fitPowerLaw([1, 2, 2], [1, 2, 3]), RangeError);
    assert.throws(() => fitPowerLaw([0, 1, 2], [1, 2, 3]), RangeError);
  });

  test('fitPowerLaw with 2% multiplicative noise is within a few %', () => {
    const [a, b, c] = [2e-9, 3, 1e-3];
    const g = normal(2024);
    const xs = Array.from({ length: 64 }, (_, i) => 64 * 32 ** (i / 63));
    const ys = xs.map((x) => (a * x ** b + c) * (1 + 0.02 * g()));
    // Relative least squares suits multiplicative noise: weights 1 / y^2.
    const f = fitPowerLaw(
      xs,
      ys,
      ys.map((y) => 1 / (y * y)),
    );
    close(f.a, a, 0.05, 'a');
    close(f.b, b, 0.01, 'b');
    close(f.c, c, 0.05, 'c');
    for (const x of xs) close(evalPower(f, x), a * x ** b + c, 0.02, `at ${x}`);
  });

  test('fitFromHistory: nothing, then the line, then the power law as sizes are measured', () => {
    const cost = (n: number) => 2e-9 * n ** 3 + 1e-5;
    const h = new HistoryModel();
    const g = normal(5);
    const fitAfter = (n: number) => {
      for (let i = 0; i < 5; i++)
        h.record(sample(cost(n) * (1 + 1e-3 * g()), { footprint: `${n}`, size: n }));
      return fitFromHistory(h.entries('gemm'));
    };
    assert.deepEqual(fitFromHistory([]), {});
    assert.deepEqual(fitAfter(64), {});
    const two = fitAfter(256);
    assert.ok(two.linear && !two.power);
    close(evalLinear(two.linear, 256), cost(256), 1e-2);
    let fit = two;
    for (const n of [128, 512, 1024, 2048]) fit = fitAfter(n);
    assert.ok(fit.power && fit.linear);
    close(fit.power.b, 3, 0.01, 'b');
    close(evalPower(fit.power, 768), cost(768), 0.01, 'unmeasured size');
    // Exact data: every weighting recovers the law.
    const exact: HistoryEntry[] = [64, 128, 256, 512].map((n) => ({
      kind: 'cpu',
      footprint: `${n}`,
      size: n,
      count: n / 32,
      mean: cost(n),
      m2: 0,
    }));
    for (const weighting of ['relative', 'uniform', 'samples'] as const) {
      const f = fitFromHistory(exact, { weighting });
      close(f.power!.a, 2e-9, 1e-6, weighting);
      close(f.power!.c, 1e-5, 1e-6, weighting);
    }
  });
});

/** A model with a few entries over two codelets. */
function someSamples(): Sample[] {
  const out: Sample[] = [];
  const g = normal(3);
  for (let i = 0; i < 40; i++) {
    out.push(
      sample(1e-3 * (1 + 0.1 * g()), { kind: i % 2 ? 'gpu' : 'cpu', footprint: i % 4 < 2 ? 'a' : 'b' }),
    );
    out.push(sample(2e-3 * (1 + 0.1 * g()), { codelet: 'potrf', footprint: '32768', size: 1e5 }));
  }
  return out;
}

describe('ModelStore', () => {
  test('defaultDir: LOCUS_PERFMODEL_DIR, else ~/.locus/perfmodels', () => {
    const saved = process.env.LOCUS_PERFMODEL_DIR;
    try {
      process.env.LOCUS_PERFMODEL_DIR = '/some/where';
      assert.equal(ModelStore.defaultDir(), '/some/where');
      delete process.env.LOCUS_PERFMODEL_DIR;
      assert.match(ModelStore.defaultDir(), /[/\\]\.locus[/\\]perfmodels$/);
    } finally {
      if (saved === undefined) delete process.env.LOCUS_PERFMODEL_DIR;
      else process.env.LOCUS_PERFMODEL_DIR = saved;
    }
  });

  test('a missing folder is an empty model', () => {
    const store = new ModelStore(join(tmp(), 'none'));
    assert.deepEqual(store.loadHistory().codelets(), []);
    assert.deepEqual(store.loadCodelet('gemm'), []);
    assert.equal(store.loadBus('m'), undefined);
    store.saveSamples([]);
    assert.equal(existsSync(store.dir), false);
  });

  test('samples round-trip through readable files, and later saves merge', () => {
    const dir = tmp();
    const store = new ModelStore(dir);
    const samples = someSamples();
    const ref = new HistoryModel();
    for (const s of samples) ref.record(s);
    store.saveSamples(samples);
    assert.deepEqual(readdirSync(join(dir, 'codelets')).sort(), ['gemm.json', 'potrf.json']);
    const loaded = store.loadHistory();
    assert.deepEqual(loaded.codelets(), ['gemm', 'potrf']);
    for (const c of ['gemm', 'potrf']) assert.deepEqual(loaded.entries(c), ref.entries(c));
    assert.deepEqual(store.loadCodelet('potrf'), ref.entries('potrf'));

    const text = readFileSync(store.codeletFile('gemm'), 'utf8');
    assert.match(text, /^\{\n {2}"format": "locus-perfmodel",\n {2}"version": 1,\n {2}"codelet": "gemm",/);
    const file = JSON.parse(text);
    const e0 = ref.entries('gemm')[0]!;
    assert.equal(file.entries[0].std, ref.std(e0));

    store.saveSamples(samples);
    for (const s of samples) ref.record(s);
    const again = store.loadHistory();
    for (const c of ['gemm', 'potrf']) {
      const got = again.entries(c);
      const want = ref.entries(c);
      assert.deepEqual(
        got.map((e) => e.count),
        want.map((e) => e.count),
      );
      for (let i = 0; i < got.length; i++) close(got[i]!.mean, want[i]!.mean, 1e-13);
    }
    assert.deepEqual(
      readdirSync(join(dir, 'codelets')).filter((n) => !n.endsWith('.json')),
      [],
      'no lock or temporary file left',
    );
  });

  test('names outside [A-Za-z0-9._+-] are replaced in file names, not in the models', () => {
    const store = new ModelStore(tmp());
    store.saveSamples([sample(1, { codelet: 'my kernel/v2' })]);
    assert.ok(store.codeletFile('my kernel/v2').endsWith(join('codelets', 'my_kernel_v2.json')));
    assert.deepEqual(store.loadHistory().codelets(), ['my kernel/v2']);
    assert.throws(
      () => store.saveSamples([sample(1, { codelet: 'my_kernel_v2' })]),
      /holds codelet 'my kernel\/v2'/,
    );
  });

  test('the bus round-trips, an unbounded bandwidth included', () => {
    const store = new ModelStore(tmp());
    const pairs = [
      { src: 'ram', dst: 'gpu0', bandwidth: 8e9, latency: 5e-6, samples: 28 },
      { src: 'gpu0', dst: 'ram', bandwidth: Number.POSITIVE_INFINITY, latency: 0, samples: 28 },
    ];
    store.saveBus('box 1', pairs);
    assert.deepEqual(store.loadBus('box 1'), { machine: 'box 1', pairs });
    const file = JSON.parse(readFileSync(store.busFile('box 1'), 'utf8'));
    assert.equal(file.format, 'locus-bus');
    assert.equal(file.pairs[1].bandwidth, null);
    store.saveBus('box 1', pairs.slice(0, 1));
    assert.deepEqual(store.loadBus('box 1')!.pairs, pairs.slice(0, 1));
    assert.equal(store.loadBus('other'), undefined);
    assert.throws(() => store.saveBus('box 1', [{ ...pairs[0]!, latency: Number.NaN }]), RangeError);
  });

  test('a file that is not JSON is reported by name and never overwritten', () => {
    const store = new ModelStore(tmp());
    store.saveSamples([sample(1)]);
    const file = store.codeletFile('gemm');
    writeFileSync(file, '{ "format": "locus-perfmodel", oops');
    const expected = (e: unknown) => {
      assert.ok(e instanceof LocusError);
      assert.ok(e.message.startsWith(`perf model file ${file} is not valid JSON (`), e.message);
      assert.match(e.message, /: fix or remove it, or set LOCUS_PERFMODEL_DIR to another folder$/);
      assert.doesNotMatch(e.message, /\n/);
      return true;
    };
    assert.throws(() => store.loadHistory(), expected);
    assert.throws(() => store.loadCodelet('gemm'), expected);
    assert.throws(() => store.saveSamples([sample(2), sample(3, { codelet: 'other' })]), expected);
    assert.equal(readFileSync(file, 'utf8'), '{ "format": "locus-perfmodel", oops');
    // Issue 12 item 11: a corrupt file costs its own codelet only; the others are saved.
    assert.equal(store.loadCodelet('other')[0]!.count, 1, 'the readable codelets are saved');
  });

  test('a foreign format or version, or a bad field, is reported and kept', () => {
    const store = new ModelStore(tmp());
    const file = store.codeletFile('gemm');
    store.saveSamples([sample(1)]);
    const good = JSON.parse(readFileSync(file, 'utf8'));
    const cases: [unknown, RegExp][] = [
      [
        { ...good, version: 2 },
        /has format 'locus-perfmodel' version 2; this Locus reads locus-perfmodel version 1: move it away or set LOCUS_PERFMODEL_DIR/,
      ],
      [{ ...good, format: undefined }, /has no format version 1; this Locus reads locus-perfmodel version 1/],
      [[1, 2], /has no format no version/],
      [{ ...good, entries: [{ ...good.entries[0], count: 'x' }] }, /has a bad field entries\[0\]\.count \(/],
      [{ ...good, entries: [{ ...good.entries[0], kind: 'tpu' }] }, /has a bad field entries\[0\]\.kind \(/],
    ];
    for (const [content, message] of cases) {
      const text = JSON.stringify(content, null, 2);
      writeFileSync(file, text);
      const check = (e: unknown) =>
        e instanceof LocusError && e.message.includes(file) && message.test(e.message);
      assert.throws(() => store.loadHistory(), check);
      assert.throws(() => store.saveSamples([sample(2)]), check);
      assert.equal(readFileSync(file, 'utf8'), text);
    }
    const bus = store.busFile('m');
    store.saveBus('m', []);
    writeFileSync(bus, JSON.stringify({ format: 'locus-bus', version: 9, machine: 'm', pairs: [] }));
    assert.throws(
      () => store.loadBus('m'),
      /has format 'locus-bus' version 9; this Locus reads locus-bus version 1/,
    );
    assert.throws(() => store.saveBus('m', []), LocusError);
    assert.match(readFileSync(bus, 'utf8'), /"version":9/);
  });

  test('a folder that cannot be written is reported by name', () => {
    const blocker = join(tmp(), 'a-file');
    writeFileSync(blocker, 'not a folder');
    const store = new ModelStore(blocker);
    assert.throws(
      () => store.saveSamples([sample(1)]),
      (e) =>
        e instanceof LocusError &&
        e.message.startsWith(`cannot write perf models in folder ${join(blocker, 'codelets')} (`) &&
        e.message.endsWith('make it writable or set LOCUS_PERFMODEL_DIR to another folder'),
    );
    assert.throws(() => store.saveBus('m', []), /cannot write perf models in folder .*a-file/);
  });

  test('a stale lock is removed', () => {
    const store = new ModelStore(tmp());
    store.saveSamples([sample(1)]);
    const lock = `${store.codeletFile('gemm')}.lock`;
    writeFileSync(lock, '12345 dead\n');
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(lock, old, old);
    store.saveSamples([sample(2)]);
    assert.equal(store.loadHistory().entry('gemm', 'cpu', '524288x3')!.count, 2);
    assert.equal(existsSync(lock), false);
  });

  test('four processes saving at once lose no sample and leave a valid file', async () => {
    const dir = tmp();
    const writers = 4;
    const perWriter = 50 * 6; // perf-writer.ts: 50 batches of 6 samples
    const children = Array.from({ length: writers }, (_, i) =>
      spawn(process.execPath, ['--import', 'tsx', 'test/helpers/perf-writer.ts', dir, String(i)], {
        cwd: repoRoot,
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    const outputs = children.map((c) => {
      let out = '';
      let err = '';
      c.stdout.on('data', (d) => {
        out += d;
      });
      c.stderr.on('data', (d) => {
        err += d;
      });
      const ready = new Promise<void>((resolve, reject) => {
        const poll = () => (out.includes('ready') ? resolve() : undefined);
        c.stdout.on('data', poll);
        c.on('exit', () => reject(new Error(`writer exited before it was ready: ${err}`)));
      });
      const exit = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
        c.on('close', (code) => resolve({ code, out, err })),
      );
      return { ready, exit };
    });
    await Promise.all(outputs.map((o) => o.ready));
    for (const c of children) c.stdin.write('go\n');
    const results = await Promise.all(outputs.map((o) => o.exit));
    for (const r of results) {
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, new RegExp(`done ${perWriter}`));
    }
    const store = new ModelStore(dir);
    const text = readFileSync(store.codeletFile('shared'), 'utf8');
    assert.doesNotThrow(() => JSON.parse(text));
    const entries = store.loadHistory().entries('shared');
    assert.equal(entries.length, 6);
    assert.equal(
      entries.reduce((s, e) => s + e.count, 0),
      writers * perWriter,
    );
    // Every entry got each writer's 50 samples: seconds 1e-3 (1 + writer) + 1e-6 batch.
    for (const e of entries) {
      assert.equal(e.count, writers * 50);
      close(e.mean, 1e-3 * (1 + (writers - 1) / 2) + 1e-6 * 24.5, 1e-12);
    }
    assert.deepEqual(readdirSync(join(dir, 'codelets')), ['shared.json'], 'no lock or temporary file left');
  });
});
