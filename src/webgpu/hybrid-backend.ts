/**
 * The hybrid backend (issue 23): CPU workers on worker threads, GPU workers on WebGPU devices,
 * one machine to the engine. The host memory node is the Runtime's buffer store (shared
 * memory, as the threads see it); the GPUs' replicas are WebGPU buffers. Commands go to the
 * part that owns them: a task by its worker's memory node, a copy by its ends (any end on a
 * GPU: WebGPU; host to host: the threads' store), a free by its node. No task runs on the main
 * thread. Out of core, copies between the disk and host memory go to the threads' part (its
 * DiskFiles reads and writes), those between the disk and a GPU to WebGPU's, through the same
 * DiskFiles. The threads' part does not block the main thread on its bell (the GPU part completes
 * through promises, which need the event loop): a wait is whichever part wakes first.
 */
import type { Engine } from '../core/engine.ts';
import type { Platform } from '../core/platform.ts';
import type { Backend, EventSink } from '../drive/backend.ts';
import type { BufferStore } from '../exec/buffers.ts';
import type { WorkerPool } from '../exec/pool.ts';
import type { KernelRef } from '../exec/protocol.ts';
import { type TaskPayloads, ThreadBackend } from '../exec/thread-backend.ts';
import { WebGpuBackend } from './backend.ts';
import type { LogicalDevice } from './device.ts';
import type { WebGpuKernel } from './kernel.ts';

/** What a hybrid backend is made of. */
export interface HybridBackendOptions {
  platform: Platform;
  /** One thread per CPU worker, in the order of `cpuWorkers`. */
  pool: WorkerPool;
  /** The platform's CPU workers (on host memory nodes), thread i running cpuWorkers[i]. */
  cpuWorkers: readonly number[];
  /** Replica buffers of the host memory node(s), shared with the threads. */
  store: BufferStore;
  /** The tasks' CPU kernel ids and arguments. */
  payloads: TaskPayloads;
  /** The logical device of each GPU memory node. */
  devices: ReadonlyMap<number, LogicalDevice>;
  /** The WGSL implementation of a task's codelet, if it has one. */
  gpuKernelOf: (task: number) => WebGpuKernel | undefined;
  /** Hold copies to their route's speed (emulated links; the conformance suite). */
  throttle?: boolean;
}

/** Worker threads for the CPUs and WebGPU devices for the GPUs, as one backend. */
export class HybridBackend implements Backend {
  readonly mode = 'real' as const;
  private readonly p: Platform;
  private readonly threads: ThreadBackend;
  private readonly gpus: WebGpuBackend;
  /** Whether each memory node is a GPU's. */
  private readonly onGpu: Uint8Array;
  private engine!: Engine;
  /** Worker threads (CPU workers) of the machine. */
  private readonly cpuThreads: number;

  constructor(o: HybridBackendOptions) {
    this.p = o.platform;
    this.onGpu = Uint8Array.from(o.platform.nodes, (n) => (n.kind === 'gpu' ? 1 : 0));
    this.cpuThreads = o.cpuWorkers.length;
    for (const w of o.cpuWorkers)
      if (this.onGpu[o.platform.workers[w]!.node])
        throw new Error(`worker ${o.platform.workers[w]!.name} is on a GPU: it cannot run on a thread`);
    this.threads = new ThreadBackend({
      platform: o.platform,
      pool: o.pool,
      store: o.store,
      payloads: o.payloads,
      workers: o.cpuWorkers,
      blocking: false,
      throttle: o.throttle ?? false,
    });
    const store = o.store;
    this.gpus = new WebGpuBackend({
      platform: o.platform,
      devices: o.devices,
      kernels: [],
      kernelOf: o.gpuKernelOf,
      payloads: o.payloads,
      initial: [],
      throttle: o.throttle ?? false,
      ...(store.disk ? { disk: store.disk } : {}),
      hostBytes: (h, node) => {
        const id = store.replica(h, node);
        return new Uint8Array(store.buffers[id]!);
      },
      // A GPU event ends the threads' pending wait too (it waits through the event loop).
      onEvent: () => this.threads.ring(),
      // One clock for the machine: the threads'.
      clock: () => this.threads.now(),
    });
  }

  attach(engine: Engine): void {
    this.engine = engine;
    this.threads.attach(engine);
    this.gpus.attach(engine);
  }

  start(): void {
    this.threads.start();
  }

  loadKernels(refs: readonly KernelRef[], from: number): Promise<Map<number, string>> {
    return this.threads.loadKernels(refs, from);
  }

  ring(): void {
    this.threads.ring();
    this.gpus.ring();
  }

  async stop(): Promise<void> {
    await this.threads.stop();
  }

  /** One clock for both parts: the threads'. */
  now(): number {
    return this.threads.now();
  }

  run(task: number, worker: number): void {
    if (this.onGpu[this.p.workers[worker]!.node]) this.gpus.run(task, worker);
    else this.threads.run(task, worker);
  }

  copy(id: number): void {
    const e = this.engine;
    if (this.onGpu[e.trSrc.data[id]!] || this.onGpu[e.trDst.data[id]!]) this.gpus.copy(id);
    else this.threads.copy(id);
  }

  urgent(id: number): void {
    const e = this.engine;
    if (this.onGpu[e.trSrc.data[id]!] || this.onGpu[e.trDst.data[id]!]) this.gpus.urgent();
    else this.threads.urgent();
  }

  free(handle: number, node: number): void {
    if (this.onGpu[node]) this.gpus.free(handle, node);
    else this.threads.free(handle, node);
  }

  poll(sink: EventSink): number {
    return this.threads.poll(sink) + this.gpus.poll(sink);
  }

  /** The engine recycled tasks [0, k): both parts follow. */
  rebase(k: number): void {
    this.threads.rebase(k);
    this.gpus.rebase(k);
  }

  wait(): Promise<void> {
    // Whichever part has something first (a GPU event also rings the threads' bell); a
    // machine of GPUs only waits for them alone.
    if (this.cpuThreads === 0) return this.gpus.wait();
    return Promise.race([this.threads.wait(), this.gpus.wait()]);
  }
}
