/**
 * DARTS, Data-Aware Reactive Task Scheduling (seed 000, section 3.2, Algorithm 2), with the
 * dynamic-submission variant of section 4.3: when GPU k asks for work and its plannedTasks_k
 * is empty, pick the datum D of dataNotInMem_k whose loading makes the most tasks "free" (all
 * their inputs in k's memory), plan all of those tasks on k, and hand them out one by one.
 * When no datum frees a task, a random unallocated task is taken. All GPUs share one pool of
 * unallocated tasks: the tasks pushed (ready) and not planned or handed out. Tasks whose
 * inputs are all already in k's memory are planned first (they need no load). While other
 * GPUs are idle (nothing planned, nothing popped), a decision plans at most k's share of the
 * pool, ceil(pool / (1 + idle GPUs)): otherwise a datum read by every task would free them all
 * on the first GPU to ask and leave the others idle.
 *
 * Ties among the data freeing the most tasks (D_opt's candidates):
 * - whole graph submitted before the run (the default, seed 000's Fig. 2 and Fig. 3 as Locus
 *   reproduces them): section 3.2's order, most unprocessed (pool) tasks reading D, then the
 *   highest priority among them, then the run's seeded random generator;
 * - tasks submitted while the engine runs (`--submit-window`, the library's submit between
 *   waits): section 4.3's variant, where the maximum priority (bottom level) of the pool tasks
 *   reading D is "used as a tiebreak after the number of free tasks": priority first, then
 *   the unprocessed count, then the random draw. The variant applies from the first
 *   submission that shows tasks arriving while the engine runs (a first batch smaller than
 *   the graph, or any later batch), and stays on. Whole-graph runs keep section 3.2's order
 *   so that their figures do not change; without priorities both orders are the same.
 * As section 4.3 asks, dataNotInMem_k follows new data: a datum joins k's candidates as soon
 * as a submitted task that reads it reaches the pool (buckets.ts), and new tasks join the
 * reader lists the counts are kept over (task-data.ts).
 *
 * Options (StarPU's documented DARTS variants): `dartsThreshold` caps the candidates examined
 * per decision; `darts3inputs` adds, after the free-task count (after the priority in the
 * section 4.3 order), the number of tasks one datum away from free; `dartsOpti` chooses
 * instead the datum with the smallest ratio of its transfer time to the compute time it frees.
 * StarPU master's code (issue 24), not seed 000's paper: `dartsPushFree` plans a pushed task
 * whose inputs a GPU holds there at once; `dartsStarpuTies` orders D_opt's candidates as StarPU
 * does; `dartsOneFromFree` replaces line 14's random task with the highest-priority task one
 * datum away from free (the mechanism that accounts for most of StarPU's lead on Cholesky
 * under memory pressure: docs/policies/darts.md); `dartsOneAway` takes the same task but a
 * random one among those of equal priority, as seed 000's line 14 takes a random task.
 *
 * Incremental state, so a decision never rescans all data and all tasks: per GPU k and pool
 * task T, missing_k(T) = inputs of T not in k's memory; per datum D, free_k(D) = pool tasks
 * whose only missing input is D; data with free_k(D) >= 1 sit in buckets by that count, so the
 * best count is found in O(1) amortized. A change of D's presence on k, or a task entering or
 * leaving the pool, costs O(tasks reading D x inputs per task) or O(GPUs x inputs).
 * A decision costs O(candidates in the best bucket) (capped by dartsThreshold), plus, with
 * priorities or darts3inputs, O(tasks reading each candidate); planning the freed tasks costs
 * O(tasks reading D_opt). Over a run of matmul2d this is O(N) per refill that plans about N
 * tasks: amortized O(1) per task. A submission costs O(GPUs x inputs) per new task and datum.
 *
 * Over 500 lines on purpose: the decisions and the incremental counts read and write the
 * same flat tables on the hot path; the reader lists (task-data.ts), the buckets
 * (buckets.ts) and the sets (indexed-set.ts) are apart.
 */
import { growF64, growI32, growU8 } from '../../core/growable.ts';
import type { SchedContext, Scheduler } from '../../core/policy.ts';
import { AccessMode } from '../../core/types.ts';
import type { SchedulerOptions } from '../options.ts';
import { PlanIndex, type PlanView } from '../plan-index.ts';
import { DataBuckets } from './buckets.ts';
import { HostLevel } from './host-level.ts';
import { IndexedSet } from './indexed-set.ts';
import { TaskData } from './task-data.ts';

const NOT_READY = -2;
const IN_POOL = -1;
const TAKEN = -3;

