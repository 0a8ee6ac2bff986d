import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { EVICTION_POLICIES } from '../src/evict/index.ts';
import { type RealRunOptions, runWorkload } from '../src/exec/run-workload.ts';
import { type Data, type Mode, Runtime, TaskFailedError } from '../src/exec/runtime.ts';
import { SCHEDULERS } from '../src/sched/index.ts';
import { checksum } from './helpers/kernels.ts';
import { graphSpecArb } from './helpers/random-graphs.ts';

// Real runs save their measurements into the performance models: keep them out of ~/.locus.
process.env.LOCUS_PERFMODEL_DIR = mkdtempSync(join(tmpdir(), 'locus-models-'));

const runCholesky = (o: RealRunOptions) => runWorkload('cholesky', o);
const runLu = (o: RealRunOptions) => runWorkload('lu', o);
const runLupp = (o: RealRunOptions) => runWorkload('lupp', o);
const runGemm = (o: RealRunOptions) => runWorkload('gemm', o);

const KERNELS = new URL('./helpers/kernels.ts', import.meta.url);
const TILE = 16;
const TILE_BYTES = TILE * TILE * 8;

describe('real driver: tiled factorizations equal the sequential run', { timeout: 300_000 }, () => {
  // One runtime per platform; the policies change between runs.
  const platforms = {
    cpus: { cpus: 2 },
    // 2 CPUs and 2 emulated devices that hold 4 tiles each: eviction and write-back happen.
    devices: { cpus: 2, gpus: 2, gpuMemory: 4 * TILE_BYTES },
  };
  const runtimes: Record<string, Runtime> = {};
  before(async () => {
    for (const [name, p] of Object.entries(platforms)) runtimes[name] = await Runtime.create(p);
  });
  after(async () => {
    for (const rt of Object.values(runtimes)) await rt.close();
  });

  for (const platform of Object.keys(platforms)) {
    test(`cholesky 5x5 tiles, every scheduler with lru, on ${platform}`, async () => {
      for (const sched of Object.keys(SCHEDULERS)) {
        if (sched === 'static' && platform === 'cpus') continue; // static binds tasks to GPUs
        runtimes[platform]!.setPolicies(sched, 'lru');
        const r = await runCholesky({ tiles: 5, tileSize: TILE, check: true, runtime: runtimes[platform] });
        assert.equal(r.residual, 0, `${sched}: result differs from the sequential run`);
        assert.ok(r.backwardError! < 1e-12, `${sched}: backward error ${r.backwardError}`);
      }
    });

    test(`cholesky, lu and gemm under every eviction policy on ${platform}`, async () => {
      for (const ev of Object.keys(EVICTION_POLICIES)) {
        // LUF reads the planned tasks of darts, dm*, ws and prio.
        for (const sched of ev === 'luf' ? ['dmdar', 'darts', 'ws'] : ['eager', 'dmdar', 'darts', 'random']) {
          runtimes[platform]!.setPolicies(sched, ev);
          const rt = runtimes[platform];
          const c = await runCholesky({ tiles: 4, tileSize: TILE, check: true, runtime: rt, dataSeed: 2 });
          const l = await runLu({ tiles: 4, tileSize: TILE, check: true, runtime: rt });
          const g = await runGemm({ tiles: 3, tileSize: TILE, check: true, runtime: rt });
          for (const [what, r] of [
            ['cholesky', c],
            ['lu', l],
            ['gemm', g],
          ] as const) {
            assert.ok(r.residual! < 1e-10, `${what} ${sched}+${ev}: residual ${r.residual}`);
          }
          assert.ok(l.backwardError! < 1e-12);
        }
      }
    });
  }

  test('emulated devices really hold data: loads, evictions and write-backs happen', async () => {
    const rt = runtimes.devices!;
    rt.setPolicies('random', 'lru');
    const r = await runCholesky({ tiles: 6, tileSize: TILE, check: true, runtime: rt });
    assert.equal(r.residual, 0);
    assert.ok(r.report.loads > 0 && r.report.evictions > 0, JSON.stringify(r.report.nodes));
    for (const n of r.report.nodes.slice(1)) assert.ok(n.peakBytes <= 4 * TILE_BYTES);
  });

  test('LU with partial pivoting: P A = L U to 1e-12, equal to the sequential run', async () => {
    for (const platform of Object.keys(platforms)) {
      for (const sched of ['eager', 'dmdar', 'random', 'supermatrix']) {
        runtimes[platform]!.setPolicies(sched, 'lru');
        const r = await runLupp({ tiles: 5, tileSize: TILE, check: true, runtime: runtimes[platform] });
        assert.equal(r.residual, 0, `${platform} ${sched}`);
        assert.ok(r.backwardError! < 1e-12, `${platform} ${sched}: ${r.backwardError}`);
      }
    }
  });

  test('single precision', async () => {
    const r = await runLu({
      tiles: 3,
      tileSize: TILE,
      precision: 'single',
      check: true,
      runtime: runtimes.cpus,
    });
    assert.ok(r.residual! < 1e-6 && r.backwardError! < 1e-5, `${r.residual} ${r.backwardError}`);
  });
});

