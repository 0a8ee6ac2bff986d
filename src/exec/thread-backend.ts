/**
 * The worker-thread backend (DESIGN.md, src/exec/): the engine's commands executed on worker
 * threads and shared memory, in wall-clock time. RUN becomes a record in the worker's ring
 * (its buffers, its kernel and its arguments); TRANSFER a copy between replica buffers,
 * optionally held back to the route's bandwidth and latency to emulate a device link; FREE
 * returns a device replica to its pool. Completions come back through each worker's
 * completion ring with the times the worker measured.
 *
 * The threads serve their rings for the backend's whole life (one run loop per thread, across
 * the application's waits); new kernels are loaded by sending a thread back to its event loop
 * with a YIELD record. The main thread polls for a short while when nothing is done, then
 * waits on a shared bell that workers ring.
 *
 * Failures: a kernel that throws (or returns a promise, or failed to load) fails its task; a
 * thread that exits fails the task it was running and is replaced, and the new thread goes on
 * with the records after it. The engine cancels the dependents of a failed task.
 *
 * Out of core (issue 30): copies to and from the platform's disk node are reads and writes of
 * the store's DiskFiles, asynchronous (libuv's thread pool); each completes when its I/O does,
 * and the main thread waits through the event loop while any is in flight. A failed read or
 * write stops the run with its one-line error (LOCUS_DISK_FULL, LOCUS_DISK_UNUSABLE); the copy
 * never completes, so the engine frees no replica it was writing out.
 *
 * Time limits: a task with one (TaskPayloads.timeLimit) gets a copy of the buffers it writes
 * when it is queued; each thread publishes which kernel it runs since when, and a kernel
 * that runs past its task's limit has its thread terminated (a spinning kernel cannot be
 * interrupted otherwise). The task then fails like one whose thread died, with a message
 * naming the limit; the buffers it wrote get their copies back, so its writes are undone.
 *
 * Recycling (Engine.compact): the threads see the application's task ids (the engine's plus
 * `base`, the tasks the graph dropped), so records already in a ring stay valid when the
 * engine's ids shift; ids are translated back as completions are read.
 */
import { availableParallelism } from 'node:os';
import type { Engine } from '../core/engine.ts';
import type { FloatList, IntList } from '../core/growable.ts';
import type { Platform } from '../core/platform.ts';
import { AccessMode, LocusError } from '../core/types.ts';
import type { Backend, EventSink } from '../drive/backend.ts';
import { formatDuration } from '../platform/units.ts';
import { type BufferStore, EMPTY } from './buffers.ts';
import type { WorkerPool } from './pool.ts';
import {
  ACCESS_MODE_SHIFT,
  BELL_COUNT,
  BELL_SLEEP,
  BELL_WORDS,
  CHECKED_KERNEL,
  COMPLETION_WORDS,
  CURRENT_START,
  CURRENT_TASK,
  CURRENT_WORDS,
  type KernelRef,
  RECORD_HEADER,
  STOP_TASK,
  Status,
  WATCHED_KERNEL,
  YIELD_TASK,
} from './protocol.ts';
import { Ring } from './ring.ts';

/** Per-task payloads the application keeps (indexed by task id): kernel and arguments. */
export interface TaskPayloads {
  /** Kernel id of each task, -1 for a task with nothing to run. */
  readonly kernel: IntList;
  /** Start offset of each task's arguments in `args` (task count + 1 entries). */
  readonly argStart: IntList;
  /** Every task's numeric arguments. */
  readonly args: FloatList;
  /** Each task's time limit in seconds (0: none); absent: no task has one. */
  readonly timeLimit?: FloatList;
}

