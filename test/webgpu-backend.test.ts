/**
 * The WebGPU backend (src/webgpu/backend.ts) on the adapter found here (lavapipe on CI),
 * beyond the conformance suite: random checksum task graphs on devices capped to the largest
 * task's footprint (so replicas are evicted and fetched again) end bit-identical to a
 * sequential run; a tiled float32 GEMM on two devices capped to four tiles each ends within
 * float32 tolerance of the float64 reference; a device lost mid-run ends the run with a clear
 * error; the buffer pool reuses buffers and refuses to pass its cap. Skipped, with the
 * reason, where no adapter is found.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Engine } from '../src/core/engine.ts';
import { TaskGraph } from '../src/core/graph.ts';
import { FloatList, IntList } from '../src/core/growable.ts';
import { PlatformModel } from '../src/core/model.ts';
import type { Platform } from '../src/core/platform.ts';
import { AccessMode } from '../src/core/types.ts';
import { Driver, type DriverHooks } from '../src/drive/driver.ts';
import { createEviction } from '../src/evict/index.ts';
import { gemm } from '../src/kernels/gemm.ts';
import { gemmRef, mulberry32 } from '../src/kernels/reference.ts';
import { createScheduler } from '../src/sched/index.ts';
import { WebGpuBackend } from '../src/webgpu/backend.ts';
import { checksumWgsl } from '../src/webgpu/checksum.ts';
import { createLogicalDevice, type LogicalDevice } from '../src/webgpu/device.ts';
import { gemmWgsl } from '../src/webgpu/gemm.ts';
import type { WebGpuKernel } from '../src/webgpu/kernel.ts';
import { checksumArgs, initialWord } from './conformance/backend.ts';
import { checksum } from './helpers/kernels.ts';
import { testPlatform } from './helpers/platforms.ts';
import { buildGraph, graphSpecArb } from './helpers/random-graphs.ts';
import { devicesFor, noAdapter } from './helpers/webgpu.ts';

const CHECKSUM: WebGpuKernel = {
  name: 'checksum',
  cpu: (data, args) =>
    checksum(
      data.map((b) => new Int32Array(b)),
      args,
    ),
  gpu: checksumWgsl,
};

const GEMM: WebGpuKernel = {
  name: 'gemm',
  cpu: (data) => {
    const [a, b, c] = data.map((x) => new Float32Array(x));
    gemm(a!, b!, c!, Math.round(Math.sqrt(c!.length)));
  },
  gpu: gemmWgsl,
};

/** Runs `graph` (kernel 0 for every task, `args(t)` its arguments) to the end over WebGPU. */
async function runGraph(
  graph: TaskGraph,
  platform: Platform,
  devices: Map<number, LogicalDevice>,
  kernel: WebGpuKernel,
  args: (t: number) => number[],
  initial: ArrayBuffer[],
  hooks: (backend: WebGpuBackend) => DriverHooks = () => ({}),
): Promise<{ backend: WebGpuBackend; driver: Driver; engine: Engine }> {
  const payloads = { kernel: new IntList(), argStart: new IntList(), args: new FloatList() };
  payloads.argStart.push(0);
  for (let t = 0; t < graph.taskCount; t++) {
    payloads.kernel.push(0);
    for (const a of args(t)) payloads.args.push(a);
    payloads.argStart.push(payloads.args.length);
  }
  const backend = new WebGpuBackend({ platform, devices, kernels: [kernel], payloads, initial });
  const engine = new Engine({
    graph,
    platform,
    scheduler: createScheduler('dmdar'),
    eviction: createEviction('lru'),
    model: new PlatformModel(platform, graph),
    seed: 1,
    issueAhead: true,
    gpuPipeline: 4,
  });
  backend.attach(engine);
  const driver = new Driver(engine, backend, { hooks: hooks(backend) });
  try {
    engine.open(backend.now());
    engine.submitted(backend.now());
    engine.close(backend.now());
    await driver.run(() => engine.isFinished);
  } finally {
    for (const d of devices.values()) d.dispose();
  }
  return { backend, driver, engine };
}

const skip = noAdapter === undefined ? {} : { skip: noAdapter };