describe('real driver: random graphs of checksum tasks, bit for bit', { timeout: 300_000 }, () => {
  test('final data equal the sequential execution on random platforms with emulated devices', async () => {
    const scheds = ['eager', 'random', 'dmda', 'dmdar', 'darts', 'ws', 'prio'];
    // Every pair except LUF under the schedulers that plan nothing ahead (eager, random).
    const policies = scheds.flatMap((sched) =>
      Object.keys(EVICTION_POLICIES)
        .filter((ev) => ev !== 'luf' || (sched !== 'eager' && sched !== 'random'))
        .map((eviction) => ({ sched, eviction })),
    );
    await fc.assert(
      fc.asyncProperty(
        graphSpecArb,
        fc.record({
          cpus: fc.integer({ min: 1, max: 2 }),
          gpus: fc.integer({ min: 0, max: 2 }),
          memFactor: fc.integer({ min: 1, max: 3 }),
          policy: fc.constantFrom(...policies),
          seed: fc.integer({ min: 1, max: 1000 }),
        }),
        async (spec, m) => {
          // Sizes in int32 words; each task's footprint fits any device.
          const words = spec.sizes.map((s) => s * 100);
          const tasks = spec.tasks.map((t) => {
            const seen = new Set<number>();
            const acc: [number, number][] = [];
            for (const [h, mode] of t.accesses) {
              const d = h % words.length;
              if (!seen.has(d)) {
                seen.add(d);
                acc.push([d, mode + 1]);
              }
            }
            return acc;
          });
          const footprint = Math.max(...tasks.map((acc) => acc.reduce((s, [d]) => s + words[d]! * 4, 0)));
          const rt = await Runtime.create({
            cpus: m.cpus,
            gpus: m.gpus,
            gpuMemory: m.gpus > 0 ? footprint * m.memFactor : undefined,
            scheduler: m.policy.sched,
            eviction: m.policy.eviction,
            seed: m.seed,
          });
          try {
            const init = words.map((w, d) => Int32Array.from({ length: w }, (_, k) => d * 1000 + k));
            const arrays = init.map((a) => a.slice());
            const handles = arrays.map((a, d) => rt.data(a, { name: `d${d}` }));
            const cl = rt.codelet({ name: 'checksum', kernel: { module: KERNELS, export: 'checksum' } });
            const modes: Mode[] = ['R', 'W', 'RW'];
            tasks.forEach((acc, t) => {
              rt.submit(
                cl,
                acc.map(([d, mode]) => [handles[d]!, modes[mode - 1]!] as const),
                { args: [t, ...acc.map(([, mode]) => mode)] },
              );
            });
            await rt.wait();
            await rt.sync();
            const ref = init.map((a) => a.slice());
            tasks.forEach((acc, t) => {
              checksum(
                acc.map(([d]) => ref[d]!),
                Float64Array.from([t, ...acc.map(([, mode]) => mode)]),
              );
            });
            for (let d = 0; d < ref.length; d++) assert.deepEqual(arrays[d], ref[d], `datum ${d}`);
          } finally {
            await rt.close();
          }
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 12), seed: Number(process.env.PROPERTY_SEED ?? 7) },
    );
  });
});