/** Options of the thread backend. */
export interface ThreadBackendOptions {
  platform: Platform;
  /** One thread per platform worker, in the same order. */
  pool: WorkerPool;
  /** Replica buffers. */
  store: BufferStore;
  /** Kernels and arguments of the tasks. */
  payloads: TaskPayloads;
  /** Hold each copy back to its route's latency + bytes / bandwidth (emulated device links). */
  throttle?: boolean;
  /**
   * Check every kernel's accesses (RuntimeOptions.checkAccesses): the worker poisons its W data
   * before the kernel and verifies that its R data did not change after it.
   */
  checkAccesses?: boolean;
  /**
   * The platform workers this backend runs tasks for, thread i running workers[i] (default:
   * every worker, in order). A composite backend (src/drive/hybrid-backend.ts) gives the CPU
   * workers here and the GPUs to another backend.
   */
  workers?: readonly number[];
  /**
   * Whether wait() may block the main thread on the bell for a moment (default true: the
   * fastest wake-up). A composite whose other part completes through promises needs the event
   * loop free: false.
   */
  blocking?: boolean;
}

/** Int32 words of a worker's task ring: room for a full pipeline of the largest records. */
export const TASK_RING_WORDS = 1 << 16;
/** Largest task record (header, buffers, 2 words per argument) a ring takes. */
export const MAX_RECORD_WORDS = TASK_RING_WORDS / 8;

/** Atomics.waitAsync (Node 16+; TypeScript's lib for our target lacks its type). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      a: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: boolean; value: Promise<string> | string };
  }
).waitAsync;

/** How long the main thread polls before waiting on the bell (ms). */
const SPIN_MS = 0.05;
/**
 * How long the main thread blocks on the bell (Atomics.wait) before it waits through the event
 * loop (ms). A blocked thread wakes in microseconds when a worker rings; Atomics.waitAsync's
 * wake goes through the event loop, about 100 us on a loaded machine, which a worker whose
 * next task depends on the completion spends idle (issue 22: 2-core Cholesky).
 */
const BLOCK_MS = 2;
/** Bound of the spin score (waits of either verdict it takes to change the main thread's mind). */
const SPIN_SCORE_MAX = 8;
/** A held-back copy due within this many ms is waited for by spinning, not by a timer. */
const TIMER_SPIN_MS = 2;

/** Worker threads with emulated device memories. */
export class ThreadBackend implements Backend {
  readonly mode = 'real' as const;
  private engine!: Engine;
  private readonly p: Platform;
  private readonly pool: WorkerPool;
  private readonly store: BufferStore;
  private readonly payloads: TaskPayloads;
  private readonly throttle: boolean;
  private readonly checkAccesses: boolean;
  private readonly rings: Ring[];
  private readonly done: Ring[];
  private readonly bell: Int32Array;
  private readonly t0: number;
  private readonly epoch0: number;
  private readonly record: number[] = [];
  private readonly f64 = new Float64Array(1);
  private readonly i32 = new Int32Array(this.f64.buffer);
  // Copies held back to their route's speed: completion times, in order.
  private readonly routeBusy: Float64Array;
  private readonly routeLatency: Float64Array;
  private readonly routeBandwidth: Float64Array;
  private readonly timerAt: number[] = [];
  private readonly timerId: number[] = [];
  private readonly timerStart: number[] = [];
  // Copies done at once, and when each was made.
  private readonly finishedCopies: number[] = [];
  private readonly finishedStart: number[] = [];
  private readonly dead: { w: number; code: number }[] = [];
  // Time limits: what each thread runs since when, the copies of what limited tasks write,
  // and the threads being terminated for running past a limit (with the task and message).
  private readonly current: Int32Array[];
  private limited = false;
  private nextDeadline = Number.POSITIVE_INFINITY;
  private readonly snapshots = new Map<number, { id: number; bytes: Uint8Array }[]>();
  private readonly killing: ({ task: number; startS: number; message: string } | undefined)[] = [];
  private replacing: Promise<void> | undefined;
  private running = false;
  private readonly stopped: (() => void)[] = [];
  private seen = 0;
  /** The platform worker of each thread, and the thread of each worker (-1: not this backend's). */
  private readonly workerOf: readonly number[];
  private readonly threadOf: Int32Array;
  private readonly blocking: boolean;
  /** A core is free for the main thread beside the workers: it may always spin. */
  private readonly spareCore: boolean;
  /** Recent waits' verdict on spinning: > 0 when they were shorter than the spin. */
  private spinScore = 0;
  /** Out of core: the disk node (-1: none), disk copies in flight, done, and the first error. */
  private readonly diskNode: number;
  private ioPending = 0;
  private readonly ioDone: number[] = [];
  private readonly ioStart: number[] = [];
  private ioError: unknown;
  /** Tasks the graph dropped (graph.retired): the threads' task id is the engine's plus this. */
  private base = 0;