describe('WebGPU backend', { timeout: 300_000, ...skip }, () => {
  test('random checksum graphs on devices capped to one task footprint are bit-identical to a sequential run', async () => {
    const specs = fc.sample(graphSpecArb, { numRuns: Number(process.env.PROPERTY_RUNS ?? 6), seed: 7 });
    let hostCopies = 0;
    let freed = 0;
    for (const spec of specs) {
      const { g, maxFootprint } = buildGraph(spec);
      const platform = testPlatform({ gpus: 2, gpuCapacity: maxFootprint, cpus: 1 });
      const initial = Array.from({ length: g.handleCount }, (_, h) => {
        const words = g.handleSize.data[h]! / 4;
        return Int32Array.from({ length: words }, (_, k) => initialWord(h, k)).buffer;
      });
      const { backend, driver, engine } = await runGraph(
        g,
        platform,
        await devicesFor(platform),
        CHECKSUM,
        (t) => checksumArgs(g, t),
        initial,
      );
      assert.deepEqual(driver.failures, []);
      const expected = Array.from({ length: g.handleCount }, (_, h) =>
        Int32Array.from({ length: g.handleSize.data[h]! / 4 }, (_, k) => initialWord(h, k)),
      );
      for (let t = 0; t < g.taskCount; t++)
        checksum(
          g.accesses(t).map(([h]) => expected[h]!),
          Float64Array.from(checksumArgs(g, t)),
        );
      for (let h = 0; h < g.handleCount; h++)
        assert.deepEqual(new Int32Array(backend.homeBytes(h).slice(0, g.handleSize.data[h]!)), expected[h]);
      hostCopies += backend.copies.h2h;
      freed += backend.deviceFrees;
      assert.equal(
        backend.copies.h2d + backend.copies.d2h + backend.copies.d2d + backend.copies.h2h,
        engine.trHandle.length,
        'every engine copy was made once',
      );
    }
    assert.equal(hostCopies, 0, 'no host-to-host copies on a one-host platform');
    assert.ok(freed > 0, 'the capped devices freed replicas');
  });

  test('a tiled float32 GEMM on two devices capped to four tiles is within float32 tolerance of float64', async () => {
    const nt = 3;
    const n = 16;
    const bytes = n * n * 4;
    const g = new TaskGraph();
    const cl = g.addCodelet({ name: 'gemm', kinds: ['gpu'] });
    const A = Array.from({ length: nt * nt }, () => g.addHandle(bytes));
    const B = Array.from({ length: nt * nt }, () => g.addHandle(bytes));
    const C = Array.from({ length: nt * nt }, () => g.addHandle(bytes));
    for (let i = 0; i < nt; i++)
      for (let j = 0; j < nt; j++)
        for (let k = 0; k < nt; k++)
          g.submit(cl, [
            [A[i + k * nt]!, AccessMode.R],
            [B[k + j * nt]!, AccessMode.R],
            [C[i + j * nt]!, AccessMode.RW],
          ]);
    const rnd = mulberry32(3);
    const initial = Array.from(
      { length: g.handleCount },
      () => Float32Array.from({ length: n * n }, () => rnd() * 2 - 1).buffer,
    );
    const platform = testPlatform({ gpus: 2, gpuCapacity: 4 * bytes, cpus: 0 });
    const want = initial.map((b) => Float64Array.from(new Float32Array(b)));
    const { backend, driver } = await runGraph(
      g,
      platform,
      await devicesFor(platform),
      GEMM,
      () => [],
      initial,
    );
    assert.deepEqual(driver.failures, []);
    for (let i = 0; i < nt; i++)
      for (let j = 0; j < nt; j++)
        for (let k = 0; k < nt; k++)
          gemmRef(want[A[i + k * nt]!]!, want[B[k + j * nt]!]!, want[C[i + j * nt]!]!, n);
    for (const h of C) {
      const got = new Float32Array(backend.homeBytes(h));
      for (let e = 0; e < n * n; e++)
        assert.ok(
          Math.abs(got[e]! - want[h]![e]!) <= 1e-5 * nt * n * (1 + Math.abs(want[h]![e]!)),
          `C tile ${h}[${e}]`,
        );
    }
  });

  test('a device lost mid-run ends the run with a clear error', async () => {
    const g = new TaskGraph();
    const cl = g.addCodelet({ name: 'c', kinds: ['gpu'] });
    const h = g.addHandle(4000);
    for (let t = 0; t < 6; t++) g.submit(cl, [[h, AccessMode.RW]]);
    const platform = testPlatform({ gpus: 1, gpuCapacity: 1e6 });
    const devices = await devicesFor(platform);
    const initial = [new Int32Array(1000).buffer];
    let destroyed = false;
    await assert.rejects(
      runGraph(
        g,
        platform,
        devices,
        CHECKSUM,
        (t) => checksumArgs(g, t),
        initial,
        () => ({
          ended: () => {
            if (destroyed) return;
            destroyed = true;
            devices.get(1)!.device.destroy();
          },
        }),
      ),
      /WebGPU device gpu0 was lost \(destroyed\)/,
    );
    assert.ok(destroyed);
  });

  test('the buffer pool reuses freed buffers and refuses to pass its cap', async () => {
    const dev = await createLogicalDevice('gpu9', 3 * 4096);
    try {
      const a = dev.buffer(4096);
      const b = dev.buffer(4096);
      dev.release(a);
      assert.equal(dev.buffer(4096), a);
      assert.equal(dev.allocated, 2 * 4096);
      assert.throws(
        () => dev.buffer(8192),
        /WebGPU device gpu9: 8\.00 KiB more would exceed its cap of 12\.00 KiB/,
      );
      dev.release(b);
      // A pooled buffer of another size is destroyed to make room.
      const c = dev.buffer(8192);
      assert.equal(c.size, 8192);
      assert.equal(dev.allocated, 3 * 4096);
    } finally {
      dev.dispose();
    }
  });
});
