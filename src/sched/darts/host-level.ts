/**
 * DARTS's host level out of core (issue 30): when a disk node holds the data below host memory,
 * host memory is to the CPU workers what a GPU's memory is to that GPU, and DARTS plans it the
 * same way. Seed 000's Algorithm 2 runs for the host as for one more GPU k: all CPU workers
 * share the host's plannedTasks (they share its memory), and when a CPU worker asks for work
 * and that list is empty, the datum D of dataNotInMem_host whose loading from the disk frees
 * the most pool tasks (all their inputs in host memory but D) is chosen, with section 3.2's
 * ties (most unprocessed readers, then the highest priority, then the lowest id: no random
 * draw, so the GPUs' decisions see the same generator as without a disk), and all of those
 * tasks are planned on the host. Tasks whose inputs are all in host memory are planned first;
 * when no datum frees a task, the CPU worker takes DARTS's own CPU choice (the highest-priority
 * pool task it can run) and its inputs leave dataNotInMem_host (Algorithm 2 line 14).
 *
 * Algorithm 3 (LUF) at the host level comes with it: the LUF eviction of `darts+luf` reads the
 * host's planned uses (plannedUsesOf of a CPU worker) and unplans the host's tasks that read its
 * victim, so host memory evicts to the disk what the CPU workers' pipelines and the host's plan
 * use least. hfp's Belady eviction reads the same plan through plannedTasks.
 *
 * Prefetch: the datum D chosen by a decision is requested from the disk into host memory at
 * once (evicting only data no task planned on the host reads; the engine pins what popped
 * tasks use), and a request refused for want of room waits and is retried when a CPU task
 * ends or a host replica is dropped. With `ahead`, a CPU pop that leaves fewer planned tasks
 * than CPU workers makes the next decision at once, so that the next datum's disk read
 * overlaps the tasks still running (CPU workers have no lookahead buffer of their own).
 *
 * On a machine with GPUs, one decision plans at most one task per CPU worker: the CPUs, far
 * slower, must not empty the pool the GPUs plan from.
 *
 * State, kept incrementally as DARTS keeps it per GPU (see darts.ts): missing(T) = inputs of
 * pool task T not in host memory, free(D) = pool tasks whose only missing input is D, data by
 * free count in buckets. A change of D's presence costs O(readers of D x inputs); a task
 * entering or leaving the pool O(inputs); a decision O(candidates in the best bucket) plus
 * O(readers of D_opt) to plan. Everything is gated on a disk node: without one DARTS never
 * makes this object and its runs are unchanged.
 */
import { growI32, growU8 } from '../../core/growable.ts';
import type { SchedContext } from '../../core/policy.ts';
import { AccessMode } from '../../core/types.ts';
import { diskNodeOf } from '../../platform/disk.ts';
import { DataBuckets } from './buckets.ts';
import { IndexedSet } from './indexed-set.ts';
import type { TaskData } from './task-data.ts';

/** What the host level needs from DARTS: its reader lists and its shared pool. */
export interface HostPool {
  /** DARTS's inputs per task and readers per datum. */
  data(): TaskData;
  /** True when task t is in the shared pool (ready, not planned, not handed out). */
  inPool(t: number): boolean;
  /** Takes t out of the pool (the host plans it or hands it out). */
  take(t: number): void;
  /** Puts t back into the pool (LUF unplanned it). */
  giveBack(t: number): void;
  /** The tasks of the pool, in DARTS's pool order. */
  poolTasks(): Iterable<number>;
}

/** Options of the host level. */
export interface HostLevelOptions {
  /** Make the next decision when a pop leaves fewer planned tasks than CPU workers. */
  readonly ahead?: boolean;
}

/** DARTS's plan for host memory out of core (see the file's comment). */
export class HostLevel {
  private readonly ctx: SchedContext;
  private readonly pool: HostPool;
  private readonly ahead: boolean;
  /** The host memory node. */
  readonly node: number;
  private readonly isCpu: Uint8Array;
  private readonly cpus: number;
  /** One task per CPU worker per decision (GPUs beside), else no cap. */
  private readonly cap: number;