  constructor(o: ThreadBackendOptions) {
    this.p = o.platform;
    this.pool = o.pool;
    this.store = o.store;
    this.payloads = o.payloads;
    this.throttle = o.throttle ?? false;
    this.checkAccesses = o.checkAccesses ?? false;
    this.blocking = o.blocking ?? true;
    this.spareCore = availableParallelism() > (o.workers?.length ?? this.p.workers.length);
    this.workerOf = o.workers ?? this.p.workers.map((_, w) => w);
    this.diskNode = this.p.nodes.findIndex((n) => n.kind === 'disk');
    if (this.diskNode >= 0 && this.store.disk === undefined)
      throw new Error('a platform with a disk node needs a buffer store with its DiskFiles');
    this.threadOf = new Int32Array(this.p.workers.length).fill(-1);
    this.workerOf.forEach((w, t) => {
      this.threadOf[w] = t;
    });
    const nw = this.workerOf.length;
    if (this.pool.threads.length !== nw) {
      throw new Error(`the pool has ${this.pool.threads.length} threads for ${nw} workers`);
    }
    this.rings = this.workerOf.map(() => Ring.create(TASK_RING_WORDS));
    this.done = this.workerOf.map(() => Ring.create(1 << 12));
    this.bell = new Int32Array(new SharedArrayBuffer(4 * BELL_WORDS));
    this.current = this.workerOf.map(() => new Int32Array(new SharedArrayBuffer(CURRENT_WORDS * 4)).fill(-1));
    this.t0 = performance.now();
    this.epoch0 = performance.timeOrigin + this.t0;
    const nn = this.p.nodes.length;
    this.routeBusy = new Float64Array(nn * nn);
    this.routeLatency = new Float64Array(nn * nn);
    this.routeBandwidth = new Float64Array(nn * nn);
    for (let r = 0; r < this.p.routes.length; r++) {
      const route = this.p.routes[r];
      if (!route) continue;
      this.routeLatency[r] = route.reduce((s, l) => s + this.p.links[l]!.latency, 0);
      this.routeBandwidth[r] = Math.min(...route.map((l) => this.p.links[l]!.bandwidth));
    }
  }

  /** Gives the backend the engine whose transfer tables its copies read. */
  attach(engine: Engine): void {
    this.engine = engine;
    this.base = engine.graph.retired;
  }

  /** Starts every thread's run loop over its rings (idempotent). */
  start(): void {
    if (this.running) return;
    this.running = true;
    for (const t of this.pool.threads) {
      t.onExit = (code) => {
        this.dead.push({ w: t.index, code });
        this.ring();
      };
      this.startThread(t.index);
    }
  }

  private startThread(w: number): void {
    const t = this.pool.threads[w]!;
    t.onStopped = () => this.stopped[w]?.();
    t.post({
      type: 'run',
      tasks: this.rings[w]!.buffer,
      done: this.done[w]!.buffer,
      bell: this.bell.buffer as SharedArrayBuffer,
      current: this.current[w]!.buffer as SharedArrayBuffer,
    });
  }

  /** Rings the bell from the main thread (a dead thread, an abort): wakes a waiting poll. */
  ring(): void {
    Atomics.add(this.bell, BELL_COUNT, 1);
    Atomics.notify(this.bell, BELL_COUNT);
  }

  /**
   * Imports kernels `refs[from..]` into every thread; running threads go back to their event
   * loop for it and then resume. Resolves with the load errors by kernel id.
   */
  loadKernels(refs: readonly KernelRef[], from: number): Promise<Map<number, string>> {
    return this.pool.load(refs, from, (t) => {
      if (this.running && t.exitCode === undefined) {
        if (!this.rings[t.index]!.push([YIELD_TASK])) throw new Error(`worker ${t.index}'s ring is full`);
      }
    });
  }