/** The DARTS scheduler; `luf` eviction reads its planned tasks (see src/evict/luf.ts). */
export class DartsScheduler implements Scheduler {
  readonly name: string;
  /** Takes tasks and data submitted while the engine runs (seed 000 section 4.3). */
  readonly dynamic = true;
  private ctx!: SchedContext;
  private readonly threshold: number;
  private readonly threeInputs: boolean;
  private readonly opti: boolean;
  private readonly pushFree: boolean;
  private readonly oneFromFree: boolean;
  private readonly oneAway: boolean;
  private readonly starpuTies: boolean;
  /** Round-robin start of pushFree's GPU scan (StarPU's round_robin_free_task). */
  private pushTurn = -1;

  // Inputs of each task and tasks reading each datum, growing with submissions.
  private data!: TaskData;
  private hasPriorities = false;
  private firstPriority = 0;
  private sawTasks = false;
  /** Section 4.3's tie order (priority right after the free count) is in force. */
  private priorityFirst = false;

  // GPU workers DARTS plans for, k = 0..K-1, and the worker -> k map (-1 for others).
  private gpuWorkers: number[] = [];
  private gpuNode: number[] = [];
  private kOf!: Int32Array;
  private K = 0;

  // Task placement: NOT_READY, IN_POOL, TAKEN or the k it is planned on.
  private where!: Int32Array<ArrayBuffer>;
  private pool!: IndexedSet;
  private unprocessed!: Int32Array<ArrayBuffer>;

  // Per GPU k, flattened D * K + k or t * K + k (so that the tables grow at the end).
  private loaded!: Uint8Array<ArrayBuffer>;
  private missing!: Int32Array<ArrayBuffer>;
  private freeCount!: Int32Array<ArrayBuffer>;
  private freeTasks: IndexedSet[] = [];
  private planned: number[][] = [];
  private plannedHead!: Int32Array;
  private plannedUses!: Int32Array<ArrayBuffer>;
  private plannedCount!: Int32Array;
  // The planned lists in plannedTasks' order (key: the planning count), for eviction policies.
  private index: PlanIndex | undefined;
  private plannedAt = new Float64Array(0);
  private plans = 0;

  // Data by free count, per k (dataNotInMem_k's candidates).
  private buckets!: DataBuckets;
  /** Out of core with dartsHostLevel: host memory planned as one more level (host-level.ts). */
  private host: HostLevel | undefined;
  private readonly hostLevel: boolean | undefined;
  private readonly hostAhead: boolean;

  /** Creates DARTS with the given variant options. */
  constructor(options: SchedulerOptions = {}, name = 'darts') {
    this.name = name;
    this.threshold = options.dartsThreshold ?? 0;
    this.threeInputs = options.darts3inputs ?? false;
    this.opti = options.dartsOpti ?? false;
    this.pushFree = options.dartsPushFree ?? false;
    this.oneFromFree = options.dartsOneFromFree ?? false;
    this.oneAway = !this.oneFromFree && (options.dartsOneAway ?? false);
    this.starpuTies = options.dartsStarpuTies ?? false;
    this.hostLevel = options.dartsHostLevel;
    this.hostAhead = options.dartsHostAhead ?? false;
  }

  init(ctx: SchedContext): void {
    // init may run again on a reused instance: start afresh.
    this.ctx = ctx;
    const p = ctx.platform;
    const T = ctx.taskCapacity;
    const H = ctx.handleCapacity;
    this.data = new TaskData(T, H);
    this.hasPriorities = false;
    this.sawTasks = false;
    this.priorityFirst = false;
    this.gpuWorkers = [];
    this.gpuNode = [];
    this.kOf = new Int32Array(p.workers.length).fill(-1);
    p.workers.forEach((w, i) => {
      if (w.kind === 'gpu') {
        this.kOf[i] = this.gpuWorkers.length;
        this.gpuWorkers.push(i);
        this.gpuNode.push(w.node);
      }
    });
    this.K = this.gpuWorkers.length;
    const K = this.K;
    this.where = new Int32Array(T).fill(NOT_READY);
    this.pool = new IndexedSet(T);
    this.unprocessed = new Int32Array(H);
    this.loaded = new Uint8Array(K * H);
    this.missing = new Int32Array(K * T);
    this.freeCount = new Int32Array(K * H);
    this.freeTasks = Array.from({ length: K }, () => new IndexedSet(T));
    this.planned = Array.from({ length: K }, () => []);
    this.plannedHead = new Int32Array(K);
    this.plannedUses = new Int32Array(K * H);
    this.plannedCount = new Int32Array(K);
    this.index = undefined;
    this.plannedAt = new Float64Array(T);
    this.plans = 0;
    this.pushTurn = -1;
    this.buckets = new DataBuckets(K, H, 16);
    // Out of core, on by default on a machine without GPUs (measured: docs/results.md).
    const hostLevel = this.hostLevel ?? !p.workers.some((w) => w.kind === 'gpu');
    this.host = hostLevel
      ? HostLevel.forPlatform(ctx, this.hostPool(), { ahead: this.hostAhead })
      : undefined;
  }

