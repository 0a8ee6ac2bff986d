/**
 * The WebGPU backend (docs/webgpu.md): the engine's commands on real GPUs through WebGPU.
 * Each GPU memory node is a logical device (device.ts: a GPUDevice with a memory cap); host
 * nodes hold ArrayBuffers. RUN on a device worker encodes the kernel's WGSL pipeline over the
 * task's replica buffers and submits it; on a host worker the kernel's CPU implementation
 * runs on the main thread on the next macrotask. Host-to-device copies go through a staging
 * buffer mapped for writing (LogicalDevice.upload: the bytes are taken when issued, so the
 * copy overlaps the kernels queued before it);
 * device-to-host copies go through a staging buffer from the device's ring, read with
 * mapAsync; a device-to-device copy is staged through the host, since WebGPU buffers belong
 * to one GPUDevice. Everything completes asynchronously: promise callbacks queue events that
 * poll() delivers, in each worker's order.
 *
 * Errors: each task's commands run inside validation and out-of-memory error scopes; an error
 * fails the task with the GPU's message. A device lost while in use ends the run: poll()
 * throws a LocusError naming the device and the reason (nothing waits for a dead queue).
 */
/// <reference types="@webgpu/types" />
import type { Engine } from '../core/engine.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import type { Backend, EventSink } from '../drive/backend.ts';
import type { TaskPayloads } from '../exec/thread-backend.ts';
import { aligned, type LogicalDevice } from './device.ts';
import { encodeKernel } from './dispatch.ts';
import type { WebGpuKernel } from './kernel.ts';

/** Options of the WebGPU backend. */
export interface WebGpuBackendOptions {
  platform: Platform;
  /** The logical device of each GPU memory node (by node index). */
  devices: ReadonlyMap<number, LogicalDevice>;
  /** Kernels by id (TaskPayloads.kernel). */
  kernels: readonly WebGpuKernel[];
  /**
   * The kernel of a task, when it is not `kernels[payloads.kernel[task]]` (a Runtime's codelets
   * carry their WGSL per codelet).
   */
  kernelOf?: (task: number) => WebGpuKernel | undefined;
  /** Kernel ids and arguments of the tasks. */
  payloads: TaskPayloads;
  /** Each handle's home replica, with its initial content (bytes = the handle's size). */
  initial: readonly ArrayBuffer[];
  /**
   * Where host replicas live instead of the backend's own buffers: the bytes of handle h's
   * replica on host node `node` (a Runtime's buffer store, shared with its worker threads).
   */
  hostBytes?: (h: number, node: number) => Uint8Array;
  /**
   * Out of core: the disk node's reads and writes (a Runtime's DiskFiles), for copies between
   * the disk and a GPU (the engine's direct copies when host memory has no room).
   */
  disk?: DiskIO;
  /** Called when an event is queued (a composite wakes its other part's wait). */
  onEvent?: () => void;
  /** The clock (seconds), when the backend is part of a composite with one clock. */
  clock?: () => number;
  /**
   * Hold each copy's completion back to its route's latency + bytes / bandwidth, copies on a
   * route one after another (an emulated link: lavapipe's device memory is host memory).
   */
  throttle?: boolean;
}

/** Reads and writes of a disk node's data, asynchronous (DiskFiles, src/exec/disk-files.ts). */
export interface DiskIO {
  /** Reads handle h's bytes from the disk into `into` (its whole length). */
  read(h: number, into: Uint8Array): Promise<void>;
  /** Writes `from` as handle h's bytes on the disk. */
  write(h: number, from: Uint8Array): Promise<void>;
}

/** What happened, for poll() to deliver (a task's id is absolute: the engine's plus `base`). */
type Event =
  | { kind: 'task'; task: number; worker: number; start: number; end: number; error: string | undefined }
  | { kind: 'copy'; id: number; start: number };