  /** Ends the threads' run loops (they stay alive, idle); resolves when all have stopped. */
  async stop(): Promise<void> {
    if (!this.running) return;
    // A thread being replaced starts its loop once loaded: wait for it, then stop them all.
    while (this.replacing) await this.replacing;
    this.running = false;
    const all = this.pool.threads.map(
      (t) =>
        new Promise<void>((resolve) => {
          if (t.exitCode !== undefined) {
            resolve();
            return;
          }
          this.stopped[t.index] = resolve;
          this.rings[t.index]!.push([STOP_TASK]);
        }),
    );
    await Promise.all(all);
    for (const t of this.pool.threads) {
      t.onExit = undefined;
      t.onStopped = undefined;
    }
  }

  now(): number {
    return (performance.now() - this.t0) / 1000;
  }

  run(task: number, worker: number): void {
    const g = this.engine.graph;
    const node = this.p.workers[worker]!.node;
    const th = this.threadOf[worker]!;
    if (th < 0) throw new Error(`worker ${this.p.workers[worker]!.name} has no thread in this backend`);
    const thread = this.pool.threads[th]!;
    const store = this.store;
    const pl = this.payloads;
    const a0 = g.accessStart.data[task]!;
    const a1 = g.accessStart.data[task + 1]!;
    const s0 = pl.argStart.data[task]!;
    const s1 = pl.argStart.data[task + 1]!;
    const rec = this.record;
    rec.length = 0;
    if (store.dropped.length > 0) this.dropBuffers();
    const kernel = pl.kernel.data[task]!;
    const limited = pl.timeLimit !== undefined && pl.timeLimit.data[task]! > 0 && kernel >= 0;
    const checked = this.checkAccesses && kernel >= 0;
    rec.push(
      task + this.base,
      (limited ? kernel + WATCHED_KERNEL : kernel) + (checked ? CHECKED_KERNEL : 0),
      a1 - a0,
      s1 - s0,
    );
    for (let a = a0; a < a1; a++) {
      const id = store.replica(g.accessHandle.data[a]!, node);
      thread.announce(id, store.buffers[id]!, store.dtypes[id]!);
      if (!checked) rec.push(id);
      else if (id >= 1 << ACCESS_MODE_SHIFT)
        throw new Error(`buffer ${id}: too many buffers to check accesses`);
      else rec.push(id + (g.accessMode.data[a]! << ACCESS_MODE_SHIFT));
    }
    const args = pl.args.data;
    for (let i = s0; i < s1; i++) {
      this.f64[0] = args[i]!;
      rec.push(this.i32[0]!, this.i32[1]!);
    }
    // Before the push: the thread may start the task at once.
    if (limited) this.snapshot(task, node);
    if (!this.rings[th]!.push(rec)) throw new Error(`worker ${worker}'s ring is full`);
  }