  /** The pool as the host level sees it. */
  private hostPool() {
    return {
      data: () => this.data,
      inPool: (t: number) => this.where[t] === IN_POOL,
      take: (t: number) => this.removeFromPool(t),
      giveBack: (t: number) => this.addToPool(t),
      poolTasks: () => this.pool.values(),
    };
  }

  /** The host level's counts (undefined without it): decisions, tasks planned, fallbacks, prefetches. */
  get hostStats(): HostLevel['stats'] | undefined {
    return this.host?.stats;
  }

  /** Per-task tables hold `tasks` tasks, per-datum ones `handles` data. */
  grow(tasks: number, handles: number): void {
    const K = this.K;
    this.data.grow(tasks, handles);
    this.where = growI32(this.where, tasks, NOT_READY);
    this.pool.grow(tasks);
    for (const f of this.freeTasks) f.grow(tasks);
    this.missing = growI32(this.missing, tasks * K);
    this.plannedAt = growF64(this.plannedAt, tasks);
    this.unprocessed = growI32(this.unprocessed, handles);
    this.loaded = growU8(this.loaded, handles * K);
    this.freeCount = growI32(this.freeCount, handles * K);
    this.plannedUses = growI32(this.plannedUses, handles * K);
    this.buckets.grow(handles);
    this.host?.grow(tasks, handles);
  }

  /**
   * The engine recycled tasks [0, k), all ended: the per-task tables, the pool, the free sets
   * and the planned lists shift down by k (entries of recycled tasks leave the lists: they
   * were taken for good), the PlanIndex is rebuilt on use. Same decisions after as before.
   * O(tasks held + reader entries).
   */
  rebase(k: number): void {
    const K = this.K;
    this.data.rebase(k);
    this.where.copyWithin(0, k);
    this.where.fill(NOT_READY, this.where.length - k);
    this.pool.rebase(k);
    for (const f of this.freeTasks) f.rebase(k);
    this.missing.copyWithin(0, k * K);
    this.plannedAt.copyWithin(0, k);
    for (let j = 0; j < K; j++) {
      const list = this.planned[j]!;
      const kept: number[] = [];
      for (let i = this.plannedHead[j]!; i < list.length; i++) if (list[i]! >= k) kept.push(list[i]! - k);
      this.planned[j] = kept;
      this.plannedHead[j] = 0;
    }
    this.index = undefined;
    this.host?.rebase(k);
  }

  /**
   * Tasks [from, to) and the data registered with them arrive: their inputs join the reader
   * lists (before any of them is pushed), new data join dataNotInMem_k (valid nowhere but
   * their home node yet, checked). Decides whether section 4.3's tie order applies.
   */
  submitted(from: number, to: number): void {
    const g = this.ctx.graph;
    this.grow(this.ctx.taskCapacity, this.ctx.handleCapacity);
    if (to > from) {
      if (this.sawTasks || to < g.taskCount) this.priorityFirst = true;
      const pr = g.taskPriority.data;
      if (!this.sawTasks) this.firstPriority = pr[from]!;
      this.sawTasks = true;
      for (let t = from; t < to && !this.hasPriorities; t++)
        if (pr[t] !== this.firstPriority) this.hasPriorities = true;
    }
    const oldHandles = this.data.handles;
    const where = this.where;
    const host = this.host;
    // A task the host level planned is TAKEN from the pool but may still be given back (LUF's
    // unplan walks the reader lists): it stays in them until the host hands it out.
    this.data.add(g, from, to, g.handleCount, (t) => where[t] === TAKEN && host?.isPlanned(t) !== true);
    const K = this.K;
    for (let h = oldHandles; h < g.handleCount; h++) {
      for (let k = 0; k < K; k++)
        if (this.ctx.isValidOrLoading(h, this.gpuNode[k]!)) this.loaded[h * K + k] = 1;
    }
    this.host?.dataAdded(oldHandles, g.handleCount);
  }

  // ------------------------------------------------------------------ scheduler interface

  push(task: number): void {
    this.addToPool(task);
    if (this.pushFree) this.planIfFree(task);
  }