  private loaded: Uint8Array<ArrayBuffer>;
  private missing: Int32Array<ArrayBuffer>;
  private freeCount: Int32Array<ArrayBuffer>;
  private unprocessed: Int32Array<ArrayBuffer>;
  private plannedUses: Int32Array<ArrayBuffer>;
  private plannedOn: Uint8Array<ArrayBuffer>;
  private readonly freeTasks: IndexedSet;
  private readonly buckets: DataBuckets;
  private planned: number[] = [];
  private head = 0;
  private plannedCount = 0;
  /** Footprint scans: stamp per datum. */
  private seen: Uint32Array<ArrayBuffer>;
  private stamp = 0;
  private footprintBytes = 0;
  /** Prefetches refused for want of room, retried in order. */
  private pending: number[] = [];
  private retrying = false;
  /** Data whose eviction a prefetch may ask for: none planned on the host reads them. */
  private readonly allow = (h: number): boolean => this.plannedUses[h] === 0;

  /** Decisions made and prefetches requested (tests read them). */
  readonly stats = { decisions: 0, planned: 0, fallbacks: 0, prefetches: 0, waits: 0 };

  /**
   * The host level for `ctx`'s platform when it has a disk node and CPU workers, else undefined
   * (DARTS then runs as without a disk).
   */
  static forPlatform(
    ctx: SchedContext,
    pool: HostPool,
    options: HostLevelOptions = {},
  ): HostLevel | undefined {
    const p = ctx.platform;
    if (diskNodeOf(p) < 0 || !p.workers.some((w) => w.kind === 'cpu' && w.node === p.homeNode))
      return undefined;
    return new HostLevel(ctx, pool, options);
  }

  private constructor(ctx: SchedContext, pool: HostPool, options: HostLevelOptions) {
    this.ctx = ctx;
    this.pool = pool;
    this.ahead = options.ahead ?? false;
    const p = ctx.platform;
    this.node = p.homeNode;
    this.isCpu = new Uint8Array(p.workers.map((w) => (w.kind === 'cpu' && w.node === this.node ? 1 : 0)));
    this.cpus = this.isCpu.reduce((a, b) => a + b, 0);
    this.cap = p.workers.some((w) => w.kind === 'gpu') ? 1 : Number.POSITIVE_INFINITY;
    const T = ctx.taskCapacity;
    const H = ctx.handleCapacity;
    this.loaded = new Uint8Array(H);
    this.missing = new Int32Array(T);
    this.freeCount = new Int32Array(H);
    this.unprocessed = new Int32Array(H);
    this.plannedUses = new Int32Array(H);
    this.plannedOn = new Uint8Array(T);
    this.seen = new Uint32Array(H);
    this.freeTasks = new IndexedSet(T);
    this.buckets = new DataBuckets(1, H, 16);
  }

  /** True when `worker` is one of the CPU workers of host memory. */
  owns(worker: number): boolean {
    return this.isCpu[worker] === 1;
  }

  /** Per-task tables hold `tasks` tasks, per-datum ones `handles` data. */
  grow(tasks: number, handles: number): void {
    this.missing = growI32(this.missing, tasks);
    this.plannedOn = growU8(this.plannedOn, tasks);
    this.freeTasks.grow(tasks);
    this.loaded = growU8(this.loaded, handles);
    this.freeCount = growI32(this.freeCount, handles);
    this.unprocessed = growI32(this.unprocessed, handles);
    this.plannedUses = growI32(this.plannedUses, handles);
    if (this.seen.length < handles) {
      const seen = new Uint32Array(Math.max(handles, 2 * this.seen.length));
      seen.set(this.seen);
      this.seen = seen;
    }
    this.buckets.grow(handles);
  }

  /** Data [from, to) were registered: those valid (or loading) in host memory are loaded. */
  dataAdded(from: number, to: number): void {
    for (let h = from; h < to; h++) if (this.ctx.isValidOrLoading(h, this.node)) this.loaded[h] = 1;
  }

  /** Tasks [0, k) were recycled (all ended): per-task tables shift down by k. O(tasks held). */
  rebase(k: number): void {
    this.missing.copyWithin(0, k);
    this.plannedOn.copyWithin(0, k);
    this.plannedOn.fill(0, this.plannedOn.length - k);
    this.freeTasks.rebase(k);
    const kept: number[] = [];
    for (let i = this.head; i < this.planned.length; i++) {
      const t = this.planned[i]!;
      if (t >= k && this.plannedOn[t - k] === 1) kept.push(t - k);
    }
    this.planned = kept;
    this.head = 0;
  }

  // ------------------------------------------------------------------ DARTS's hooks