/** Real GPUs through WebGPU, CPU workers on the main thread. */
export class WebGpuBackend implements Backend {
  readonly mode = 'real' as const;
  private engine!: Engine;
  private readonly p: Platform;
  private readonly devices: ReadonlyMap<number, LogicalDevice>;
  private readonly kernels: readonly WebGpuKernel[];
  private readonly kernelOf: ((task: number) => WebGpuKernel | undefined) | undefined;
  private readonly hostBytes: ((h: number, node: number) => Uint8Array) | undefined;
  private readonly disk: DiskIO | undefined;
  /** The disk node, -1 when none. */
  private readonly diskNode: number;
  private readonly onEvent: (() => void) | undefined;
  private readonly clock: (() => number) | undefined;
  private readonly payloads: TaskPayloads;
  private readonly nn: number;
  private readonly host = new Map<number, ArrayBuffer>();
  private readonly gpu = new Map<number, GPUBuffer>();
  private readonly events: Event[] = [];
  /** Each worker's last completion, so events come in its run order. */
  private readonly tail: Promise<unknown>[];
  private readonly lastEnd: Float64Array;
  private readonly t0 = performance.now();
  private fatal: LocusError | undefined;
  private wake: (() => void) | undefined;
  private readonly throttle: boolean;
  private readonly routeBusy: Float64Array;
  /** Copies issued, by route kind (for reports and tests). */
  readonly copies = { h2d: 0, d2h: 0, d2d: 0, h2h: 0, disk2d: 0, d2disk: 0 };
  /** Bytes copied. */
  bytesCopied = 0;
  /** Device replicas freed (evicted, or invalidated by a write elsewhere). */
  deviceFrees = 0;
  /** Tasks the graph dropped (graph.retired): events in flight hold the engine's id plus this. */
  private base = 0;

  constructor(o: WebGpuBackendOptions) {
    this.p = o.platform;
    this.devices = o.devices;
    this.kernels = o.kernels;
    this.kernelOf = o.kernelOf;
    this.hostBytes = o.hostBytes;
    this.disk = o.disk;
    this.diskNode = o.platform.nodes.findIndex((n) => n.kind === 'disk');
    this.onEvent = o.onEvent;
    this.clock = o.clock;
    this.payloads = o.payloads;
    this.nn = o.platform.nodes.length;
    this.throttle = o.throttle ?? false;
    this.routeBusy = new Float64Array(this.nn * this.nn);
    // The home replicas are the caller's buffers (results land there), copied only when
    // their length is not a multiple of 4 bytes (WebGPU copies whole words).
    for (const [h, bytes] of o.initial.entries()) {
      let own = bytes;
      if (bytes.byteLength % 4 !== 0) {
        own = new ArrayBuffer(aligned(bytes.byteLength));
        new Uint8Array(own).set(new Uint8Array(bytes));
      }
      this.host.set(h * this.nn + o.platform.homeNode, own);
    }
    this.tail = o.platform.workers.map(() => Promise.resolve());
    this.lastEnd = new Float64Array(o.platform.workers.length);
    for (const [n, d] of this.devices) {
      if (this.p.nodes[n]?.kind !== 'gpu') throw new Error(`node ${n} is not a GPU memory node`);
      d.onLost = (m) => this.fail(m);
    }
  }

  /** Gives the backend the engine whose tables it reads. */
  attach(engine: Engine): void {
    this.engine = engine;
    this.base = engine.graph.retired;
  }

  /** The devices are ready when made: nothing to start. */
  start(): void {}

  /**
   * CPU tasks run the workloads' tile kernels (src/webgpu/tile-kernels.ts) on the main thread:
   * no module to load.
   */
  loadKernels(): Promise<Map<number, string>> {
    return Promise.resolve(new Map());
  }