describe('real driver: failures', { timeout: 60_000 }, () => {
  let rt: Runtime;
  let inc: ReturnType<Runtime['codelet']>;
  let xs: Data[];
  let arrays: Float64Array[];
  before(async () => {
    rt = await Runtime.create({ cpus: 2, gpus: 1, gpuMemory: 2 * 8 * 64, scheduler: 'eager' });
    inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
    arrays = [0, 1, 2, 3].map(() => new Float64Array(64));
    xs = arrays.map((a, i) => rt.data(a, { name: `x${i}` }));
  });
  after(async () => rt.close());

  test('a throwing kernel rejects wait() naming the task and codelet; dependents cancelled, others run', async () => {
    const boom = rt.codelet({ name: 'boom', kernel: { module: KERNELS, export: 'boom' } });
    rt.submit(inc, [[xs[0]!, 'RW']]);
    rt.submit(boom, [[xs[0]!, 'RW']], { name: 'BOOM' });
    rt.submit(inc, [[xs[0]!, 'RW']], { name: 'AFTER' }); // depends on BOOM: cancelled
    for (let i = 0; i < 5; i++) rt.submit(inc, [[xs[1]!, 'RW']]); // independent: runs
    await assert.rejects(rt.wait(), (e: unknown) => {
      assert.ok(e instanceof TaskFailedError);
      assert.match(e.message, /^task BOOM .*\(codelet boom\) failed: kaboom; 1 dependent task cancelled$/);
      assert.equal(e.cancelled, 1);
      return true;
    });
    await rt.sync(); // results reach the registered arrays on sync (or acquire, or close)
    assert.equal(arrays[0]![0], 1); // the first inc ran, the cancelled one did not
    assert.equal(arrays[1]![0], 5);
  });

  test('a worker thread that exits fails its task; the thread is replaced and the runtime goes on', async () => {
    const die = rt.codelet({ name: 'die', kernel: { module: KERNELS, export: 'die' }, kinds: ['cpu'] });
    rt.submit(die, [[xs[2]!, 'RW']], { name: 'DIE' });
    rt.submit(inc, [[xs[2]!, 'RW']]);
    rt.submit(inc, [[xs[2]!, 'RW']]);
    for (let i = 0; i < 20; i++) rt.submit(inc, [[xs[3]!, 'RW']]);
    await assert.rejects(
      rt.wait(),
      /^TaskFailedError: task DIE .*\(codelet die\) failed: worker cpu\d exited with code 3 while running it; 2 dependent tasks cancelled$/,
    );
    await rt.sync();
    assert.equal(arrays[3]![0], 20);
    rt.submit(inc, [[xs[3]!, 'RW']], { args: [2] });
    await rt.wait();
    await rt.sync();
    assert.equal(arrays[3]![0], 22);
  });

  test('a kernel that cannot be loaded fails the tasks of its codelet only, naming it', async () => {
    const rt2 = await Runtime.create({ cpus: 1 });
    try {
      const bad = rt2.codelet({ name: 'bad', kernel: { module: KERNELS, export: 'nope' } });
      const good = rt2.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
      const a = new Float64Array(2);
      const x = rt2.data(a);
      rt2.submit(bad, []);
      rt2.submit(good, [[x, 'RW']]);
      await assert.rejects(
        rt2.wait(),
        /task #0 \(codelet bad\) failed: module .*kernels\.ts has no exported function 'nope'/,
      );
      // The runtime is not poisoned: later tasks of other codelets run.
      rt2.submit(good, [[x, 'RW']]);
      await rt2.wait();
      await rt2.sync();
      assert.equal(a[0], 2);
    } finally {
      await rt2.close();
    }
  });
});

describe('runtime API', { timeout: 60_000 }, () => {
  test('acquire waits for earlier writers and holds later ones until release', async () => {
    const rt = await Runtime.create({ cpus: 2, scheduler: 'eager' });
    try {
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
      const a = new Float64Array(4);
      const x = rt.data(a, { name: 'x' });
      rt.submit(inc, [[x, 'RW']], { args: [1] });
      const view = await rt.acquire(x, 'RW');
      assert.equal(view[0], 1);
      rt.submit(inc, [[x, 'RW']], { args: [10] }); // held until release
      let done = false;
      const waiting = rt.wait().then(() => {
        done = true;
      });
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(done, false);
      view[0] = 100; // the holder changes the data
      rt.release(x);
      await waiting;
      await rt.sync();
      assert.equal(a[0], 110);
      await assert.rejects(async () => rt.release(x), /x is not acquired/);
    } finally {
      await rt.close();
    }
  });

  test('the same program runs simulated by changing the mode', async () => {
    const rt = await Runtime.create({ mode: 'simulated', platform: 'v100x2', scheduler: 'dmdar' });
    const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' }, flops: () => 1e9 });
    const a = new Float64Array(1 << 20);
    const x = rt.data(a);
    for (let i = 0; i < 10; i++) rt.submit(inc, [[x, 'RW']], { dims: [1] });
    const r = await rt.wait();
    assert.equal(r.mode, 'simulated');
    assert.equal(r.tasks, 10);
    assert.ok(r.makespanS > 0);
    assert.equal(a[0], 0); // nothing computed
    await rt.close();
  });

  test('tiled matrices: results land in the user array', async () => {
    const rt = await Runtime.create({ cpus: 1, gpus: 1, gpuMemory: 4096, scheduler: 'random' });
    try {
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
      const n = 10;
      const a = Float64Array.from({ length: n * n }, (_, k) => k);
      const m = rt.matrix(a, n, n, 4);
      assert.equal(m.tileRows, 3);
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 3; j++) rt.submit(inc, [[m.at(i, j), 'RW']], { args: [i + 10 * j] });
      await rt.wait();
      await rt.sync();
      for (let c = 0; c < n; c++) {
        for (let r = 0; r < n; r++) {
          assert.equal(a[r + c * n], r + c * n + Math.floor(r / 4) + 10 * Math.floor(c / 4));
        }
      }
      assert.throws(() => m.at(3, 0), /no tile \(3, 0\) in 3 x 3 tiles/);
    } finally {
      await rt.close();
    }
  });

  test('bad input is a one-line error', async () => {
    await assert.rejects(
      Runtime.create({ mode: 'fast' as never }),
      /mode must be simulated \(or sim\) or real/,
    );
    const rt = await Runtime.create({ mode: 'simulated' });
    assert.throws(
      () => rt.submit(rt.codelet({ name: 'c' }), [[rt.scratch('float64', 1), 'X' as Mode]]),
      /access mode must be R, W or RW/,
    );
    assert.throws(
      () => rt.matrix(new Float64Array(5), 2, 2, 1),
      /the array has 5 elements, not rows x cols = 4/,
    );
    await rt.close();
  });
});
