/**
 * `locus calibrate --backend webgpu` and `locus platform export --backend webgpu` on the
 * adapter found here (lavapipe on CI), with tiny sizes and repeats: the store gets the bus of
 * every device both ways, one model entry per (codelet, kind, footprint) and the adapter; the
 * exported platform parses back with one duration rule per measured footprint, and a
 * simulation on it replays a measured footprint's duration exactly. Skipped, with the reason,
 * where no adapter is found.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ModelStore, machineDir } from '../src/perf/store.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { parsePlatformFile } from '../src/platform/schema.ts';
import { calibrateWebGpu, exportWebGpuPlatform, loadAdapterRecord } from '../src/webgpu/calibrate.ts';
import { noAdapter } from './helpers/webgpu.ts';

const skip = noAdapter === undefined ? {} : { skip: noAdapter };

function locus(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('WebGPU calibration', { timeout: 300_000, ...skip }, () => {
  test('calibrate, export, parse back, simulate on it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-wgpu-cal-'));
    const platform = resolvePlatform('local', { gpus: 2, cpus: 1, gpuMem: 16 << 20 });
    const r = await calibrateWebGpu({
      platform,
      tileSizes: [16, 32],
      inners: [64],
      repeats: 2,
      busSizes: [4096, 65536, 262144],
      dir,
    });
    assert.equal(r.machine, 'local-webgpu');
    assert.deepEqual(
      r.bus.map((p) => `${p.src}->${p.dst}`),
      ['ram->gpu0', 'gpu0->ram', 'ram->gpu1', 'gpu1->ram'],
    );
    for (const p of r.bus) {
      assert.ok(p.bandwidth > 0 && Number.isFinite(p.bandwidth) && p.latency >= 0, `${p.src}->${p.dst}`);
      assert.equal(p.samples, 3 * 2);
    }
    // Per tile edge: gemm, syrk, trsm and the block product on gpu and cpu, potrf and getrf on cpu.
    assert.equal(r.samples.length, 2 * (4 * 2 + 2));
    const store = new ModelStore(machineDir(dir, 'local-webgpu'));
    const history = store.loadHistory();
    assert.deepEqual(history.codelets().sort(), ['gemm', 'getrf', 'potrf', 'syrk', 'trsm']);
    const gpuGemm = history.entries('gemm').filter((e) => e.kind === 'gpu');
    assert.deepEqual(gpuGemm.map((e) => e.footprint).sort(), [
      '1024,1024,1024',
      '4096,4096,1024',
      '4096,4096,4096',
      '8192,8192,4096',
    ]);
    assert.equal(store.loadBus('local-webgpu')!.pairs.length, 4);
    const rec = loadAdapterRecord(dir, 'local-webgpu')!;
    assert.deepEqual(rec.adapter, r.adapter);

    const text = exportWebGpuPlatform(platform, dir);
    const file = JSON.parse(text);
    assert.equal(file.name, 'local-webgpu-calibrated');
    assert.match(file.description, /WebGPU calibration of .* on /);
    const gpu0 = file.workers.find((w: { name: string }) => w.name === 'gpu0');
    assert.equal(gpu0.codelets.gemm.length, 4 + 1, 'one rule per footprint, then the catch-all rate');
    assert.deepEqual(Object.keys(gpu0.codelets).sort(), ['gemm', 'syrk', 'trsm']);
    const cpu0 = file.workers.find((w: { name: string }) => w.name === 'cpu0');
    assert.deepEqual(Object.keys(cpu0.codelets).sort(), ['gemm', 'getrf', 'potrf', 'syrk', 'trsm']);
    const parsed = parsePlatformFile(text, 'exported');
    assert.equal(parsed.workers.length, 3);
    const link = file.links.find((l: { from: string; to: string }) => l.from === 'ram' && l.to === 'gpu0');
    const bus = r.bus[0]!;
    assert.equal(link.bandwidth, `${(bus.bandwidth / 1e9).toPrecision(6)}GB/s`);

    // The simulator replays the measured duration of matmul2d's 32 x 64 block product.
    const path = join(dir, 'platform.json');
    writeFileSync(path, text);
    const ruleOf = (w: { codelets: { gemm: { footprint?: number[]; duration?: string }[] } }) =>
      Number.parseFloat(w.codelets.gemm.find((x) => x.footprint?.join(',') === '8192,8192,4096')!.duration!);
    const sim = locus(
      { LOCUS_PERFMODEL_DIR: dir },
      'run',
      '--mode',
      'sim',
      '-p',
      path,
      '-w',
      'matmul2d',
      '--tiles',
      '2',
      '--tile-size',
      '32',
      '--inner',
      '64',
      '--precision',
      'single',
      '--json',
    );
    assert.equal(sim.code, 0, sim.err);
    const j = JSON.parse(sim.out);
    assert.equal(j.tasks, 4);
    // Every worker is busy its tasks times its kind's measured duration of that footprint.
    for (const w of j.workers as { name: string; tasks: number; busyS: number }[]) {
      const want = w.tasks * ruleOf(file.workers.find((x: { name: string }) => x.name === w.name));
      assert.ok(Math.abs(w.busyS - want) <= 1e-9 * want, `${w.name}: busy ${w.busyS}, want ${want}`);
    }
  });

  test('the CLI: calibrate --backend webgpu, then platform export --backend webgpu', () => {
    const env = { LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-wgpu-cli-')) };
    const machine = ['--gpus', '1', '--gpu-mem', '16MiB'];
    const none = locus(env, 'platform', 'export', '--backend', 'webgpu', ...machine);
    assert.equal(none.code, 2);
    assert.match(
      none.err,
      /^locus: no WebGPU calibration of local in .*: run `locus calibrate --backend webgpu`.*\n$/,
    );
    const cal = locus(
      env,
      'calibrate',
      '--backend',
      'webgpu',
      ...machine,
      '--tile-size',
      '16',
      '--samples',
      '2',
    );
    assert.equal(cal.code, 0, cal.err);
    assert.match(cal.out, /^calibrated local-webgpu: bus of 2 routes, 8 kernel footprints; .*\nadapter: /);
    const out = join(env.LOCUS_PERFMODEL_DIR, 'p.json');
    const ex = locus(env, 'platform', 'export', '--backend', 'webgpu', ...machine, '-o', out);
    assert.equal(ex.code, 0, ex.err);
    assert.equal(parsePlatformFile(readFileSync(out, 'utf8'), out).name, 'local-webgpu-calibrated');
    const bad = locus(env, 'calibrate', '--backend', 'cuda');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^locus: --backend must be threads or webgpu \(got 'cuda'\)\n$/);
  });
});
