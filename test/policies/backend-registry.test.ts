/**
 * The backend conformance suite over every backend a Runtime session can open
 * (src/drive/registry.ts), each made by the registry from its name and the same setup a session
 * gives and run through openRun (src/drive/open-run.ts), with no backend-specific code: real backends run test/helpers/kernels.ts's checksum (and boom for the tasks that
 * must fail) on int32 data in shared memory, their copies held to their link's speed
 * (throttled) so that they complete while other events happen, as a device link's would.
 * The simulator runs no kernel: the cases that need computed values or failing kernels are
 * skipped for it, with the reason. The webgpu entry (worker threads for the CPUs, WebGPU
 * devices for the GPUs) runs the checksum in WGSL on its devices, and a kernel whose WGSL does
 * not compile for the tasks that must fail; every case is skipped, with the reason, where no
 * WebGPU adapter is found. (The WebGPU backend alone has its own file.)
 */
import { FloatList, IntList } from '../../src/core/growable.ts';
import { PlatformModel } from '../../src/core/model.ts';
import { BACKENDS, createBackend } from '../../src/drive/registry.ts';
import { BufferStore } from '../../src/exec/buffers.ts';
import { WorkerPool } from '../../src/exec/pool.ts';
import { dropPayloads } from '../../src/exec/recycle.ts';
import { checksumWgsl } from '../../src/webgpu/checksum.ts';
import type { WebGpuKernel } from '../../src/webgpu/kernel.ts';
import { BACKEND_CASES, checksumArgs, initialWord, runBackendConformance } from '../conformance/backend.ts';
import { devicesFor, noAdapter } from '../helpers/webgpu.ts';

const KERNELS = new URL('../helpers/kernels.ts', import.meta.url).href;
const CHECKSUM = 0;
const BOOM = 1;
/** The checksum in WGSL, and a kernel whose WGSL does not compile (a real validation error). */
const WGSL_CHECKSUM: WebGpuKernel = { name: 'checksum', gpu: checksumWgsl };
const WGSL_BOOM: WebGpuKernel = {
  name: 'boom',
  gpu: {
    source: () => '@compute @workgroup_size(1) fn main() { let x = kaboom; }',
    workgroups: () => [1, 1, 1],
    params: () => new Uint32Array(1),
  },
};

/**
 * A fresh pool per run: a thread caches the buffers it was told about by id, and each run
 * has its own buffer store (a Runtime keeps one store, and its threads, for its whole life).
 */
async function poolOf(size: number): Promise<WorkerPool> {
  const pool = new WorkerPool(size);
  await pool.load(
    [
      { module: KERNELS, export: 'checksum' },
      { module: KERNELS, export: 'boom' },
    ],
    0,
  );
  return pool;
}

for (const entry of BACKENDS) {
  const real = entry.mode === 'real';
  const gpus = entry.name === 'webgpu';
  runBackendConformance({
    name: entry.name,
    create: async ({ graph, platform, failing }) => {
      const cpuWorkers = platform.workers.flatMap((w, i) =>
        gpus && platform.nodes[w.node]!.kind === 'gpu' ? [] : [i],
      );
      const pool = real ? await poolOf(cpuWorkers.length) : undefined;
      const devices = gpus ? await devicesFor(platform) : undefined;
      const store = new BufferStore();
      for (let h = 0; h < graph.handleCount; h++) {
        const words = graph.handleSize.data[h]! / 4;
        store.addHandle(
          2,
          words,
          Int32Array.from({ length: words }, (_, k) => initialWord(h, k)),
        );
      }
      store.useNodes(platform.nodes.length, platform.homeNode);
      const payloads = { kernel: new IntList(), argStart: new IntList(), args: new FloatList() };
      payloads.argStart.push(0);
      /** The payloads of tasks [from, to), as a Runtime records them at submission. */
      const appended = (from: number, to: number) => {
        for (let t = from; t < to; t++) {
          payloads.kernel.push(failing.has(t) ? BOOM : CHECKSUM);
          for (const a of checksumArgs(graph, t)) payloads.args.push(a);
          payloads.argStart.push(payloads.args.length);
        }
      };
      appended(0, graph.taskCount);
      // Made by the registry from the entry's name, as a Runtime session makes it.
      const setup = {
        graph,
        platform,
        model: new PlatformModel(platform, graph),
        seed: 1,
        payloads,
        store,
        pool,
        throttle: true,
        ...(devices
          ? {
              gpu: {
                devices,
                cpuWorkers,
                kernelOf: (t: number) => (failing.has(t) ? WGSL_BOOM : WGSL_CHECKSUM),
              },
            }
          : {}),
      };
      return {
        backend: createBackend(entry.name, setup),
        // As the Runtime runs a real backend: several tasks handed to each worker at once.
        ...(real ? { engineOptions: { issueAhead: true, cpuPipeline: 4, gpuPipeline: 4 } } : {}),
        ...(real
          ? {
              homeValues: () =>
                Array.from(
                  { length: graph.handleCount },
                  (_, h) => new Int32Array((store.view(store.home[h]!) as Int32Array).slice()),
                ),
            }
          : {}),
        appended,
        // As the Runtime recycles: the payloads of recycled tasks are dropped.
        rebase: (k: number) => dropPayloads(payloads, k),
        dispose: async () => {
          await pool?.close();
          for (const d of devices?.values() ?? []) d.dispose();
        },
      };
    },
    // Real threads time their tasks on their own clocks (ms since the epoch): allow for skew.
    ...(real ? { clockSlackS: 2e-3, runs: 4 } : {}),
    ...(gpus && noAdapter !== undefined ? { skip: [{ reason: noAdapter, tests: [...BACKEND_CASES] }] } : {}),
    ...(real
      ? {}
      : {
          skip: [
            {
              reason:
                'a simulated backend runs no kernel: it computes no values (the symbolic oracle checks its runs) and none of its tasks can fail',
              tests: [
                'final data computed by the kernels equal a sequential execution',
                'a failed task is reported; exactly its dependents are cancelled',
              ],
            },
          ],
        }),
  });
}
