/**
 * `locus platform import starpu` (src/platform/starpu/): StarPU's sampled "sirocco" (fixtures
 * in test/fixtures/starpu-sampling, from StarPU's repository) becomes a platform whose links and
 * shared bus are the SimGrid file's and whose task durations are the measured means of StarPU's
 * models; it agrees with the hand-made sirocco file of issue 24 where that one was taken from the
 * same measurements, and the differences are the hand-made file's approximations. A model file in
 * the variant layout parses; a malformed one, a missing host or an impossible selection is one
 * error line (exit code 2 from the command line).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PlatformModel } from '../src/core/model.ts';
import { LocusError } from '../src/core/types.ts';
import { compilePlatform } from '../src/platform/schema.ts';
import { importStarpuPlatform } from '../src/platform/starpu/import.ts';
import { parsePerfmodel } from '../src/platform/starpu/perfmodel-file.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';

const DIR = fileURLToPath(new URL('./fixtures/starpu-sampling', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));

/** sirocco as issue 24 ran it: the first 2 K40m, no CPU worker, 500 MiB each. */
function sirocco() {
  return importStarpuPlatform({ dir: DIR, host: 'sirocco', cpus: 0, gpus: 2, gpuMemory: 500 * 2 ** 20 });
}

describe('locus platform import starpu', () => {
  test('sirocco: memories, workers, links and the shared Host bus from the SimGrid file', async () => {
    const { platform: file, notes } = await sirocco();
    const p = compilePlatform(file, 'sirocco');
    assert.deepEqual(
      p.nodes.map((n) => [n.name, n.kind, n.capacity]),
      [
        ['ram', 'host', 2 ** 40],
        ['gpu0', 'gpu', 500 * 2 ** 20],
        ['gpu1', 'gpu', 500 * 2 ** 20],
      ],
    );
    assert.deepEqual(
      p.workers.map((w) => [w.name, w.kind]),
      [
        ['gpu0', 'gpu'],
        ['gpu1', 'gpu'],
      ],
    );
    // The hand-made file's figures (issue 24), from the same XML: bandwidths in B/s, latencies in s.
    const link = (from: string, to: string) => file.links!.find((l) => l.from === from && l.to === to)!;
    assert.equal(link('ram', 'gpu0').bandwidth, '10517678844.27897B/s');
    assert.equal(link('gpu0', 'ram').latency, '0.000011s');
    assert.equal(link('gpu0', 'gpu1').bandwidth, '10244090134.034805B/s');
    assert.equal(file.links!.length, 6);
    assert.ok(file.links!.every((l) => JSON.stringify(l.via) === '["Host"]'));
    assert.deepEqual(file.buses, [{ name: 'Host', bandwidth: '10521832623.51704B/s', latency: '0s' }]);
    assert.equal(file.peerToPeer, true);
    assert.deepEqual(notes, [
      '4 OpenCL devices left out (the CUDA devices are the same GPUs)',
      'codelet model cl_update has no Locus codelet (add --codelet-map cl_update=NAME to import it)',
      'the models of CUDA devices 2, 3 left out (2 GPUs kept)',
      'the CPU models left out (no CPU worker kept)',
    ]);
    assert.match(file.description!, /bus\/sirocco\.platform\.v4\.xml.*chol_model_gemm\.sirocco/);
  });

  test("Cholesky's tasks (tiles of 960, float32) take StarPU's measured means; the hand-made file agrees where it used them", async () => {
    const p = compilePlatform((await sirocco()).platform, 'sirocco');
    const wl = generateWorkload('cholesky', { tiles: 3, tileSize: 960, precision: 'single' });
    const model = new PlatformModel(p, wl.graph);
    const g = wl.graph;
    const seconds = (codelet: string, worker: number) => {
      for (let t = 0; t < g.taskCount; t++)
        if (g.codelets[g.taskCodelet.data[t]!]!.name === codelet) return model.taskDuration(g, t, worker);
      throw new Error(codelet);
    };
    // chol_model_*.sirocco, footprint of 960 x 960 float32 tiles, CUDA0 and CUDA1 (mean, us).
    const measured: Record<string, [number, number]> = {
      gemm: [743.4516, 754.5142],
      potrf: [8456.328, 8514.691],
      trsm: [2005.118, 2005.118],
      syrk: [371.7258, 377.2571],
    };
    for (const [c, [cuda0, cuda1]] of Object.entries(measured)) {
      assert.ok(Math.abs(seconds(c, 0) / (cuda0 * 1e-6) - 1) < 1e-9, `${c} on gpu0: ${seconds(c, 0)}`);
      assert.ok(Math.abs(seconds(c, 1) / (cuda1 * 1e-6) - 1) < 1e-9, `${c} on gpu1: ${seconds(c, 1)}`);
    }
    // The hand-made file's rates (GFlop/s, 6 significant digits) were taken from the same
    // measurements: they give the same times (its syrk took gemm's rate, which on these GPUs
    // is the measured syrk's to 6 digits as well).
    const flops = { gemm: 2 * 960 ** 3, potrf: 960 ** 3 / 3, trsm: 960 ** 3, syrk: 960 ** 3 };
    const handMade = {
      gemm: [2380.08, 2345.18],
      potrf: [34.8747, 34.6357],
      trsm: [441.239, 441.239],
      syrk: [2380.08, 2345.18],
    };
    for (const c of ['gemm', 'potrf', 'trsm', 'syrk'] as const)
      for (const w of [0, 1])
        assert.ok(Math.abs(flops[c] / (handMade[c][w]! * 1e9) / seconds(c, w) - 1) < 2e-5, `${c} on gpu${w}`);
  });

  test('every CPU core and GPU by default; the imported platform simulates a Cholesky', async () => {
    const { platform: file } = await importStarpuPlatform({ dir: DIR, host: 'sirocco' });
    const p = compilePlatform(file, 'sirocco');
    assert.equal(p.workers.filter((w) => w.kind === 'cpu').length, 24);
    assert.equal(p.workers.filter((w) => w.kind === 'gpu').length, 4);
    const wl = generateWorkload('cholesky', { tiles: 8, tileSize: 960, precision: 'single' });
    const r = simulate({ graph: wl.graph, platform: p, scheduler: 'dmdar' }).report;
    assert.equal(r.tasks, wl.graph.taskCount);
    assert.ok(r.makespanS > 0);
  });

  test('attila (a PCI tree of shared links) and hannibal (3 Quadro FX5800) import and simulate', async () => {
    const attila = await importStarpuPlatform({ dir: DIR, host: 'attila' });
    const a = compilePlatform(attila.platform, 'attila');
    assert.deepEqual(
      [a.workers.filter((w) => w.kind === 'cpu').length, a.workers.filter((w) => w.kind === 'gpu').length],
      [12, 3],
    );
    // 12 routes (RAM <-> 3 GPUs, GPU <-> GPU) through the PCI tree's switches as buses.
    assert.equal(attila.platform.links!.length, 12);
    assert.equal(attila.platform.buses!.length, 22);
    assert.ok(
      attila.notes.includes(
        '4 routes cross a shared link twice (CUDA0 -> CUDA2, ...): counted once per route',
      ),
    );
    const hannibal = await importStarpuPlatform({ dir: DIR, host: 'hannibal' });
    const h = compilePlatform(hannibal.platform, 'hannibal');
    assert.deepEqual(
      [h.workers.filter((w) => w.kind === 'cpu').length, h.workers.filter((w) => w.kind === 'gpu').length],
      [8, 3],
    );
    assert.deepEqual(Object.keys(hannibal.platform.workers.at(-1)!.codelets!), ['getrf']);
    for (const [p, workload] of [
      [a, 'gemm'],
      [h, 'lu'],
    ] as const) {
      const wl = generateWorkload(workload, { tiles: 4, tileSize: 512, precision: 'single' });
      const r = simulate({ graph: wl.graph, platform: p, scheduler: 'dmdar' }).report;
      assert.equal(r.tasks, wl.graph.taskCount);
    }
  });

  test("a model whose coefficient count comes before the non-linear figures parses (StarPU's idgraf files)", async () => {
    const file = join(DIR, 'codelets', '45', 'starpu_dlu_lu_model_gemm.idgraf');
    const m = parsePerfmodel(readFileSync(file, 'utf8'), file);
    assert.equal(m.version, 45);
    const cuda5 = m.archs.find((a) => a.devices[0]!.type === 'cuda' && a.devices[0]!.id === 5)!;
    assert.deepEqual(
      cuda5.implementations[0]!.map((e) => [e.size, e.meanUs, e.samples]),
      [
        [22118400, 5908.89, 4622],
        [9830400, 1853.662, 3503],
        [2457600, 267.2063, 2718],
      ],
    );
  });

  test('a malformed model is one line naming the file and the line', async () => {
    const text = readFileSync(join(DIR, 'codelets', '45', 'chol_model_potrf.sirocco'), 'utf8').replace(
      /^(25ebb669\s+\S+).*$/m,
      '$1 oops',
    );
    assert.throws(
      () => parsePerfmodel(text, 'bad.sirocco'),
      (e: unknown) =>
        e instanceof LocusError &&
        !e.message.includes('\n') &&
        /^bad\.sirocco: .* at line \d+: not a StarPU performance model/.test(e.message),
    );
    assert.throws(
      () => parsePerfmodel('##\n44\n', 'old.x'),
      (e: unknown) =>
        e instanceof LocusError && /model version 44 \(only version 45 is read\) at line 2/.test(e.message),
    );
  });

  test('the command writes the file, says what it left out, and refuses bad input in one line (exit 2)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'locus-import-')), 'sirocco.json');
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['bin/locus.mjs', 'platform', 'import', ...args], {
        cwd: root,
        encoding: 'utf8',
      });
    const ok = run(
      'starpu',
      DIR,
      '--host',
      'sirocco',
      '--cpus',
      '0',
      '--gpus',
      '2',
      '--gpu-mem',
      '500MiB',
      '-o',
      out,
    );
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout, `wrote ${out} (2 workers, 3 memories)\n`);
    assert.equal(ok.stderr.trim().split('\n').length, 4);
    assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), (await sirocco()).platform);
    const mapped = run(
      'starpu',
      DIR,
      '--host',
      'sirocco',
      '--gpus',
      '1',
      '--codelet-map',
      'cl_update=update',
    );
    assert.equal(mapped.status, 0, mapped.stderr);
    assert.ok('update' in JSON.parse(mapped.stdout).workers.at(-1).codelets);
    for (const [args, message] of [
      [['starpu', DIR, '--host', 'nope'], /hosts in .*: attila, hannibal, sirocco$/m],
      [['starpu', DIR, '--host', 'sirocco', '--gpus', '9'], /has 4 CUDA devices: keep 0 to 4 \(got 9\)/],
      [['starpu', DIR, '--host', 'sirocco', '--cpus', '0', '--gpus', '0'], /no worker kept/],
      [['simgrid', DIR, '--host', 'sirocco'], /format 'simgrid' is not known/],
      [['starpu', DIR, '--host', 'sirocco', '--codelet-map', 'oops'], /is not SYMBOL=CODELET/],
    ] as const) {
      const r = run(...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, message);
    }
    const hidden = spawnSync(
      process.execPath,
      [
        '--import',
        './test/helpers/hide-plotting.mjs',
        'bin/locus.mjs',
        'platform',
        'import',
        'starpu',
        DIR,
        '--host',
        'sirocco',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    assert.equal(hidden.status, 2);
    assert.equal(
      hidden.stderr,
      "locus: importing StarPU's machines needs the optional package fast-xml-parser: run `npm install fast-xml-parser`\n",
    );
    const bad = mkdtempSync(join(tmpdir(), 'locus-import-bad-'));
    writeFileSync(join(bad, 'x'), '');
    const notDir = run('starpu', bad, '--host', 'sirocco');
    assert.equal(notDir.status, 2);
    assert.match(notDir.stderr, /is not a StarPU sampling directory/);
  });
});
