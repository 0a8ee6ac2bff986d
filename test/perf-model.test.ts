/** Calibrated duration models in the engine and the runtime: sources, calibration spread, recording, export. */

import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { exportPlatform } from '../src/cli/calibrate-command.ts';
import { TaskGraph } from '../src/core/graph.ts';
import { AccessMode } from '../src/core/types.ts';
import { createEviction } from '../src/evict/index.ts';
import { calibrateBus } from '../src/exec/calibrate.ts';
import { runWorkload } from '../src/exec/run-workload.ts';
import { Runtime } from '../src/exec/runtime.ts';
import { HistoryModel } from '../src/perf/history.ts';
import { realMachineName } from '../src/perf/machine-name.ts';
import { CalibratedModel, footprintOf, Source } from '../src/perf/model.ts';
import { ModelStore, machineDir } from '../src/perf/store.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { parsePlatformFile } from '../src/platform/schema.ts';
import { createScheduler } from '../src/sched/index.ts';
import { Simulator } from '../src/sim/simulator.ts';
import { testPlatform } from './helpers/platforms.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'locus-models-'));

/** Three gemm-like tasks of different tile sizes, plus one of a codelet never measured. */
function graph() {
  const g = new TaskGraph();
  const gemm = g.addCodelet({ name: 'gemm', kinds: ['cpu', 'gpu'], flops: (n) => 2 * n ** 3 });
  const other = g.addCodelet({ name: 'other', kinds: ['cpu', 'gpu'], flops: (n) => n ** 3 });
  for (const n of [64, 128, 256]) {
    const h = g.addHandle(n * n * 8);
    g.submit(gemm, [[h, AccessMode.RW]], { dims: [n] });
  }
  const h = g.addHandle(64 * 64 * 8);
  g.submit(other, [[h, AccessMode.RW]], { dims: [64] });
  return g;
}

const platform = testPlatform({ gpus: 1, gpuCapacity: 1e9, cpus: 1, cpuRate: 1e9, gpuRate: 1e12 });

