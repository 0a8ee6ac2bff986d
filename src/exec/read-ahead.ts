/**
 * Real runs out of core (issue 30): read-ahead from the disk into host memory. Whatever the
 * scheduler, a CPU worker's task gets its inputs when it enters the worker's pipeline (the
 * engine's requests, served in order as host memory allows), and a task the scheduler has not
 * handed out yet gets nothing: its reads start when it is popped. This wrapper reads ahead the
 * inputs of the ready tasks the scheduler still holds, the highest priority first (then the
 * order they became ready), into the part of host memory that the popped tasks do not take:
 * the data the pipelines' tasks access count first, then each ready task's data in that order
 * while the total stays within host memory. A read may evict, through the run's eviction
 * policy, only data that none of those tasks accesses (the dm* prefetch's rule, seed 001: a
 * prefetch must not keep pending tasks from running), so out of core, where host memory is
 * always full of cached data, the read-ahead replaces cached data no coming task needs with the
 * inputs of the next ones. The reads overlap the tasks running.
 *
 * It looks at most `window` ready tasks ahead (default: two per worker) and stops at the first
 * task that does not fit, or the first read refused, keeping the order. It runs at each push,
 * at each task's end and before each pop (so a task just popped has queued its own requests
 * first). Cost per call: O((pipelines' tasks + window) x accesses) plus the eviction policy's
 * victim search per read; a push is O(log R + R) into the ready list (R ready tasks held).
 * Real runs with a disk node use it when RuntimeOptions.readAhead is true (src/exec/session.ts); the scheduler's own
 * behaviour, prefetches included, is unchanged.
 */
import type { SchedContext, Scheduler } from '../core/policy.ts';
import { AccessMode } from '../core/types.ts';
import { diskNodeOf } from '../platform/disk.ts';

/** Counts of a read-ahead (tests and the run's report read them). */
export interface ReadAheadStats {
  /** Inputs requested ahead (each one a read from the disk into host memory). */
  requests: number;
  /** Bytes of those requests. */
  bytes: number;
}

/** Options of withReadAhead. */
export interface ReadAheadOptions {
  /** Ready tasks looked at ahead (default: two per worker). */
  window?: number;
  /** Filled with the counts as the run goes. */
  stats?: ReadAheadStats;
}

/**
 * `inner` with read-ahead from the disk into host memory when the platform has a disk node
 * (see the file's comment); the same scheduler otherwise. The result is a Proxy: every property
 * and method of `inner` is there, `push`, `pop`, `taskFinished`, `init`, `grow` and `rebase`
 * also feed the read-ahead.
 */
export function withReadAhead(inner: Scheduler, options: ReadAheadOptions = {}): Scheduler {
  const ra = new ReadAhead(inner, options);
  const overrides: Partial<Record<keyof Scheduler, unknown>> = {
    init: (ctx: SchedContext) => ra.init(ctx),
    push: (t: number) => ra.push(t),
    pop: (w: number) => ra.pop(w),
    taskFinished: (t: number, w: number) => ra.taskFinished(t, w),
    grow: (tasks: number, handles: number) => ra.grow(tasks, handles),
    ...(inner.rebase ? { rebase: (k: number, accesses: number) => ra.rebase(k, accesses) } : {}),
  };
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof Scheduler];
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** The read-ahead's state (see the file's comment). */
class ReadAhead {
  private readonly inner: Scheduler;
  private readonly windowOption: number | undefined;
  private readonly stats: ReadAheadStats;
  private ctx!: SchedContext;
  private active = false;
  private host = 0;
  private window = 0;
  /** Ready tasks the scheduler holds, highest priority first, then in the order they came. */
  private ready: number[] = [];
  /** 1 while a task is in `ready`. */
  private held = new Uint8Array(0);
  private order = new Float64Array(0);
  private pushes = 0;
  /** Data the pipelines' tasks and the window's tasks access (seen[h] === stamp). */
  private seen = new Uint32Array(0);
  private stamp = 0;
  private readonly allow = (h: number): boolean => this.seen[h] !== this.stamp;