  /** Task t entered DARTS's pool. O(inputs). */
  poolAdded(t: number): void {
    const data = this.pool.data();
    const ins = data.inHandle.data;
    let m = 0;
    let last = -1;
    for (let i = data.inStart[t]!; i < data.inStart[t + 1]!; i++) {
      const h = ins[i]!;
      this.unprocessed[h]!++;
      if (this.loaded[h] === 0) {
        m++;
        last = h;
      }
    }
    this.missing[t] = m;
    if (m === 0) this.freeTasks.add(t);
    else if (m === 1) this.bumpFree(last, 1);
  }

  /** Task t left DARTS's pool. O(inputs). */
  poolRemoved(t: number): void {
    const data = this.pool.data();
    const ins = data.inHandle.data;
    for (let i = data.inStart[t]!; i < data.inStart[t + 1]!; i++) this.unprocessed[ins[i]!]!--;
    const m = this.missing[t]!;
    if (m === 0) this.freeTasks.delete(t);
    else if (m === 1) this.bumpFree(this.onlyMissing(t), -1);
  }

  /** A CPU worker of host memory asks for a task (Algorithm 2 for the host). */
  pop(worker: number): number {
    let t = this.nextPlanned(worker);
    if (t < 0) {
      this.refill(worker);
      t = this.nextPlanned(worker);
    }
    if (t < 0) {
      // Line 14: no datum frees a task; DARTS's CPU choice (the highest-priority pool task the
      // worker can run), if its data fit beside the host's work; its inputs leave dataNotInMem.
      t = this.fallback(worker);
      if (t < 0) return -1;
      this.stats.fallbacks++;
      this.pool.take(t);
      this.markInputs(t);
    }
    if (this.ahead && this.plannedCount < this.cpus) this.refill(worker);
    return t;
  }