  /**
   * StarPU master's darts_push_task (STARPU_DARTS_PUSH_FREE_TASK_ON_GPU_WITH_LEAST_TASK_IN_PLANNED_TASK
   * = 2, FREE_PUSHED_TASK_POSITION = 1; not in seed 000's Algorithm 2): a task pushed while each
   * of its inputs is in some GPU's memory (valid or on its way) or read by a task planned there
   * is planned on that GPU at once, the GPUs looked at in turn from a round-robin start, before
   * the first planned task with an input not in that memory. Without it the task waits in the
   * pool (DARTS plans only when a GPU's list is empty) and its data, used by no planned task,
   * are LUF's first victims. Cost: O(K x inputs) to find the GPU, O(planned tasks x inputs) to
   * place it.
   */
  private planIfFree(t: number): void {
    const K = this.K;
    const ins = this.data.inHandle.data;
    const start = this.data.inStart;
    this.pushTurn++;
    for (let j = 0; j < K; j++) {
      const k = (j + this.pushTurn) % K;
      const node = this.gpuNode[k]!;
      let free = this.ctx.canRun(t, this.gpuWorkers[k]!);
      for (let i = start[t]!; free && i < start[t + 1]!; i++) {
        const h = ins[i]!;
        free = this.ctx.isValidOrLoading(h, node) || this.plannedUses[h * K + k]! > 0;
      }
      if (!free) continue;
      this.removeFromPool(t);
      const list = this.compactPlanned(k);
      let at = this.plannedHead[k]!;
      while (at < list.length && (this.where[list[at]!] !== k || this.inMemory(node, list[at]!))) at++;
      list.splice(at, 0, t);
      this.where[t] = k;
      this.plannedCount[k]!++;
      this.plannedAt[t] = this.plans++;
      this.index?.add(t, k, 0, this.plannedAt[t]!);
      for (let i = start[t]!; i < start[t + 1]!; i++) {
        this.plannedUses[ins[i]! * K + k]!++;
        this.setLoaded(k, ins[i]!);
      }
      return;
    }
  }

  /** True when every input of task t is valid or on its way in memory node `node`. */
  private inMemory(node: number, t: number): boolean {
    const ins = this.data.inHandle.data;
    const start = this.data.inStart;
    for (let i = start[t]!; i < start[t + 1]!; i++)
      if (!this.ctx.isValidOrLoading(ins[i]!, node)) return false;
    return true;
  }

  pop(worker: number): number {
    const k = this.kOf[worker]!;
    if (k < 0) return this.host?.owns(worker) ? this.host.pop(worker) : this.popForCpu(worker);
    let t = this.nextPlanned(k);
    if (t >= 0) return this.take(k, t);
    t = this.refill(k, worker);
    if (t >= 0) return this.take(k, t);
    t = this.nextPlanned(k);
    return t >= 0 ? this.take(k, t) : -1;
  }