  constructor(inner: Scheduler, options: ReadAheadOptions) {
    this.inner = inner;
    this.windowOption = options.window;
    this.stats = options.stats ?? { requests: 0, bytes: 0 };
  }

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    const p = ctx.platform;
    this.active = diskNodeOf(p) >= 0;
    this.host = p.homeNode;
    this.window = this.windowOption ?? 2 * p.workers.length;
    this.ready = [];
    this.held = new Uint8Array(ctx.taskCapacity);
    this.order = new Float64Array(ctx.taskCapacity);
    this.pushes = 0;
    this.seen = new Uint32Array(ctx.handleCapacity);
    this.stamp = 0;
    this.inner.init(ctx);
  }

  grow(tasks: number, handles: number): void {
    if (this.held.length < tasks) {
      const held = new Uint8Array(tasks);
      held.set(this.held);
      this.held = held;
      const order = new Float64Array(tasks);
      order.set(this.order);
      this.order = order;
    }
    if (this.seen.length < handles) {
      const seen = new Uint32Array(handles);
      seen.set(this.seen);
      this.seen = seen;
    }
    this.inner.grow?.(tasks, handles);
  }

  rebase(k: number, accesses: number): void {
    this.held.copyWithin(0, k);
    this.held.fill(0, this.held.length - k);
    this.order.copyWithin(0, k);
    this.ready = this.ready.filter((t) => t >= k).map((t) => t - k);
    this.inner.rebase!(k, accesses);
  }

  push(t: number): void {
    if (this.active) {
      if (t >= this.held.length) this.grow(this.ctx.taskCapacity, this.ctx.handleCapacity);
      this.insert(t);
    }
    this.inner.push(t);
    if (this.active) this.fill();
  }

  pop(w: number): number {
    if (!this.active) return this.inner.pop(w);
    this.fill();
    const t = this.inner.pop(w);
    if (t >= 0) this.held[t] = 0;
    return t;
  }

  taskFinished(t: number, w: number): void {
    this.inner.taskFinished?.(t, w);
    if (this.active) this.fill();
  }

  /** Inserts ready task t by (priority descending, arrival). O(log R + R). */
  private insert(t: number): void {
    const pr = this.ctx.graph.taskPriority.data;
    this.held[t] = 1;
    this.order[t] = this.pushes++;
    const r = this.ready;
    let lo = 0;
    let hi = r.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = r[mid]!;
      if (pr[m]! > pr[t]! || (pr[m] === pr[t] && this.order[m]! < this.order[t]!)) lo = mid + 1;
      else hi = mid;
    }
    r.splice(lo, 0, t);
  }

  /** Reads ahead the inputs of the first `window` ready tasks that fit beside the popped ones. */
  private fill(): void {
    const ctx = this.ctx;
    const g = ctx.graph;
    const host = this.host;
    // Drop the tasks handed out since.
    if (this.ready.some((t) => this.held[t] === 0)) this.ready = this.ready.filter((t) => this.held[t] === 1);
    if (this.ready.length === 0) return;
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    const capacity = ctx.memoryCapacity(host);
    let bytes = 0;
    const workers = ctx.platform.workers;
    for (let w = 0; w < workers.length; w++)
      if (workers[w]!.node === host) for (const t of ctx.pipeline(w)) bytes += this.mark(t);
    const size = g.handleSize.data;
    const n = Math.min(this.window, this.ready.length);
    for (let i = 0; i < n; i++) {
      const t = this.ready[i]!;
      bytes += this.mark(t);
      if (bytes > capacity) return;
      for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
        if (!(g.accessMode.data[a]! & AccessMode.R)) continue;
        const h = g.accessHandle.data[a]!;
        if (ctx.isValidOrLoading(h, host)) continue;
        if (!ctx.prefetch(h, host, true, this.allow)) return;
        this.stats.requests++;
        this.stats.bytes += size[h]!;
      }
    }
  }

  /** Marks task t's data as needed; returns the bytes of those not marked before. O(accesses). */
  private mark(t: number): number {
    const g = this.ctx.graph;
    let bytes = 0;
    for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
      const h = g.accessHandle.data[a]!;
      if (this.seen[h] === this.stamp) continue;
      this.seen[h] = this.stamp;
      bytes += g.handleSize.data[h]!;
    }
    return bytes;
  }
}