describe('CalibratedModel', () => {
  test('history mean where measured, regression elsewhere, platform rate without a model', () => {
    const g = graph();
    const h = new HistoryModel();
    // cpu: measured at 64 and 128 (t = 2n^3 / 5e9), not at 256; gpu: nothing.
    for (const t of [0, 1]) {
      for (let i = 0; i < 3; i++) {
        h.record({
          codelet: 'gemm',
          kind: 'cpu',
          footprint: footprintOf(g, t),
          size: g.taskFlops.data[t]!,
          seconds: g.taskFlops.data[t]! / 5e9,
        });
      }
    }
    const m = new CalibratedModel(platform, g, h, undefined, { minSamples: 3 });
    const cpu = 1; // testPlatform puts GPUs first
    assert.equal(platform.workers[cpu]!.kind, 'cpu');
    assert.equal(m.taskDuration(g, 0, cpu), g.taskFlops.data[0]! / 5e9);
    assert.equal(m.source[2 * 0], Source.HISTORY);
    // 256 from the line through the two measured sizes: exact for a linear cost in flops.
    assert.ok(Math.abs(m.taskDuration(g, 2, cpu) / (g.taskFlops.data[2]! / 5e9) - 1) < 1e-9);
    assert.equal(m.source[2 * 2], Source.REGRESSION);
    // gpu and the unmeasured codelet: the platform's rates.
    assert.equal(m.taskDuration(g, 0, 0), g.taskFlops.data[0]! / 1e12);
    assert.equal(m.taskDuration(g, 3, cpu), g.taskFlops.data[3]! / 1e9);
    assert.equal(m.source[2 * 3], Source.PLATFORM);
    // Calibrating: fewer than 3 samples of the footprint. Otherwise: no estimate but the platform's.
    assert.equal(m.needsCalibration(g, 0, cpu, true), false);
    assert.equal(m.needsCalibration(g, 2, cpu, true), true);
    assert.equal(m.needsCalibration(g, 2, cpu, false), false); // the regression estimates it
    assert.equal(m.needsCalibration(g, 0, 0, false), true); // nothing measured on the GPU
    assert.equal(m.needsCalibration(g, 3, cpu, false), true);
  });

  test('calibration mode: dmda sends an unmeasured task to the worker kind that lacks it', () => {
    const g = graph();
    const h = new HistoryModel();
    for (let t = 0; t < 4; t++) {
      const sample = (kind: 'cpu' | 'gpu', rate: number) => ({
        codelet: g.codelets[g.taskCodelet.data[t]!]!.name,
        kind,
        footprint: footprintOf(g, t),
        size: g.taskFlops.data[t]!,
        seconds: g.taskFlops.data[t]! / rate,
      });
      for (let i = 0; i < 3; i++) h.record(sample('gpu', 1e12));
      h.record(sample('cpu', 1e9)); // one CPU measurement: an estimate, not calibrated
    }
    const model = new CalibratedModel(platform, g, h, undefined, { minSamples: 3 });
    const ran: number[] = [];
    const obs = { taskStarted: (_t: number, w: number) => ran.push(w) };
    // The GPU is 1000x faster: without calibration every task goes there; calibrating, each goes
    // to the CPU, whose models have 1 measurement of the 3 required.
    for (const calibrate of [false, true]) {
      ran.length = 0;
      const sim = new Simulator({
        graph: g,
        platform,
        scheduler: createScheduler('dmda'),
        eviction: createEviction('lru'),
        model,
        calibrate,
      });
      sim.engine.observe(obs);
      sim.run();
      assert.deepEqual(
        ran.map((w) => platform.workers[w]!.kind),
        calibrate ? ['cpu', 'cpu', 'cpu', 'cpu'] : ['gpu', 'gpu', 'gpu', 'gpu'],
      );
    }
  });
  test('a spent calibration budget is set again from the samples saved since (a calibration of several rounds converges)', () => {
    // Four tasks of one gemm footprint (a 4-task graph of the same size), 2 samples wanted.
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'gemm', kinds: ['cpu', 'gpu'], flops: (n) => 2 * n ** 3 });
    const hs = [0, 1, 2].map(() => g.addHandle(8 * 64 * 64));
    for (let t = 0; t < 4; t++)
      g.submit(
        c,
        [
          [hs[0]!, AccessMode.R],
          [hs[1]!, AccessMode.R],
          [hs[2]!, AccessMode.RW],
        ],
        { dims: [64] },
      );
    const h = new HistoryModel();
    const m = new CalibratedModel(platform, g, h, undefined, { minSamples: 2 });
    const gpu = 0;
    const sample = {
      codelet: 'gemm',
      kind: 'gpu' as const,
      footprint: footprintOf(g, 0),
      size: g.taskFlops.data[0]!,
      seconds: 1e-3,
    };
    // The budget: 2 tasks sent for measurement, then none while no sample comes back.
    assert.deepEqual(
      [0, 1, 2, 3].map((t) => m.needsCalibration(g, t, gpu, true)),
      [true, true, false, false],
    );
    // One sample saved (the other task went elsewhere, say): one more task is wanted, then none.
    h.record(sample);
    assert.deepEqual(
      [2, 3].map((t) => m.needsCalibration(g, t, gpu, true)),
      [true, false],
    );
    // Calibrated: none.
    h.record(sample);
    assert.equal(m.needsCalibration(g, 3, gpu, true), false);
  });
});

describe('CalibratedModel without calibration mode', () => {
  test('without calibration mode, a kind with nothing measured still gets the tasks (StarPU)', () => {
    const g = graph();
    const h = new HistoryModel();
    for (let t = 0; t < 4; t++) {
      h.record({
        codelet: g.codelets[g.taskCodelet.data[t]!]!.name,
        kind: 'gpu',
        footprint: footprintOf(g, t),
        size: g.taskFlops.data[t]!,
        seconds: 1e-6,
      });
    }
    const model = new CalibratedModel(platform, g, h, undefined, { minSamples: 1 });
    const kinds: string[] = [];
    const sim = new Simulator({
      graph: g,
      platform,
      scheduler: createScheduler('dmda'),
      eviction: createEviction('lru'),
      model,
    });
    sim.engine.observe({ taskStarted: (_t: number, w: number) => kinds.push(platform.workers[w]!.kind) });
    sim.run();
    assert.deepEqual(kinds, ['cpu', 'cpu', 'cpu', 'cpu']);
  });
});