  /** Wakes a pending wait() at once. */
  ring(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Every queue is drained when the engine is finished: nothing to stop. */
  stop(): Promise<void> {
    return Promise.resolve();
  }

  /** The home replica of handle `h` (its bytes, current once the run is finished). */
  homeBytes(h: number): ArrayBuffer {
    return this.host.get(h * this.nn + this.p.homeNode)!;
  }

  now(): number {
    return this.clock ? this.clock() : (performance.now() - this.t0) / 1000;
  }

  private push(e: Event): void {
    this.events.push(e);
    this.onEvent?.();
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private fail(message: string): void {
    if (this.fatal === undefined) this.fatal = new LocusError('LOCUS_WORKER_THREAD_FAILED', message);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private size(h: number): number {
    return this.engine.graph.handleSize.data[h]!;
  }

  /** The bytes of `h`'s replica on host node `node`: the store's, or the backend's own. */
  private hostView(h: number, node: number): Uint8Array {
    return this.hostBytes ? this.hostBytes(h, node) : new Uint8Array(this.hostReplica(h, node));
  }

  /** The host replica of `h` on host node `node` (made on first use). */
  private hostReplica(h: number, node: number): ArrayBuffer {
    const k = h * this.nn + node;
    let b = this.host.get(k);
    if (b === undefined) {
      b = new ArrayBuffer(aligned(this.size(h)));
      this.host.set(k, b);
    }
    return b;
  }

  /** The device replica of `h` on GPU node `node` (from the pool on first use). */
  private gpuReplica(h: number, node: number): GPUBuffer {
    const k = h * this.nn + node;
    let b = this.gpu.get(k);
    if (b === undefined) {
      b = this.devices.get(node)!.buffer(this.size(h));
      this.gpu.set(k, b);
    }
    return b;
  }

  private device(node: number): LogicalDevice {
    const d = this.devices.get(node);
    if (d === undefined) throw new Error(`GPU node ${this.p.nodes[node]?.name} has no WebGPU device`);
    return d;
  }

  run(task: number, worker: number): void {
    const node = this.p.workers[worker]!.node;
    const g = this.engine.graph;
    const pl = this.payloads;
    const kid = pl.kernel.data[task]!;
    const args = pl.args.data.slice(pl.argStart.data[task]!, pl.argStart.data[task + 1]!);
    const handles: number[] = [];
    for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++)
      handles.push(g.accessHandle.data[a]!);
    const issued = this.now();
    const kernel = this.kernelOf ? this.kernelOf(task) : kid >= 0 ? this.kernels[kid] : undefined;
    if (this.p.nodes[node]!.kind === 'host') {
      const done = new Promise<string | undefined>((resolve) =>
        setImmediate(() => {
          if (kernel === undefined) return resolve(undefined);
          if (kernel.cpu === undefined) return resolve(`kernel ${kernel.name} has no CPU implementation`);
          try {
            kernel.cpu(
              handles.map((h) => this.hostReplica(h, node)),
              args,
            );
            resolve(undefined);
          } catch (e) {
            resolve((e as Error).message);
          }
        }),
      );
      this.chain(task, worker, issued, done);
      return;
    }
    const dev = this.device(node);
    if (dev.lost !== undefined) {
      this.chain(task, worker, issued, Promise.resolve(dev.lost));
      return;
    }
    if (kernel === undefined) {
      this.chain(task, worker, issued, Promise.resolve(undefined));
      return;
    }
    if (kernel.gpu === undefined) {
      this.chain(task, worker, issued, Promise.resolve(`kernel ${kernel.name} has no WGSL implementation`));
      return;
    }
    const d = dev.device;
    let buffers: GPUBuffer[];
    try {
      buffers = handles.map((h) => this.gpuReplica(h, node));
    } catch (e) {
      this.chain(task, worker, issued, Promise.resolve((e as Error).message));
      return;
    }
    d.pushErrorScope('out-of-memory');
    d.pushErrorScope('validation');
    const { params: pbuf, compileError } = encodeKernel(d, kernel.gpu, buffers, args);
    const validation = d.popErrorScope();
    const oom = d.popErrorScope();
    const name = dev.name;
    const done = Promise.all([compileError, validation, oom, d.queue.onSubmittedWorkDone()]).then(
      ([c, v, o]) => {
        pbuf.destroy();
        if (c !== undefined) return `WebGPU error compiling kernel ${kernel.name} on ${name}: ${c}`;
        const e = v ?? o;
        return e === null || e === undefined
          ? dev.lost
          : `WebGPU ${v ? 'validation' : 'out-of-memory'} error in kernel ${kernel.name} on ${name}: ${e.message.split('\n')[0]}`;
      },
      (e: unknown) => `WebGPU error in kernel ${kernel.name} on ${name}: ${(e as Error).message}`,
    );
    this.chain(task, worker, issued, done);
  }

  /** Reports `task` when `done` settles, after the worker's previous task. */
  private chain(task: number, worker: number, issued: number, done: Promise<string | undefined>): void {
    const absolute = task + this.base;
    const next = Promise.all([this.tail[worker]!, done]).then(([, error]) => {
      const end = this.now();
      const start = Math.max(issued, this.lastEnd[worker]!);
      this.lastEnd[worker] = end;
      this.push({ kind: 'task', task: absolute, worker, start, end, error });
    });
    this.tail[worker] = next;
  }

  copy(id: number): void {
    const e = this.engine;
    const h = e.trHandle.data[id]!;
    const src = e.trSrc.data[id]!;
    const dst = e.trDst.data[id]!;
    const start = this.now();
    const size = this.size(h);
    this.bytesCopied += size;
    const srcHost = this.p.nodes[src]!.kind === 'host';
    const dstHost = this.p.nodes[dst]!.kind === 'host';
    const done = (p: Promise<unknown>) =>
      this.held(src, dst, size, start, p).then(
        () => this.push({ kind: 'copy', id, start }),
        (err: unknown) => this.fail(`copy of ${e.graph.handleLabel(h)} failed: ${(err as Error).message}`),
      );
    if (src === this.diskNode || dst === this.diskNode) {
      // Out of core, between the disk and a GPU (host memory had no room to stage it).
      const disk = this.disk;
      if (disk === undefined) throw new Error('a copy to or from the disk needs the DiskIO option');
      if (src === this.diskNode) {
        this.copies.disk2d++;
        const bytes = new Uint8Array(aligned(size));
        void done(disk.read(h, bytes.subarray(0, size)).then(() => this.upload(h, dst, bytes)));
      } else {
        this.copies.d2disk++;
        void done(this.download(h, src).then((b) => disk.write(h, new Uint8Array(b, 0, size))));
      }
    } else if (srcHost && dstHost) {
      this.copies.h2h++;
      this.hostView(h, dst).set(this.hostView(h, src));
      void done(new Promise((r) => setImmediate(r)));
    } else if (srcHost) {
      this.copies.h2d++;
      void done(this.upload(h, dst, this.hostView(h, src)));
    } else if (dstHost) {
      this.copies.d2h++;
      const into = this.hostView(h, dst);
      void done(this.download(h, src).then((b) => into.set(new Uint8Array(b, 0, into.byteLength))));
    } else {
      this.copies.d2d++;
      void done(this.download(h, src).then((b) => this.upload(h, dst, new Uint8Array(b))));
    }
  }

  /** `p`, settled no sooner than the copy's emulated link would have carried it (throttle). */
  private held(
    src: number,
    dst: number,
    bytes: number,
    start: number,
    p: Promise<unknown>,
  ): Promise<unknown> {
    if (!this.throttle) return p;
    const route = this.p.routes[src * this.nn + dst];
    if (!route) return p;
    const latency = route.reduce((s, l) => s + this.p.links[l]!.latency, 0);
    const bandwidth = Math.min(...route.map((l) => this.p.links[l]!.bandwidth));
    const r = src * this.nn + dst;
    const from = Math.max(start, this.routeBusy[r]!);
    const end = from + latency + (bandwidth > 0 ? bytes / bandwidth : 0);
    this.routeBusy[r] = end;
    const hold = new Promise((resolve) => setTimeout(resolve, Math.max(0, (end - this.now()) * 1000)));
    return Promise.all([p, hold]);
  }

  /** Writes `view` into the replica of `h` on GPU node `node`; settles when it is there. */
  private upload(h: number, node: number, view: Uint8Array): Promise<void> {
    const dev = this.device(node);
    if (dev.lost !== undefined) return Promise.reject(new Error(dev.lost));
    return dev.upload(this.gpuReplica(h, node), view);
  }

  /** Reads the replica of `h` on GPU node `node` (after the work queued before it). */
  private async download(h: number, node: number): Promise<ArrayBuffer> {
    const dev = this.device(node);
    if (dev.lost !== undefined) throw new Error(dev.lost);
    const buf = this.gpuReplica(h, node);
    const staging = dev.stagingBuffer(buf.size);
    const enc = dev.device.createCommandEncoder();
    enc.copyBufferToBuffer(buf, 0, staging, 0, buf.size);
    dev.device.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const out = staging.getMappedRange().slice(0);
    staging.unmap();
    dev.releaseStaging(staging);
    return out;
  }

  urgent(): void {
    // Copies go to their device's queue at once, in the order issued.
  }

  free(handle: number, node: number): void {
    const k = handle * this.nn + node;
    const b = this.gpu.get(k);
    if (b !== undefined) {
      this.gpu.delete(k);
      this.deviceFrees++;
      this.devices.get(node)!.release(b);
    } else if (node !== this.p.homeNode) this.host.delete(k);
  }

  poll(sink: EventSink): number {
    if (this.fatal !== undefined) throw this.fatal;
    let n = 0;
    // Events queued while delivering (none are: they come from promises) wait for the next poll.
    const batch = this.events.splice(0);
    for (const e of batch) {
      if (e.kind === 'task') sink.taskEnded(e.task - this.base, e.worker, e.start, e.end, e.error);
      else sink.transferFinished(e.id, e.start);
      n++;
    }
    return n;
  }

  /** The engine recycled tasks [0, k): tasks in flight keep their ids, translated when reported. */
  rebase(k: number): void {
    this.base += k;
  }

  wait(): Promise<void> {
    if (this.events.length > 0 || this.fatal !== undefined) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }
}
