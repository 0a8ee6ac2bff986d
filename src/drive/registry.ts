/**
 * The backends a Runtime session can run on, by name (issue 23): what each is, whether its
 * time is virtual, and how to make one from a session's setup. Sessions (src/exec/session.ts)
 * open their backend here and nowhere else; `test/backend-registry.test.ts` checks every entry
 * against the backend conformance suite's list. Adding a backend is one folder with its class
 * and one entry below.
 */
import type { TaskGraph } from '../core/graph.ts';
import type { DurationModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import type { BufferStore } from '../exec/buffers.ts';
import type { WorkerPool } from '../exec/pool.ts';
import { type TaskPayloads, ThreadBackend } from '../exec/thread-backend.ts';
import { SimBackend } from '../sim/backend.ts';
import type { LogicalDevice } from '../webgpu/device.ts';
import { HybridBackend } from '../webgpu/hybrid-backend.ts';
import type { WebGpuKernel } from '../webgpu/kernel.ts';
import type { Backend } from './backend.ts';

/** What a session gives the backend it opens. */
export interface BackendSetup {
  graph: TaskGraph;
  platform: Platform;
  /** The duration model (a simulated backend's task times). */
  model: DurationModel;
  /** Seed of the run's random draws. */
  seed: number;
  /** The tasks' kernels and arguments (a real backend runs them; required there). */
  payloads?: TaskPayloads;
  /** Replica buffers, shared with the worker threads (a real backend's; required there). */
  store?: BufferStore;
  /** One thread per platform worker (a backend that runs CPU kernels on threads). */
  pool?: WorkerPool | undefined;
  /** Hold copies to their route's speed (emulated device links); default false. */
  throttle?: boolean;
  /** Check every kernel's accesses (RuntimeOptions.checkAccesses): worker-thread tasks only. */
  checkAccesses?: boolean;
  /**
   * Real GPUs (the webgpu backend): the logical device of each GPU memory node, the WGSL of a
   * task's codelet, and the CPU workers the pool's threads run (thread i: cpuWorkers[i]).
   */
  gpu?: {
    devices: ReadonlyMap<number, LogicalDevice>;
    kernelOf: (task: number) => WebGpuKernel | undefined;
    cpuWorkers: readonly number[];
  };
}

/** One registered backend. */
export interface BackendEntry {
  /** The name sessions and tests use. */
  readonly name: string;
  /** Virtual time ('simulated') or the wall clock ('real'). */
  readonly mode: 'simulated' | 'real';
  /** One line on what it runs. */
  readonly summary: string;
  /** Makes the backend of one session. */
  create(setup: BackendSetup): Backend;
}

/** The registered backends. */
export const BACKENDS: readonly BackendEntry[] = [
  {
    name: 'simulated',
    mode: 'simulated',
    summary: "virtual time on the platform's figures or calibrated models; nothing runs",
    create: (s) => new SimBackend({ graph: s.graph, platform: s.platform, model: s.model, seed: s.seed }),
  },
  {
    name: 'threads',
    mode: 'real',
    summary: 'one worker thread per platform worker; GPUs as emulated device memories in host memory',
    create: (s) => {
      const { pool, store, payloads } = s;
      if (pool === undefined || store === undefined || payloads === undefined)
        throw new Error('the threads backend needs a worker pool, a buffer store and the task payloads');
      return new ThreadBackend({
        platform: s.platform,
        pool,
        store,
        payloads,
        throttle: s.throttle ?? false,
        checkAccesses: s.checkAccesses ?? false,
      });
    },
  },
  {
    name: 'webgpu',
    mode: 'real',
    summary: 'CPU workers on worker threads, GPU workers on WebGPU devices (real GPUs, or lavapipe)',
    create: (s) => {
      const { pool, store, payloads, gpu } = s;
      if (pool === undefined || store === undefined || payloads === undefined || gpu === undefined)
        throw new Error(
          'the webgpu backend needs a worker pool, a buffer store, the task payloads and its devices',
        );
      return new HybridBackend({
        platform: s.platform,
        pool,
        cpuWorkers: gpu.cpuWorkers,
        store,
        payloads,
        devices: gpu.devices,
        gpuKernelOf: gpu.kernelOf,
        throttle: s.throttle ?? false,
      });
    },
  },
];

/** The backend named `name`; throws an Error listing the names when there is none. */
export function backendEntry(name: string): BackendEntry {
  const e = BACKENDS.find((b) => b.name === name);
  if (e === undefined)
    throw new Error(`no backend named '${name}': ${BACKENDS.map((b) => b.name).join(', ')}`);
  return e;
}

/** Makes the backend named `name` from `setup` (its registry entry's create). */
export function createBackend(name: string, setup: BackendSetup): Backend {
  return backendEntry(name).create(setup);
}