describe('real runs and the model store', () => {
  test('a real run records every task into the store; the next run estimates from it', async () => {
    const dir = tmp();
    const rt = await Runtime.create({
      cpus: 1,
      gpus: 1,
      gpuMemory: 1 << 20,
      perfModelDir: dir,
      scheduler: 'dmda',
    });
    try {
      const r = await runWorkload('cholesky', { tiles: 4, tileSize: 32, runtime: rt, check: true });
      assert.equal(r.residual, 0);
      const h = new ModelStore(machineDir(dir, realMachineName('local'))).loadHistory();
      const count = (c: string) => h.entries(c).reduce((s, e) => s + e.count, 0);
      assert.deepEqual(['potrf', 'trsm', 'syrk', 'gemm'].map(count), [4, 6, 6, 4]);
      const e = h.entries('gemm')[0]!;
      assert.equal(e.footprint, [32 * 32 * 8, 32 * 32 * 8, 32 * 32 * 8].join(','));
      assert.ok(e.mean > 0);
    } finally {
      await rt.close();
    }
  });

  test('perfModels off records nothing', async () => {
    const dir = tmp();
    const rt = await Runtime.create({ cpus: 1, perfModelDir: dir, perfModels: 'off' });
    try {
      await runWorkload('cholesky', { tiles: 2, tileSize: 16, runtime: rt });
      assert.deepEqual(
        new ModelStore(machineDir(dir, realMachineName('local'))).loadHistory().codelets(),
        [],
      );
    } finally {
      await rt.close();
    }
  });

  test('bus calibration finds the throttled links and platform export writes their figures', async () => {
    const platform = resolvePlatform('local', { cpus: 1, gpus: 1, gpuMem: 1 << 22 });
    const pairs = calibrateBus(platform, { throttle: true, repeats: 3 });
    assert.deepEqual(
      pairs.map((p) => `${p.src}->${p.dst}`),
      ['ram->gpu0', 'gpu0->ram'],
    );
    for (const p of pairs) {
      // local's links: 8 GB/s and 5 us. The hold is a floor on each copy's time, so the fit can
      // never be faster than the link; on a loaded machine the copy itself may be slower, so
      // only the upper bound is load-independent (the figures are measured by bench:accuracy).
      assert.ok(p.bandwidth > 0 && p.bandwidth < 8e9 * 1.25, `${p.bandwidth}`);
      assert.ok(p.latency >= 0 && Number.isFinite(p.latency), `${p.latency}`);
    }
    const dir = tmp();
    const store = new ModelStore(machineDir(dir, realMachineName(platform.name)));
    store.saveBus(platform.name, pairs);
    const n = 16;
    const bytes = n * n * 8;
    const samples = [];
    for (const [codelet, tiles, flops] of [
      ['potrf', 1, n ** 3 / 3],
      ['trsm', 2, n ** 3],
      ['syrk', 2, n ** 3],
      ['gemm', 3, 2 * n ** 3],
      ['getrf', 1, (2 * n ** 3) / 3],
    ] as const) {
      for (const kind of ['cpu', 'gpu'] as const) {
        samples.push({
          codelet,
          kind,
          footprint: Array(tiles).fill(bytes).join(','),
          size: flops,
          seconds: flops / 4e9,
        });
      }
    }
    store.saveSamples(samples);
    const text = exportPlatform(platform, dir, n);
    const p = parsePlatformFile(text, 'exported.json');
    assert.equal(p.name, 'local-calibrated');
    for (const w of p.workers) {
      assert.ok(Math.abs(w.codeletFlops.potrf! / 4e9 - 1) < 1e-4);
      assert.ok(Math.abs(w.flops / 4e9 - 1) < 1e-4);
      // Each measured footprint exports as a duration rule, then the tile's rate for the others.
      const rules = w.codeletModels!.gemm!;
      assert.deepEqual(rules[0]!.sizes, [bytes, bytes, bytes]);
      assert.equal(rules[0]!.duration, (2 * n ** 3) / 4e9);
      assert.equal(rules.length, 2);
      assert.ok(Math.abs(rules[1]!.rate! / 4e9 - 1) < 1e-4);
    }
    const link = p.links.find((l) => l.name === 'ram->gpu0')!;
    assert.ok(Math.abs(link.bandwidth / pairs[0]!.bandwidth - 1) < 1e-4);
    assert.throws(
      () => exportPlatform(platform, dir, 32),
      /no calibrated model at tile 32 for potrf\/gpu, .*run `locus calibrate --tile-size 32`/,
    );
  });
});