  /**
   * Copies the buffers a limited task writes on `node` (their content is final: the tasks
   * that read or write them before it have ended), to put back if it runs past its limit.
   */
  private snapshot(task: number, node: number): void {
    this.limited = true;
    const g = this.engine.graph;
    const saved: { id: number; bytes: Uint8Array }[] = [];
    for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++) {
      if ((g.accessMode.data[a]! & AccessMode.W) === 0) continue;
      const id = this.store.replica(g.accessHandle.data[a]!, node);
      saved.push({ id, bytes: new Uint8Array(this.store.buffers[id]!).slice() });
    }
    this.snapshots.set(task + this.base, saved);
  }

  /** Terminates the threads whose kernel runs past its task's time limit; notes the next deadline. */
  private checkLimits(): void {
    const limits = this.payloads.timeLimit!.data;
    const now = this.now();
    let next = Number.POSITIVE_INFINITY;
    for (let w = 0; w < this.current.length; w++) {
      if (this.killing[w] !== undefined) continue;
      const cur = this.current[w]!;
      const task = Atomics.load(cur, CURRENT_TASK);
      if (task < 0 || !(limits[task - this.base]! > 0)) continue;
      this.i32[0] = Atomics.load(cur, CURRENT_START);
      this.i32[1] = Atomics.load(cur, CURRENT_START + 1);
      // The words belong to `task` only if it is still the one running.
      if (Atomics.load(cur, CURRENT_TASK) !== task) continue;
      const limit = limits[task - this.base]!;
      const deadline = (this.f64[0]! - this.epoch0) / 1000 + limit;
      if (now <= deadline) {
        if (deadline < next) next = deadline;
        continue;
      }
      const name = this.p.workers[this.workerOf[w]!]!.name;
      this.killing[w] = {
        task,
        startS: deadline - limit,
        message: `it ran past its time limit of ${formatDuration(limit)}: its worker ${name} was terminated and replaced, and its writes were undone (raise the limit: timeLimit of its codelet or submit(), taskTimeLimit of the Runtime, --task-time-limit of locus run)`,
      };
      void this.pool.threads[w]!.thread.terminate();
    }
    this.nextDeadline = next;
  }

  /** Out of core: tells every thread to let go of the host buffers the store gave up. */
  private dropBuffers(): void {
    for (const id of this.store.dropped.splice(0))
      for (const t of this.pool.threads) t.announce(id, EMPTY, 3);
  }

  copy(id: number): void {
    const e = this.engine;
    const src = e.trSrc.data[id]!;
    const dst = e.trDst.data[id]!;
    if (src === this.diskNode || dst === this.diskNode) {
      this.diskCopy(id, e.trHandle.data[id]!, src, dst);
      return;
    }
    const bytes = this.store.copy(e.trHandle.data[id]!, src, dst);
    if (!this.throttle) {
      this.finishedCopies.push(id);
      this.finishedStart.push(this.now());
      return;
    }
    const r = src * this.p.nodes.length + dst;
    const start = Math.max(this.now(), this.routeBusy[r]!);
    const end =
      start + this.routeLatency[r]! + (this.routeBandwidth[r]! > 0 ? bytes / this.routeBandwidth[r]! : 0);
    this.routeBusy[r] = end;
    const at = this.timerAt;
    const ids = this.timerId;
    const starts = this.timerStart;
    let k = at.length;
    at.push(end);
    ids.push(id);
    starts.push(start);
    while (k > 0 && at[k - 1]! > end) {
      at[k] = at[k - 1]!;
      ids[k] = ids[k - 1]!;
      starts[k] = starts[k - 1]!;
      k--;
    }
    at[k] = end;
    ids[k] = id;
    starts[k] = start;
  }

  /** Out of core: copy `id` of handle h between the disk and `src` or `dst`, asynchronously. */
  private diskCopy(id: number, h: number, src: number, dst: number): void {
    const store = this.store;
    const disk = store.disk!;
    const start = this.now();
    const reading = src === this.diskNode;
    const bytes = store.byteView(store.replica(h, reading ? dst : src));
    this.ioPending++;
    (reading ? disk.read(h, bytes) : disk.write(h, bytes)).then(
      () => {
        this.ioPending--;
        this.ioDone.push(id);
        this.ioStart.push(start);
        this.ring();
      },
      (err: unknown) => {
        this.ioPending--;
        this.ioError ??= err;
        this.ring();
      },
    );
  }

  urgent(): void {
    // Copies are not prioritised in real mode: they are done at once (or on their link's time).
  }

  free(handle: number, node: number): void {
    this.store.release(handle, node);
  }

  poll(sink: EventSink): number {
    let delivered = 0;
    this.seen = Atomics.load(this.bell, BELL_COUNT);
    if (this.limited) this.checkLimits();
    // Copies done at once complete first (they were issued by the previous event).
    delivered += this.deliverCopies(sink);
    if (this.ioError !== undefined) throw this.ioError;
    if (this.ioDone.length > 0) delivered += this.deliverDiskCopies(sink);
    while (this.dead.length > 0) delivered += this.handleDead(this.dead.shift()!, sink);
    const nw = this.rings.length;
    for (let w = 0; w < nw; w++) {
      const ring = this.done[w]!;
      while (ring.available() >= COMPLETION_WORDS) {
        const task = ring.peek(0);
        const status = ring.peek(1);
        const start = this.timeAt(ring, 2);
        const end = this.timeAt(ring, 4);
        ring.advance(COMPLETION_WORDS);
        if (this.limited) this.snapshots.delete(task);
        const error = status === Status.FAILED ? this.pool.threads[w]!.takeFailure(task) : undefined;
        sink.taskEnded(task - this.base, this.workerOf[w]!, start, end, error);
        delivered++;
        delivered += this.deliverCopies(sink);
      }
    }
    if (this.timerAt.length > 0) {
      const t = this.now();
      while (this.timerAt.length > 0 && this.timerAt[0]! <= t) {
        this.timerAt.shift();
        sink.transferFinished(this.timerId.shift()!, this.timerStart.shift()!);
        delivered++;
        delivered += this.deliverCopies(sink);
      }
    }
    return delivered;
  }

  /** Out of core: completes the disk copies whose I/O is done. */
  private deliverDiskCopies(sink: EventSink): number {
    let n = 0;
    for (let i = 0; i < this.ioDone.length; i++) {
      sink.transferFinished(this.ioDone[i]!, this.ioStart[i]!);
      n++;
      n += this.deliverCopies(sink);
    }
    this.ioDone.length = 0;
    this.ioStart.length = 0;
    return n;
  }

  /** Completes the copies done at once (issued by the events just delivered). */
  private deliverCopies(sink: EventSink): number {
    // A completion may issue more copies done at once: they are appended and delivered too.
    let i = 0;
    for (; i < this.finishedCopies.length; i++)
      sink.transferFinished(this.finishedCopies[i]!, this.finishedStart[i]!);
    this.finishedCopies.length = 0;
    this.finishedStart.length = 0;
    return i;
  }

  /** Reads a completion's time (ms since the epoch, as two words) as seconds on our clock. */
  private timeAt(ring: Ring, offset: number): number {
    this.i32[0] = ring.peek(offset);
    this.i32[1] = ring.peek(offset + 1);
    return (this.f64[0]! - this.epoch0) / 1000;
  }

  /** A thread died: the task at the head of its ring fails; a new thread takes the ring over. */
  private handleDead(d: { w: number; code: number }, sink: EventSink): number {
    let delivered = 0;
    const ring = this.rings[d.w]!;
    while (ring.available() > 0 && ring.peek(0) === YIELD_TASK) ring.advance(1);
    const killed = this.killing[d.w];
    this.killing[d.w] = undefined;
    Atomics.store(this.current[d.w]!, CURRENT_TASK, -1);
    if (ring.available() > 0 && ring.peek(0) !== STOP_TASK) {
      const task = ring.peek(0);
      ring.advance(RECORD_HEADER + ring.peek(2) + 2 * ring.peek(3));
      // The thread is gone: nothing writes the task's buffers any more; undo its writes.
      const saved = this.snapshots.get(task);
      if (saved !== undefined) {
        for (const { id, bytes } of saved) new Uint8Array(this.store.buffers[id]!).set(bytes);
        this.snapshots.delete(task);
      }
      const t = this.now();
      const name = this.p.workers[this.workerOf[d.w]!]!.name;
      const message =
        killed === undefined
          ? `worker ${name} exited with code ${d.code} while running it`
          : killed.task === task
            ? killed.message
            : `worker ${name} was terminated while running it: the task before it, ${this.engine.graph.taskLabel(killed.task - this.base)}, ran past its time limit`;
      sink.taskEnded(
        task - this.base,
        this.workerOf[d.w]!,
        killed?.task === task ? killed.startS : t,
        t,
        message,
      );
      delivered++;
    }
    const previous = this.replacing ?? Promise.resolve();
    this.replacing = previous.then(async () => {
      await this.pool.replace(d.w);
      const t = this.pool.threads[d.w]!;
      t.onExit = (code) => {
        this.dead.push({ w: d.w, code });
        this.ring();
      };
      for (let id = 0; id < this.store.buffers.length; id++)
        t.announce(id, this.store.buffers[id]!, this.store.dtypes[id]!);
      if (this.running) this.startThread(d.w);
    });
    const mine = this.replacing;
    void mine.finally(() => {
      if (this.replacing === mine) this.replacing = undefined;
    });
    return delivered;
  }

  wait(): Promise<void> {
    return this.waitBell();
  }

  /** The engine recycled tasks [0, k): records in flight keep their ids, translated on return. */
  rebase(k: number): void {
    this.base += k;
  }

  private waitBell(): Promise<void> {
    const bell = this.bell;
    const seen = this.seen;
    // Spin a little; up to a held-back copy's completion when it is due within a timer's
    // resolution (a wait's timeout is a libuv timer: about 1 ms), so throttled copies last
    // what the link says.
    const next = this.timerAt.length > 0 ? this.timerAt[0]! * 1000 + this.t0 : Number.POSITIVE_INFINITY;
    // Spinning steals a core from the workers when they have one each (issue 22): then it
    // spins only while recent waits were shorter than the spin (tasks of microseconds), and
    // blocks while they were longer (tasks of milliseconds, which the core is for).
    const spin = this.spareCore || this.spinScore > 0 ? SPIN_MS : 0;
    const spinFrom = performance.now();
    const until = next - spinFrom < TIMER_SPIN_MS ? next : spinFrom + spin;
    while (performance.now() < until) {
      if (Atomics.load(bell, BELL_COUNT) !== seen) {
        if (this.spinScore < SPIN_SCORE_MAX) this.spinScore++;
        return RESOLVED;
      }
    }
    if (this.finishedCopies.length > 0 || this.dead.length > 0 || this.ioDone.length > 0) return RESOLVED;
    let wait = this.timerAt.length > 0 ? Math.max(0, (this.timerAt[0]! - this.now()) * 1000) : 50;
    // Wake up for the next time limit too (a spinning kernel rings no bell).
    if (this.limited && this.nextDeadline !== Number.POSITIVE_INFINITY)
      wait = Math.min(wait, Math.max(0, (this.nextDeadline - this.now()) * 1000) + 1);
    // Disk I/O completes through the event loop: never block it while some is in flight.
    if (!this.blocking || this.ioPending > 0) return this.waitBellAsync(seen, wait);
    Atomics.store(bell, BELL_SLEEP, 1);
    // Block first: a worker's completion wakes this thread at once. The driver yields to the
    // event loop every few ms of activity, so other events are delayed by BLOCK_MS at most.
    const woke = Atomics.wait(bell, BELL_COUNT, seen, Math.min(wait, BLOCK_MS)) !== 'timed-out';
    // A wait a spin would have covered counts for spinning, a longer one against it.
    if (woke && performance.now() - spinFrom < SPIN_MS) {
      if (this.spinScore < SPIN_SCORE_MAX) this.spinScore++;
    } else if (this.spinScore > -SPIN_SCORE_MAX) this.spinScore--;
    if (woke || wait <= BLOCK_MS) {
      Atomics.store(bell, BELL_SLEEP, 0);
      return RESOLVED;
    }
    return this.waitBellAsync(seen, wait - BLOCK_MS);
  }

  /** Waits through the event loop for the bell to ring, or `wait` ms. */
  private async waitBellAsync(seen: number, wait: number): Promise<void> {
    const bell = this.bell;
    Atomics.store(bell, BELL_SLEEP, 1);
    if (Atomics.load(bell, BELL_COUNT) === seen) {
      const r = waitAsync(bell, BELL_COUNT, seen, wait);
      if (r.async) await r.value;
    }
    // Without blocking, waits may overlap (a composite races them): the workers keep ringing.
    if (this.blocking) Atomics.store(bell, BELL_SLEEP, 0);
  }
}

/** The promise of a wait that ended without waiting. */
const RESOLVED: Promise<void> = Promise.resolve();

/** Checks that a task's record fits a ring; throws a one-line LocusError otherwise. */
export function checkRecordSize(accesses: number, args: number, label: string): void {
  if (RECORD_HEADER + accesses + 2 * args > MAX_RECORD_WORDS) {
    throw new LocusError(
      'LOCUS_GRAPH_INVALID',
      `task ${label} has ${accesses} data and ${args} arguments: at most ${MAX_RECORD_WORDS - RECORD_HEADER} words (one per datum, two per argument) fit a worker's queue; pass large parameters as data`,
    );
  }
}