  /** A task ended on a CPU worker: its outputs are in host memory; pending prefetches retry. */
  taskFinished(task: number): void {
    const g = this.ctx.graph;
    for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++) {
      if (g.accessMode.data[a]! & AccessMode.W) {
        const h = g.accessHandle.data[a]!;
        if (g.handleDiscard.data[h] === 0) this.setLoaded(h);
      }
    }
    this.retry();
  }

  /** A copy of `handle` to `node` was issued: in host memory, it leaves dataNotInMem_host. */
  dataRequested(handle: number, node: number): void {
    if (node === this.node) this.setLoaded(handle);
  }

  /** The replica of `handle` on `node` was dropped: back into dataNotInMem_host. */
  dataRemoved(handle: number, node: number): void {
    if (node !== this.node) return;
    this.setUnloaded(handle);
    this.retry();
  }

  /** The host's planned tasks not handed out yet, in order (for any of its CPU workers). */
  plannedTasks(): number[] {
    return this.planned.slice(this.head).filter((t) => this.plannedOn[t] === 1);
  }

  /** True while task t is planned on the host and not handed out yet. O(1). */
  isPlanned(t: number): boolean {
    return this.plannedOn[t] === 1;
  }

  /** Planned tasks of the host that read `handle` (LUF's n_p(D) at the host level). */
  plannedUsesOf(handle: number): number {
    return this.plannedUses[handle]!;
  }

  /** LUF line 10 at the host level: the host's planned tasks reading `handle` go back to the pool. */
  unplan(handle: number): void {
    if (this.plannedUses[handle] === 0) return;
    const data = this.pool.data();
    const readers = data.readersOf(handle);
    const n = data.readerCount[handle]!;
    for (let i = 0; i < n; i++) {
      const t = readers[i]!;
      if (this.plannedOn[t] === 1) {
        this.unmark(t);
        this.pool.giveBack(t);
      }
    }
  }

  // ------------------------------------------------------------------ decisions

  /**
   * DARTS's CPU choice: the highest-priority pool task `worker` can run, not taken; -1 when
   * none, or when its data do not fit in host memory beside the data of the host's running and
   * planned tasks while some of those will free memory (the worker then waits for them).
   */
  private fallback(worker: number): number {
    let best = -1;
    const pr = this.ctx.graph.taskPriority.data;
    for (const t of this.pool.poolTasks()) {
      if (this.ctx.canRun(t, worker) && (best < 0 || pr[t]! > pr[best]!)) best = t;
    }
    if (best < 0) return -1;
    if (this.busy()) {
      this.footprint();
      if (!this.fits(best)) {
        this.stats.waits++;
        return -1;
      }
    }
    return best;
  }

  /** Algorithm 2 lines 4-12 for the host: plans free tasks, or D_opt's freed tasks. */
  private refill(worker: number): void {
    if (this.freeTasks.size > 0) {
      const tasks = Array.from(this.freeTasks.values()).filter((t) => this.ctx.canRun(t, worker));
      if (tasks.length > 0) {
        if (this.plan(tasks) > 0) this.stats.decisions++;
        return;
      }
    }
    const d = this.chooseBest();
    if (d < 0) return;
    const data = this.pool.data();
    const readers = data.readersOf(d);
    const n = data.readerCount[d]!;
    const tasks: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = readers[i]!;
      if (this.pool.inPool(t) && this.missing[t] === 1 && this.ctx.canRun(t, worker)) tasks.push(t);
    }
    if (tasks.length === 0 || this.plan(tasks) === 0) return;
    this.stats.decisions++;
    this.setLoaded(d);
    this.request(d);
  }

  /** True while a CPU worker of the host runs a task or the host has planned tasks. */
  private busy(): boolean {
    if (this.plannedCount > 0) return true;
    const w = this.ctx.platform.workers;
    for (let i = 0; i < w.length; i++)
      if (this.isCpu[i] === 1 && this.ctx.pipeline(i).length > 0) return true;
    return false;
  }

  /**
   * Starts a footprint: the bytes of the distinct data the CPU workers' popped tasks and the
   * host's planned tasks access (they stay in host memory until those tasks end). O((popped +
   * planned) x accesses).
   */
  private footprint(): void {
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    this.footprintBytes = 0;
    const w = this.ctx.platform.workers;
    for (let i = 0; i < w.length; i++)
      if (this.isCpu[i] === 1) for (const t of this.ctx.pipeline(i)) this.fits(t);
    for (let i = this.head; i < this.planned.length; i++)
      if (this.plannedOn[this.planned[i]!] === 1) this.fits(this.planned[i]!);
  }

  /**
   * Adds task t's data to the footprint if the total stays within host memory; true when it
   * did. O(accesses of t).
   */
  private fits(t: number): boolean {
    const g = this.ctx.graph;
    const s = g.accessStart.data[t]!;
    const e = g.accessStart.data[t + 1]!;
    let more = 0;
    for (let a = s; a < e; a++) {
      const h = g.accessHandle.data[a]!;
      if (this.seen[h] !== this.stamp) more += g.handleSize.data[h]!;
    }
    if (this.footprintBytes + more > this.ctx.memoryCapacity(this.node)) return false;
    this.footprintBytes += more;
    for (let a = s; a < e; a++) this.seen[g.accessHandle.data[a]!] = this.stamp;
    return true;
  }

  /** The datum freeing the most tasks: most unprocessed readers, highest priority, lowest id. */
  private chooseBest(): number {
    const c = this.buckets.best(0);
    if (c === 0) return -1;
    let best = -1;
    let bestUn = -1;
    let bestPr = Number.NEGATIVE_INFINITY;
    for (let d = this.buckets.first(0, c); d >= 0; d = this.buckets.after(0, d)) {
      const un = this.unprocessed[d]!;
      if (un < bestUn) continue;
      const pr = this.maxPoolPriority(d);
      if (un === bestUn && (pr < bestPr || (pr === bestPr && d > best))) continue;
      best = d;
      bestUn = un;
      bestPr = pr;
    }
    return best;
  }

  private maxPoolPriority(d: number): number {
    const pr = this.ctx.graph.taskPriority.data;
    const data = this.pool.data();
    const readers = data.readersOf(d);
    const n = data.readerCount[d]!;
    let best = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const t = readers[i]!;
      if (this.pool.inPool(t) && pr[t]! > best) best = pr[t]!;
    }
    return best;
  }

  /**
   * Plans `tasks` on the host, highest priority first, then submission order: at most `cap`,
   * and, while the host's running or planned tasks will free memory, only those whose data fit
   * in host memory beside theirs (a CPU worker waits rather than evict data in use). Returns
   * how many were planned.
   */
  private plan(tasks: number[]): number {
    const pr = this.ctx.graph.taskPriority.data;
    tasks.sort((a, b) => pr[b]! - pr[a]! || a - b);
    if (tasks.length > this.cap) tasks.length = this.cap;
    if (this.busy()) {
      this.footprint();
      let n = 0;
      while (n < tasks.length && this.fits(tasks[n]!)) n++;
      tasks.length = n;
      if (n === 0) this.stats.waits++;
    }
    this.compact();
    const data = this.pool.data();
    const ins = data.inHandle.data;
    for (const t of tasks) {
      this.pool.take(t);
      this.plannedOn[t] = 1;
      this.planned.push(t);
      this.plannedCount++;
      this.stats.planned++;
      for (let i = data.inStart[t]!; i < data.inStart[t + 1]!; i++) this.plannedUses[ins[i]!]!++;
    }
    return tasks.length;
  }

  private compact(): void {
    if (this.head > 0 && this.head * 2 >= this.planned.length) {
      this.planned = this.planned.slice(this.head).filter((t) => this.plannedOn[t] === 1);
      this.head = 0;
    }
  }

  /** The first planned task `worker` can run, handed out; -1 when none. */
  private nextPlanned(worker: number): number {
    const list = this.planned;
    while (this.head < list.length && this.plannedOn[list[this.head]!] === 0) this.head++;
    for (let i = this.head; i < list.length; i++) {
      const t = list[i]!;
      if (this.plannedOn[t] === 0 || !this.ctx.canRun(t, worker)) continue;
      this.unmark(t);
      this.markInputs(t);
      return t;
    }
    return -1;
  }

  private unmark(t: number): void {
    this.plannedOn[t] = 0;
    this.plannedCount--;
    const data = this.pool.data();
    const ins = data.inHandle.data;
    for (let i = data.inStart[t]!; i < data.inStart[t + 1]!; i++) this.plannedUses[ins[i]!]!--;
  }

  /** Task t is handed out: its inputs are (about to be) in host memory. */
  private markInputs(t: number): void {
    const data = this.pool.data();
    const ins = data.inHandle.data;
    for (let i = data.inStart[t]!; i < data.inStart[t + 1]!; i++) this.setLoaded(ins[i]!);
  }

  // ------------------------------------------------------------------ prefetch

  /** Requests `h` from the disk into host memory, evicting only data the plan does not read. */
  private request(h: number): void {
    if (this.ctx.isValidOrLoading(h, this.node)) return;
    this.stats.prefetches++;
    if (!this.ctx.prefetch(h, this.node, true, this.allow)) this.pending.push(h);
  }

  /** Retries the refused requests in order, stopping at the first that must still wait. */
  private retry(): void {
    if (this.retrying || this.pending.length === 0) return;
    this.retrying = true;
    let i = 0;
    for (; i < this.pending.length; i++) {
      const h = this.pending[i]!;
      if (this.plannedUses[h] === 0 || this.ctx.isValidOrLoading(h, this.node)) continue;
      if (!this.ctx.prefetch(h, this.node, true, this.allow)) break;
    }
    this.pending.splice(0, i);
    this.retrying = false;
  }

  // ------------------------------------------------------------------ incremental counts

  private onlyMissing(t: number): number {
    const data = this.pool.data();
    const ins = data.inHandle.data;
    for (let i = data.inStart[t]!; i < data.inStart[t + 1]!; i++)
      if (this.loaded[ins[i]!] === 0) return ins[i]!;
    return -1;
  }

  /** D enters host memory (leaves dataNotInMem_host). */
  private setLoaded(d: number): void {
    if (this.loaded[d] === 1) return;
    this.loaded[d] = 1;
    this.buckets.remove(0, d);
    const data = this.pool.data();
    const readers = data.readersOf(d);
    const n = data.readerCount[d]!;
    for (let i = 0; i < n; i++) {
      const t = readers[i]!;
      if (!this.pool.inPool(t)) continue;
      const m = --this.missing[t]!;
      if (m === 1) this.bumpFree(this.onlyMissing(t), 1);
      else if (m === 0) {
        this.freeCount[d]!--;
        this.freeTasks.add(t);
      }
    }
  }

  /** D leaves host memory (back into dataNotInMem_host). */
  private setUnloaded(d: number): void {
    if (this.loaded[d] === 0) return;
    const data = this.pool.data();
    const readers = data.readersOf(d);
    const n = data.readerCount[d]!;
    for (let i = 0; i < n; i++) {
      const t = readers[i]!;
      if (!this.pool.inPool(t)) continue;
      const m = ++this.missing[t]!;
      if (m === 1) {
        this.freeTasks.delete(t);
        this.freeCount[d]!++;
      } else if (m === 2) this.bumpFree(this.onlyMissing(t), -1);
    }
    this.loaded[d] = 0;
    if (this.freeCount[d]! > 0) this.buckets.add(0, d, this.freeCount[d]!);
  }

  /** free(D) += delta, moving D between buckets when it is not in host memory. */
  private bumpFree(d: number, delta: number): void {
    this.freeCount[d]! += delta;
    if (this.loaded[d] === 1) return;
    this.buckets.remove(0, d);
    if (this.freeCount[d]! > 0) this.buckets.add(0, d, this.freeCount[d]!);
  }
}
