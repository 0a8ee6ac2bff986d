/**
 * The backend conformance suite for WebGPU (src/webgpu/backend.ts) on the adapter found here
 * (lavapipe on CI; never Dawn's null backend): the checksum kernel in WGSL on the GPU nodes
 * (one logical device each, capped at the node's memory) and in JS on the CPU workers, int32
 * data; the tasks that must fail run a kernel whose WGSL does not compile on a GPU (a real
 * validation error) and throw on a CPU. Copies are held to their link's speed (throttle), as
 * the thread backend's are in its suite, so that prefetches are still in flight when they
 * become urgent. Every case is skipped, with the reason, only where
 * no adapter is found.
 */
import { FloatList, IntList } from '../../src/core/growable.ts';
import { dropPayloads } from '../../src/exec/recycle.ts';
import { WebGpuBackend } from '../../src/webgpu/backend.ts';
import { checksumWgsl } from '../../src/webgpu/checksum.ts';
import type { WebGpuKernel } from '../../src/webgpu/kernel.ts';
import { BACKEND_CASES, checksumArgs, initialWord, runBackendConformance } from '../conformance/backend.ts';
import { checksum } from '../helpers/kernels.ts';
import { devicesFor, noAdapter } from '../helpers/webgpu.ts';

const KERNELS: WebGpuKernel[] = [
  {
    name: 'checksum',
    cpu: (data, args) =>
      checksum(
        data.map((b) => new Int32Array(b)),
        args,
      ),
    gpu: checksumWgsl,
  },
  {
    name: 'boom',
    cpu: () => {
      throw new Error('kaboom');
    },
    gpu: {
      source: () => '@compute @workgroup_size(1) fn main() { let x = kaboom; }',
      workgroups: () => [1, 1, 1],
      params: () => new Uint32Array(1),
    },
  },
];

runBackendConformance({
  name: 'webgpu',
  create: async ({ graph, platform, failing }) => {
    const devices = await devicesFor(platform);
    const payloads = { kernel: new IntList(), argStart: new IntList(), args: new FloatList() };
    payloads.argStart.push(0);
    /** The payloads of tasks [from, to), as a Runtime records them at submission. */
    const appended = (from: number, to: number) => {
      for (let t = from; t < to; t++) {
        payloads.kernel.push(failing.has(t) ? 1 : 0);
        for (const a of checksumArgs(graph, t)) payloads.args.push(a);
        payloads.argStart.push(payloads.args.length);
      }
    };
    appended(0, graph.taskCount);
    const initial = Array.from({ length: graph.handleCount }, (_, h) => {
      const words = graph.handleSize.data[h]! / 4;
      return Int32Array.from({ length: words }, (_, k) => initialWord(h, k)).buffer;
    });
    const backend = new WebGpuBackend({
      platform,
      devices,
      kernels: KERNELS,
      payloads,
      initial,
      throttle: true,
    });
    return {
      backend,
      engineOptions: { issueAhead: true, cpuPipeline: 4, gpuPipeline: 4 },
      homeValues: () =>
        Array.from(
          { length: graph.handleCount },
          (_, h) => new Int32Array(backend.homeBytes(h).slice(0, graph.handleSize.data[h]!)),
        ),
      appended,
      // As the Runtime recycles: the payloads of recycled tasks are dropped.
      rebase: (k: number) => dropPayloads(payloads, k),
      dispose: async () => {
        for (const d of devices.values()) d.dispose();
      },
    };
  },
  runs: 4,
  skip: noAdapter === undefined ? [] : [{ reason: noAdapter, tests: [...BACKEND_CASES] }],
});