  taskFinished(task: number, worker: number): void {
    // Data the task wrote are now in its GPU's memory (reads were marked at pop).
    const k = this.kOf[worker]!;
    if (k < 0) {
      if (this.host?.owns(worker)) this.host.taskFinished(task);
      return;
    }
    const g = this.ctx.graph;
    for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++) {
      if (g.accessMode.data[a]! & AccessMode.W) {
        const h = g.accessHandle.data[a]!;
        if (g.handleDiscard.data[h] === 0) this.setLoaded(k, h);
      }
    }
  }

  dataRemoved(handle: number, node: number): void {
    for (let k = 0; k < this.K; k++) {
      if (this.gpuNode[k] === node) this.setUnloaded(k, handle);
    }
    this.host?.dataRemoved(handle, node);
  }

  /** Out of core: a copy into host memory leaves the host level's dataNotInMem. */
  dataRequested(handle: number, node: number): void {
    this.host?.dataRequested(handle, node);
  }

  plannedTasks(worker: number): number[] {
    const k = this.kOf[worker]!;
    if (k < 0) return this.host?.owns(worker) ? this.host.plannedTasks() : [];
    return this.planned[k]!.slice(this.plannedHead[k]!).filter((t) => this.where[t] === k);
  }

  /** The index of GPU `worker`'s planned tasks (undefined for CPU workers, which plan none). */
  plannedIndex(worker: number): PlanView | undefined {
    const k = this.kOf[worker]!;
    if (k < 0) return undefined;
    if (this.index === undefined) {
      // Built on first use (an eviction policy asks), kept up to date from then on.
      const index = new PlanIndex(this.ctx.graph, this.K);
      for (let j = 0; j < this.K; j++) {
        const list = this.planned[j]!;
        for (let i = this.plannedHead[j]!; i < list.length; i++) {
          const t = list[i]!;
          if (this.where[t] === j) index.add(t, j, 0, this.plannedAt[t]!);
        }
      }
      this.index = index;
    }
    return { index: this.index, group: k };
  }

  /** Planned tasks of `worker` that read `handle` (LUF's n_p(D), seed 000 Algorithm 3). */
  plannedUsesOf(worker: number, handle: number): number {
    const k = this.kOf[worker]!;
    if (k < 0) {
      if (!this.host?.owns(worker)) return 0;
      // Host memory also stages the GPUs' data: their planned uses count at the host level.
      let n = this.host.plannedUsesOf(handle);
      for (let j = 0; j < this.K; j++) n += this.plannedUses[handle * this.K + j]!;
      return n;
    }
    return this.plannedUses[handle * this.K + k]!;
  }

  /**
   * LUF, seed 000 Algorithm 3 line 10: the tasks planned on workers of `node` that read
   * `handle` go back to the shared pool, since `handle` is being evicted there.
   */
  unplan(handle: number, node: number): void {
    if (node === this.host?.node) this.host.unplan(handle);
    for (let k = 0; k < this.K; k++) {
      if (this.gpuNode[k] !== node) continue;
      if (this.plannedUses[handle * this.K + k] === 0) continue;
      const readers = this.data.readersOf(handle);
      const n = this.data.readerCount[handle]!;
      for (let i = 0; i < n; i++) {
        const t = readers[i]!;
        if (this.where[t] === k) {
          this.unmarkPlanned(k, t);
          this.addToPool(t);
        }
      }
    }
  }

  /** True once section 4.3's tie order is in force (tasks arrived while the engine ran). */
  get dynamicVariant(): boolean {
    return this.priorityFirst;
  }

  // ------------------------------------------------------------------ decisions

  /** Algorithm 2 lines 4-15 for GPU k; returns a task to hand out directly, or -1. */
  private refill(k: number, worker: number): number {
    const free = this.freeTasks[k]!;
    if (free.size > 0) {
      const tasks = Array.from(free.values()).filter((t) => this.ctx.canRun(t, worker));
      if (tasks.length > 0) {
        this.plan(k, tasks, this.share(k));
        return -1;
      }
    }
    const d = this.opti
      ? this.chooseOpti(k, worker)
      : this.starpuTies
        ? this.chooseStarpu(k, worker)
        : this.chooseBest(k);
    if (d >= 0) {
      const tasks: number[] = [];
      const K = this.K;
      const readers = this.data.readersOf(d);
      const n = this.data.readerCount[d]!;
      for (let i = 0; i < n; i++) {
        const t = readers[i]!;
        if (this.where[t] === IN_POOL && this.missing[t * K + k] === 1 && this.ctx.canRun(t, worker)) {
          tasks.push(t);
        }
      }
      if (tasks.length > 0) {
        this.plan(k, tasks, this.share(k));
        this.setLoaded(k, d);
        return -1;
      }
    }
    if (this.pool.size === 0) return -1;
    if (this.oneFromFree || this.oneAway) return this.oneFromFreeTask(k, worker);
    // Line 14: a random unprocessed task.
    for (let tries = 0; tries < 8; tries++) {
      const t = this.pool.at(this.ctx.random(this.pool.size));
      if (this.ctx.canRun(t, worker)) {
        this.removeFromPool(t);
        return t;
      }
    }
    for (const t of this.pool.values()) {
      if (this.ctx.canRun(t, worker)) {
        this.removeFromPool(t);
        return t;
      }
    }
    return -1;
  }

  /**
   * StarPU master's fallback when no datum frees a task on GPU k (`STARPU_DARTS_APP` = 1 with
   * `STARPU_DARTS_HIGHEST_PRIORITY_TASK_RETURNED_IN_DEFAULT_CASE` = 1; seed 000 takes a random
   * task instead): the highest-priority pool task one datum away from free (two inputs missing
   * from k's memory), ties to the earliest submitted; if there is none, the highest-priority
   * pool task. StarPU reaches the same task through its D_opt order (the data's best one-away
   * task by priority). With `dartsOneAway` the ties go to a uniformly random one of them
   * (reservoir sampling over the pool walk) instead. Cost: O(pool) per fallback decision.
   */
  private oneFromFreeTask(k: number, worker: number): number {
    const pr = this.ctx.graph.taskPriority.data;
    const K = this.K;
    let best = -1;
    let bestAway = -1;
    let ties = 0;
    for (const t of this.pool.values()) {
      if (!this.ctx.canRun(t, worker)) continue;
      const away = this.missing[t * K + k] === 2 ? 1 : 0;
      if (best < 0 || away > bestAway || (away === bestAway && pr[t]! > pr[best]!)) {
        best = t;
        bestAway = away;
        ties = 1;
      } else if (away === bestAway && pr[t] === pr[best]) {
        if (!this.oneAway) {
          if (t < best) best = t;
        } else if (this.ctx.random(++ties) === 0) best = t;
      }
    }
    if (best >= 0) this.removeFromPool(best);
    return best;
  }

  /**
   * StarPU master's D_opt tie order (`STARPU_DARTS_DOPT_SELECTION_ORDER` = 1; its default, 7,
   * puts a transfer-time ratio first, but asks the transfer time of memory node `gpu index`,
   * the host for GPU 0, so it falls back on this order in practice): most tasks freed, then
   * the highest priority among the tasks D frees, then the most pool tasks one datum away
   * (D and one other input missing), then the most expected work of the pool tasks reading D,
   * then the candidate met first. Cost: O(tasks reading each candidate) per candidate.
   */
  private chooseStarpu(k: number, worker: number): number {
    const c = this.buckets.best(k);
    if (c === 0) return -1;
    const pr = this.ctx.graph.taskPriority.data;
    const K = this.K;
    let best = -1;
    let bestPr = Number.NEGATIVE_INFINITY;
    let bestAway = -1;
    let bestWork = -1;
    let scanned = 0;
    for (let d = this.buckets.first(k, c); d >= 0; d = this.buckets.after(k, d)) {
      if (this.threshold > 0 && scanned++ >= this.threshold) break;
      let p = Number.NEGATIVE_INFINITY;
      let away = 0;
      let work = 0;
      const readers = this.data.readersOf(d);
      const n = this.data.readerCount[d]!;
      for (let i = 0; i < n; i++) {
        const t = readers[i]!;
        if (this.where[t] !== IN_POOL) continue;
        work += this.ctx.taskDuration(t, worker);
        const m = this.missing[t * K + k]!;
        if (m === 1) {
          if (pr[t]! > p) p = pr[t]!;
        } else if (m === 2) away++;
      }
      const cmp = order(p, bestPr) || order(away, bestAway) || order(work, bestWork);
      if (best >= 0 && cmp <= 0) continue;
      best = d;
      bestPr = p;
      bestAway = away;
      bestWork = work;
    }
    return best;
  }

  /**
   * The datum freeing the most tasks on k, with the tie-breaks of the order in force (see the
   * file's comment); -1 if none frees any.
   */
  private chooseBest(k: number): number {
    const c = this.buckets.best(k);
    if (c === 0) return -1;
    let best = -1;
    let bestN2 = -1;
    let bestUnprocessed = -1;
    let bestPriority = Number.NEGATIVE_INFINITY;
    let ties = 0;
    let scanned = 0;
    for (let d = this.buckets.first(k, c); d >= 0; d = this.buckets.after(k, d)) {
      if (this.threshold > 0 && scanned++ >= this.threshold) break;
      const n2 = this.threeInputs ? this.oneAwayCount(k, d) : 0;
      const un = this.unprocessed[d]!;
      let cmp: number;
      if (this.priorityFirst) {
        // Section 4.3: the maximum priority of D's tasks right after the free count.
        const pr = this.hasPriorities ? this.maxPoolPriority(d) : 0;
        cmp = order(pr, bestPriority) || order(n2, bestN2) || order(un, bestUnprocessed);
        if (cmp > 0) bestPriority = pr;
      } else {
        // Section 3.2: most unprocessed tasks, then priority (computed only when needed).
        cmp = order(n2, bestN2) || order(un, bestUnprocessed);
        if (cmp >= 0) {
          const pr = this.hasPriorities ? this.maxPoolPriority(d) : 0;
          if (cmp === 0) cmp = order(pr, bestPriority);
          if (cmp > 0) bestPriority = pr;
        }
      }
      if (cmp < 0) continue;
      if (cmp === 0) {
        // Reservoir sampling keeps a uniform choice among equal candidates.
        ties++;
        if (this.ctx.random(ties) === 0) best = d;
        continue;
      }
      best = d;
      bestN2 = n2;
      bestUnprocessed = un;
      ties = 1;
    }
    return best;
  }

  /** The "opti" order: smallest transfer time over compute time freed, among data freeing tasks. */
  private chooseOpti(k: number, worker: number): number {
    const node = this.ctx.platform.workers[worker]!.node;
    const K = this.K;
    let best = -1;
    let bestRatio = Number.POSITIVE_INFINITY;
    let scanned = 0;
    for (let c = this.buckets.highest(k); c > 0; c--) {
      for (let d = this.buckets.first(k, c); d >= 0; d = this.buckets.after(k, d)) {
        if (this.threshold > 0 && scanned++ >= this.threshold) return best;
        let compute = 0;
        const readers = this.data.readersOf(d);
        const n = this.data.readerCount[d]!;
        for (let i = 0; i < n; i++) {
          const t = readers[i]!;
          if (this.where[t] === IN_POOL && this.missing[t * K + k] === 1)
            compute += this.ctx.taskDuration(t, worker);
        }
        const ratio = this.ctx.transferTime(d, node) / Math.max(compute, 1e-12);
        if (ratio < bestRatio) {
          bestRatio = ratio;
          best = d;
        }
      }
    }
    return best;
  }

  private oneAwayCount(k: number, d: number): number {
    let count = 0;
    const K = this.K;
    const readers = this.data.readersOf(d);
    const n = this.data.readerCount[d]!;
    for (let i = 0; i < n; i++) {
      const t = readers[i]!;
      if (this.where[t] === IN_POOL && this.missing[t * K + k] === 2) count++;
    }
    return count;
  }

  private maxPoolPriority(d: number): number {
    const pr = this.ctx.graph.taskPriority.data;
    let best = Number.NEGATIVE_INFINITY;
    const readers = this.data.readersOf(d);
    const n = this.data.readerCount[d]!;
    for (let i = 0; i < n; i++) {
      const t = readers[i]!;
      if (this.where[t] === IN_POOL && pr[t]! > best) best = pr[t]!;
    }
    return best;
  }

  /**
   * The most tasks a decision of GPU k may plan: its share of the pool, ceil(pool / (1 + g)),
   * while g > 0 other GPUs are idle (nothing planned, nothing popped: they would find the pool
   * emptied); else all.
   */
  private share(k: number): number {
    let idle = 0;
    for (let j = 0; j < this.K; j++) {
      if (j !== k && this.plannedCount[j] === 0 && this.ctx.pipeline(this.gpuWorkers[j]!).length === 0)
        idle++;
    }
    return idle === 0 ? Number.POSITIVE_INFINITY : Math.ceil(this.pool.size / (idle + 1));
  }

  /** Plans the first `cap` of `tasks` on k, highest priority first, then submission order. */
  private plan(k: number, tasks: number[], cap: number): void {
    const pr = this.ctx.graph.taskPriority.data;
    if (this.hasPriorities) tasks.sort((a, b) => pr[b]! - pr[a]! || a - b);
    else tasks.sort((a, b) => a - b);
    if (tasks.length > cap) tasks.length = Math.max(1, cap);
    const list = this.compactPlanned(k);
    this.plannedCount[k]! += tasks.length;
    const K = this.K;
    const ins = this.data.inHandle.data;
    const start = this.data.inStart;
    for (const t of tasks) {
      this.removeFromPool(t);
      this.where[t] = k;
      list.push(t);
      this.plannedAt[t] = this.plans++;
      this.index?.add(t, k, 0, this.plannedAt[t]!);
      for (let i = start[t]!; i < start[t + 1]!; i++) this.plannedUses[ins[i]! * K + k]!++;
    }
  }

  private compactPlanned(k: number): number[] {
    const list = this.planned[k]!;
    const head = this.plannedHead[k]!;
    if (head > 0 && head * 2 >= list.length) {
      const kept = list.slice(head).filter((t) => this.where[t] === k);
      this.planned[k] = kept;
      this.plannedHead[k] = 0;
      return kept;
    }
    return list;
  }

  private nextPlanned(k: number): number {
    const list = this.planned[k]!;
    while (this.plannedHead[k]! < list.length) {
      const t = list[this.plannedHead[k]!++]!;
      if (this.where[t] === k) {
        this.unmarkPlanned(k, t);
        return t;
      }
    }
    return -1;
  }

  private unmarkPlanned(k: number, t: number): void {
    this.where[t] = TAKEN;
    this.plannedCount[k]!--;
    this.index?.remove(t);
    const K = this.K;
    const ins = this.data.inHandle.data;
    const start = this.data.inStart;
    for (let i = start[t]!; i < start[t + 1]!; i++) this.plannedUses[ins[i]! * K + k]!--;
  }

  /** Hands task t to GPU k: its inputs are (about to be) in k's memory. */
  private take(k: number, t: number): number {
    this.where[t] = TAKEN;
    const ins = this.data.inHandle.data;
    const start = this.data.inStart;
    for (let i = start[t]!; i < start[t + 1]!; i++) this.setLoaded(k, ins[i]!);
    return t;
  }

  /** CPU workers (outside the seed's GPU-only DARTS): the highest-priority pool task they can run. */
  private popForCpu(worker: number): number {
    let best = -1;
    const pr = this.ctx.graph.taskPriority.data;
    for (const t of this.pool.values()) {
      if (this.ctx.canRun(t, worker) && (best < 0 || pr[t]! > pr[best]!)) best = t;
    }
    if (best >= 0) {
      this.removeFromPool(best);
      this.where[best] = TAKEN;
    }
    return best;
  }

  // ------------------------------------------------------------------ incremental counts

  private addToPool(t: number): void {
    this.where[t] = IN_POOL;
    this.pool.add(t);
    const K = this.K;
    const ins = this.data.inHandle.data;
    const s = this.data.inStart[t]!;
    const e = this.data.inStart[t + 1]!;
    for (let i = s; i < e; i++) this.unprocessed[ins[i]!]!++;
    for (let k = 0; k < K; k++) {
      let m = 0;
      let last = -1;
      for (let i = s; i < e; i++) {
        const h = ins[i]!;
        if (this.loaded[h * K + k] === 0) {
          m++;
          last = h;
        }
      }
      this.missing[t * K + k] = m;
      if (m === 0) this.freeTasks[k]!.add(t);
      else if (m === 1) this.bumpFree(k, last, 1);
    }
    this.host?.poolAdded(t);
  }

  private removeFromPool(t: number): void {
    this.pool.delete(t);
    this.where[t] = TAKEN;
    const K = this.K;
    const ins = this.data.inHandle.data;
    for (let i = this.data.inStart[t]!; i < this.data.inStart[t + 1]!; i++) this.unprocessed[ins[i]!]!--;
    for (let k = 0; k < K; k++) {
      const m = this.missing[t * K + k]!;
      if (m === 0) this.freeTasks[k]!.delete(t);
      else if (m === 1) this.bumpFree(k, this.onlyMissing(k, t), -1);
    }
    this.host?.poolRemoved(t);
  }

  private onlyMissing(k: number, t: number): number {
    const K = this.K;
    const ins = this.data.inHandle.data;
    for (let i = this.data.inStart[t]!; i < this.data.inStart[t + 1]!; i++) {
      const h = ins[i]!;
      if (this.loaded[h * K + k] === 0) return h;
    }
    return -1;
  }

  /** D enters k's memory (leaves dataNotInMem_k). */
  private setLoaded(k: number, d: number): void {
    const K = this.K;
    const dk = d * K + k;
    if (this.loaded[dk] === 1) return;
    this.loaded[dk] = 1;
    this.buckets.remove(k, d);
    const readers = this.data.readersOf(d);
    const n = this.data.readerCount[d]!;
    for (let i = 0; i < n; i++) {
      const t = readers[i]!;
      if (this.where[t] !== IN_POOL) continue;
      const m = --this.missing[t * K + k]!;
      if (m === 1) {
        this.bumpFree(k, this.onlyMissing(k, t), 1);
      } else if (m === 0) {
        this.freeCount[dk]!--;
        this.freeTasks[k]!.add(t);
      }
    }
  }

  /** D leaves k's memory (back into dataNotInMem_k). */
  private setUnloaded(k: number, d: number): void {
    const K = this.K;
    const dk = d * K + k;
    if (this.loaded[dk] === 0) return;
    const readers = this.data.readersOf(d);
    const n = this.data.readerCount[d]!;
    for (let i = 0; i < n; i++) {
      const t = readers[i]!;
      if (this.where[t] !== IN_POOL) continue;
      const m = ++this.missing[t * K + k]!;
      if (m === 1) {
        this.freeTasks[k]!.delete(t);
        this.freeCount[dk]!++;
      } else if (m === 2) {
        // The other missing input stops being the only one (d is not marked unloaded yet).
        this.bumpFree(k, this.onlyMissing(k, t), -1);
      }
    }
    this.loaded[dk] = 0;
    if (this.freeCount[dk]! > 0) this.buckets.add(k, d, this.freeCount[dk]!);
  }

  /** free_k(D) += delta, moving D between buckets when it is not in k's memory. */
  private bumpFree(k: number, d: number, delta: number): void {
    const dk = d * this.K + k;
    this.freeCount[dk]! += delta;
    const c = this.freeCount[dk]!;
    if (this.loaded[dk] === 1) return;
    this.buckets.remove(k, d);
    if (c > 0) this.buckets.add(k, d, c);
  }
}

/** -1, 0 or 1 as a is below, equal to or above b (a candidate's key against the best's). */
function order(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
