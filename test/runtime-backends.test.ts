/**
 * Runtime.create({ backend }): the one application API over worker threads, WebGPU devices
 * and the simulator. Codelets declare a CPU implementation, a GPU one (WGSL) or both; a task
 * runs only where its codelet has one, and a codelet no worker of the machine can run is
 * refused in one line at declaration. The WebGPU cases run on the adapter found here
 * (lavapipe on CI) and are skipped, with the reason, where there is none.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LocusError } from '../src/core/types.ts';
import { Runtime } from '../src/exec/runtime.ts';
import { noAdapter, SCALE_WGSL } from './helpers/webgpu.ts';

const perfModelDir = mkdtempSync(join(tmpdir(), 'locus-models-'));

const scaleGpu = {
  wgsl: SCALE_WGSL,
  workgroups: (_b: readonly number[], a: Float64Array) => Math.ceil(a[0]! / 64),
};
const KERNELS = new URL('./helpers/kernels.ts', import.meta.url);

const invalid = (code: string, re: RegExp) => (e: unknown) =>
  e instanceof LocusError && e.code === code && re.test(e.message) && !e.message.includes('\n');

describe('Runtime.create({ backend })', () => {
  test('an unknown backend, or one that contradicts the mode, is one line', async () => {
    await assert.rejects(
      Runtime.create({ backend: 'cuda' as never }),
      invalid('LOCUS_OPTION_INVALID', /^backend must be 'threads', 'webgpu' or 'simulated' \(got 'cuda'\)$/),
    );
    await assert.rejects(
      Runtime.create({ mode: 'simulated', backend: 'threads' }),
      invalid('LOCUS_OPTION_CONFLICT', /^mode 'simulated' and backend 'threads' disagree/),
    );
  });

  test("backend 'simulated' is the simulated mode", async () => {
    const rt = await Runtime.create({ backend: 'simulated', cpus: 2, gpus: 1, perfModels: 'off' });
    assert.equal(rt.mode, 'simulated');
    const c = rt.codelet({ name: 'scale', gpu: scaleGpu });
    const x = rt.data(new Float32Array(256));
    rt.submit(c, [[x, 'RW']], { args: [256] });
    const r = await rt.wait();
    // A GPU-only codelet: its task ran on the GPU worker.
    assert.deepEqual(
      r.workers.filter((w) => w.tasks > 0).map((w) => w.kind),
      ['gpu'],
    );
    await rt.close();
  });

  test('threads: a GPU-only codelet, or one no worker of the machine runs, is refused in one line', async () => {
    const rt = await Runtime.create({ backend: 'threads', cpus: 1, perfModelDir });
    try {
      assert.throws(
        () => rt.codelet({ name: 'scale', gpu: scaleGpu }),
        invalid(
          'LOCUS_GRAPH_INVALID',
          /^codelet scale has only a GPU implementation \(WGSL\), which the threads backend cannot run/,
        ),
      );
      assert.throws(
        () => rt.codelet({ name: 'onGpu', kernel: { module: KERNELS, export: 'checksum' }, kinds: ['gpu'] }),
        invalid(
          'LOCUS_GRAPH_INVALID',
          /^codelet onGpu runs on gpu workers, and this machine has cpu workers only/,
        ),
      );
    } finally {
      await rt.close();
    }
  });

  test('a malformed GPU implementation is one line at declaration', async () => {
    const rt = await Runtime.create({ backend: 'simulated', cpus: 1, gpus: 1, perfModels: 'off' });
    assert.throws(
      () => rt.codelet({ name: 'a', gpu: { wgsl: ' ', workgroups: () => 1 } }),
      invalid('LOCUS_GRAPH_INVALID', /^codelet a: gpu\.wgsl must be WGSL source text \(or a function/),
    );
    assert.throws(
      () => rt.codelet({ name: 'b', gpu: { wgsl: SCALE_WGSL, workgroups: 4 as never } }),
      invalid('LOCUS_GRAPH_INVALID', /^codelet b: gpu\.workgroups must be a function/),
    );
    await rt.close();
  });
});

describe('discarded data (DataOptions.discard)', () => {
  test("a discarded output's content is dropped after its writer, never written home", async () => {
    // One emulated GPU: the task runs there and writes the 4 KiB datum, which is then dropped.
    const rt = await Runtime.create({ cpus: 1, gpus: 1, gpuMemory: '1MiB', perfModelDir });
    try {
      const c = rt.codelet({ name: 'fill', kernel: { module: KERNELS, export: 'checksum' }, kinds: ['gpu'] });
      const kept = new Int32Array(1024);
      const d = rt.data(kept, { name: 'scratch', discard: true });
      rt.submit(c, [[d, 'W']], { args: [0, 2] });
      const r = await rt.wait();
      await rt.sync();
      assert.equal(r.discardedBytes, 4096);
      assert.equal(r.bytesFromDevices, 0);
      assert.ok(
        kept.every((x) => x === 0),
        'the array keeps its initial content',
      );
    } finally {
      await rt.close();
    }
  });
});

describe("Runtime.create({ backend: 'webgpu' })", noAdapter ? { skip: noAdapter } : {}, () => {
  test('a GPU-only codelet runs on the device, a CPU-only one on a thread; the report names the adapter', async () => {
    const rt = await Runtime.create({ backend: 'webgpu', cpus: 1, gpus: 1, gpuMemory: '1MiB', perfModelDir });
    try {
      const onGpu = rt.codelet({ name: 'scale', gpu: scaleGpu });
      const onCpu = rt.codelet({ name: 'checksum', kernel: { module: KERNELS, export: 'checksum' } });
      const n = 1000;
      const x = Float32Array.from({ length: n }, (_, i) => i);
      const xs = rt.data(x);
      rt.submit(onGpu, [[xs, 'RW']], { args: [n] });
      rt.submit(onGpu, [[xs, 'RW']], { args: [n] });
      const words = rt.data(new Int32Array(16));
      rt.submit(onCpu, [[words, 'RW']], { args: [0, 3] });
      const r = await rt.wait();
      await rt.sync();
      assert.deepEqual([...x.slice(0, 4)], [0, 4, 8, 12], 'x scaled twice on the GPU and copied home');
      const tasksOf = (kind: string) =>
        r.workers.filter((w) => w.kind === kind).reduce((s, w) => s + w.tasks, 0);
      assert.equal(tasksOf('gpu'), 2);
      assert.equal(tasksOf('cpu'), 1);
      assert.equal(typeof r.adapter?.vendor, 'string');
    } finally {
      await rt.close();
    }
  });

  test('float64 data: a codelet with WGSL runs those tasks on the CPUs, said once; one without a CPU kernel is refused', async () => {
    const warnings: string[] = [];
    const rt = await Runtime.create({
      backend: 'webgpu',
      cpus: 1,
      gpus: 1,
      gpuMemory: '1MiB',
      perfModelDir,
      onWarning: (m) => warnings.push(m),
    });
    try {
      const both = rt.codelet({
        name: 'checksum',
        kernel: { module: KERNELS, export: 'checksum' },
        gpu: scaleGpu,
      });
      const onGpu = rt.codelet({ name: 'scale', gpu: scaleGpu });
      const d = rt.data(new Float64Array(8));
      rt.submit(both, [[d, 'RW']], { args: [0, 3] });
      rt.submit(both, [[d, 'RW']], { args: [1, 3] });
      assert.throws(
        () => rt.submit(onGpu, [[d, 'RW']], { args: [8] }),
        invalid(
          'LOCUS_GRAPH_INVALID',
          /^task scale accesses float64 data, which WGSL cannot compute on, and codelet scale has no CPU kernel/,
        ),
      );
      const r = await rt.wait();
      assert.equal(
        r.workers.filter((w) => w.kind === 'cpu').reduce((s, w) => s + w.tasks, 0),
        2,
      );
      assert.deepEqual(warnings, [
        'codelet checksum: its tasks on float64 data run on CPUs only (WGSL has no float64)',
      ]);
    } finally {
      await rt.close();
    }
  });
});
