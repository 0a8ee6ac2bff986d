/**
 * DARTS, Data-Aware Reactive Task Scheduling (seed 000, section 3.2, Algorithm 2), in its
 * dynamic-submission variant (section 4.3): when GPU k asks for work and its plannedTasks_k
 * is empty, pick the datum D of dataNotInMem_k whose loading makes the most tasks "free" (all
 * their inputs in k's memory), plan all of those tasks on k, and hand them out one by one.
 * Ties: most unprocessed tasks using D, then highest task priority (bottom level), then the
 * run's seeded random generator. When no datum frees a task, a random unallocated task is
 * taken. All GPUs share one pool of unallocated tasks. Tasks whose inputs are all already in
 * k's memory are planned first (they need no load). While other GPUs are idle (nothing
 * planned, nothing popped), a decision plans at most k's share of the pool, ceil(pool / (1 +
 * idle GPUs)): otherwise a datum read by every task would free them all on the first GPU to
 * ask and leave the others idle.
 *
 * Options (StarPU's documented DARTS variants): `dartsThreshold` caps the candidates examined
 * per decision; `darts3inputs` adds, after the free-task count, the number of tasks one datum
 * away from free; `dartsOpti` chooses instead the datum with the smallest ratio of its
 * transfer time to the compute time it frees.
 *
 * Incremental state, so a decision never rescans all data and all tasks: per GPU k and pool
 * task T, missing_k(T) = inputs of T not in k's memory; per datum D, free_k(D) = pool tasks
 * whose only missing input is D; data with free_k(D) >= 1 sit in buckets by that count, so the
 * best count is found in O(1) amortized. A change of D's presence on k, or a task entering or
 * leaving the pool, costs O(tasks reading D x inputs per task) or O(GPUs x inputs).
 * A decision costs O(candidates in the best bucket) (capped by dartsThreshold), plus, with
 * priorities or darts3inputs, O(tasks reading each candidate); planning the freed tasks costs
 * O(tasks reading D_opt). Over a run of matmul2d this is O(N) per refill that plans about N
 * tasks: amortized O(1) per task.
 */
import type { SchedContext, Scheduler } from '../../core/policy.ts';
import { AccessMode } from '../../core/types.ts';
import type { SchedulerOptions } from '../options.ts';
import { PlanIndex, type PlanView } from '../plan-index.ts';
import { IndexedSet } from './indexed-set.ts';

const NOT_READY = -2;
const IN_POOL = -1;
const TAKEN = -3;

/** The DARTS scheduler; `luf` eviction reads its planned tasks (see src/evict/luf.ts). */
export class DartsScheduler implements Scheduler {
  readonly name: string;
  private ctx!: SchedContext;
  private readonly threshold: number;
  private readonly threeInputs: boolean;
  private readonly opti: boolean;

  // Static structure: inputs of each task and tasks reading each datum (CSR).
  private inStart!: Int32Array;
  private inHandle!: Int32Array;
  private readersStart!: Int32Array;
  private readers!: Int32Array;
  private hasPriorities = false;

  // GPU workers DARTS plans for, k = 0..K-1, and the worker -> k map (-1 for others).
  private gpuWorkers: number[] = [];
  private kOf!: Int32Array;
  private K = 0;
  private H = 0;
  private T = 0;

  // Task placement: NOT_READY, IN_POOL, TAKEN or the k it is planned on.
  private where!: Int32Array;
  private pool!: IndexedSet;
  private unprocessed!: Int32Array;

  // Per GPU k (flattened k * H + D or k * T + t).
  private loaded!: Uint8Array;
  private missing!: Int32Array;
  private freeCount!: Int32Array;
  private freeTasks: IndexedSet[] = [];
  private planned: number[][] = [];
  private plannedHead!: Int32Array;
  private plannedUses!: Int32Array;
  private plannedCount!: Int32Array;
  // The planned lists in plannedTasks' order (key: the planning count), for eviction policies.
  private index: PlanIndex | undefined;
  private plannedAt = new Float64Array(0);
  private plans = 0;

  // Buckets of data by free count, per k: doubly linked lists over D.
  private bucketHead!: Int32Array;
  private bucketNext!: Int32Array;
  private bucketPrev!: Int32Array;
  private bucketOf!: Int32Array;
  private maxBucket!: Int32Array;
  private B = 0;

  /** Creates DARTS with the given variant options. */
  constructor(options: SchedulerOptions = {}, name = 'darts') {
    this.name = name;
    this.threshold = options.dartsThreshold ?? 0;
    this.threeInputs = options.darts3inputs ?? false;
    this.opti = options.dartsOpti ?? false;
  }

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    const g = ctx.graph;
    const p = ctx.platform;
    this.T = g.taskCount;
    this.H = g.handleCount;
    // Inputs: accesses that read (R or RW).
    this.inStart = new Int32Array(this.T + 1);
    const handles: number[] = [];
    const degree = new Int32Array(this.H);
    for (let t = 0; t < this.T; t++) {
      this.inStart[t] = handles.length;
      for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
        if (g.accessMode.data[a]! & AccessMode.R) {
          const h = g.accessHandle.data[a]!;
          handles.push(h);
          degree[h]!++;
        }
      }
      if (g.taskPriority.data[t] !== g.taskPriority.data[0]) this.hasPriorities = true;
    }
    this.inStart[this.T] = handles.length;
    this.inHandle = Int32Array.from(handles);
    this.readersStart = new Int32Array(this.H + 1);
    let maxDegree = 0;
    for (let h = 0; h < this.H; h++) {
      this.readersStart[h + 1] = this.readersStart[h]! + degree[h]!;
      if (degree[h]! > maxDegree) maxDegree = degree[h]!;
    }
    this.readers = new Int32Array(handles.length);
    const fill = this.readersStart.slice(0, this.H);
    for (let t = 0; t < this.T; t++) {
      for (let i = this.inStart[t]!; i < this.inStart[t + 1]!; i++)
        this.readers[fill[this.inHandle[i]!]!++] = t;
    }
    // The GPUs (init may run again on a reused instance: start afresh).
    this.gpuWorkers = [];
    this.kOf = new Int32Array(p.workers.length).fill(-1);
    p.workers.forEach((w, i) => {
      if (w.kind === 'gpu') {
        this.kOf[i] = this.gpuWorkers.length;
        this.gpuWorkers.push(i);
      }
    });
    this.K = this.gpuWorkers.length;
    const K = this.K;
    this.where = new Int32Array(this.T).fill(NOT_READY);
    this.pool = new IndexedSet(this.T);
    this.unprocessed = new Int32Array(this.H);
    this.loaded = new Uint8Array(K * this.H);
    this.missing = new Int32Array(K * this.T);
    this.freeCount = new Int32Array(K * this.H);
    this.freeTasks = Array.from({ length: K }, () => new IndexedSet(this.T));
    this.planned = Array.from({ length: K }, () => []);
    this.plannedHead = new Int32Array(K);
    this.plannedUses = new Int32Array(K * this.H);
    this.plannedCount = new Int32Array(K);
    this.index = undefined;
    this.plannedAt = new Float64Array(this.T);
    this.plans = 0;
    this.B = maxDegree + 1;
    this.bucketHead = new Int32Array(K * this.B).fill(-1);
    this.bucketNext = new Int32Array(K * this.H).fill(-1);
    this.bucketPrev = new Int32Array(K * this.H).fill(-1);
    this.bucketOf = new Int32Array(K * this.H);
    this.maxBucket = new Int32Array(K);
    // Data already valid on a GPU (none at the start of a run, but be exact).
    for (let k = 0; k < K; k++) {
      const node = p.workers[this.gpuWorkers[k]!]!.node;
      for (let h = 0; h < this.H; h++) if (ctx.isValidOrLoading(h, node)) this.loaded[k * this.H + h] = 1;
    }
  }

  // ------------------------------------------------------------------ scheduler interface

  push(task: number): void {
    this.addToPool(task);
  }

  pop(worker: number): number {
    const k = this.kOf[worker]!;
    if (k < 0) return this.popForCpu(worker);
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
    if (k < 0) return;
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
      if (this.ctx.platform.workers[this.gpuWorkers[k]!]!.node === node) this.setUnloaded(k, handle);
    }
  }

  plannedTasks(worker: number): number[] {
    const k = this.kOf[worker]!;
    return k < 0 ? [] : this.planned[k]!.slice(this.plannedHead[k]!).filter((t) => this.where[t] === k);
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
    return k < 0 ? 0 : this.plannedUses[k * this.H + handle]!;
  }

  /**
   * LUF, seed 000 Algorithm 3 line 10: the tasks planned on workers of `node` that read
   * `handle` go back to the shared pool, since `handle` is being evicted there.
   */
  unplan(handle: number, node: number): void {
    for (let k = 0; k < this.K; k++) {
      if (this.ctx.platform.workers[this.gpuWorkers[k]!]!.node !== node) continue;
      if (this.plannedUses[k * this.H + handle] === 0) continue;
      for (let i = this.readersStart[handle]!; i < this.readersStart[handle + 1]!; i++) {
        const t = this.readers[i]!;
        if (this.where[t] === k) {
          this.unmarkPlanned(k, t);
          this.addToPool(t);
        }
      }
    }
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
    const d = this.opti ? this.chooseOpti(k, worker) : this.chooseBest(k);
    if (d >= 0) {
      const tasks: number[] = [];
      for (let i = this.readersStart[d]!; i < this.readersStart[d + 1]!; i++) {
        const t = this.readers[i]!;
        if (this.where[t] === IN_POOL && this.missing[k * this.T + t] === 1 && this.ctx.canRun(t, worker)) {
          tasks.push(t);
        }
      }
      if (tasks.length > 0) {
        this.plan(k, tasks, this.share(k));
        this.setLoaded(k, d);
        return -1;
      }
    }
    // Line 14: a random unprocessed task.
    if (this.pool.size === 0) return -1;
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

  /** The datum freeing the most tasks on k, with the seed's tie-breaks; -1 if none frees any. */
  private chooseBest(k: number): number {
    let c = this.maxBucket[k]!;
    while (c > 0 && this.bucketHead[k * this.B + c] === -1) c--;
    this.maxBucket[k] = c;
    if (c === 0) return -1;
    let best = -1;
    let bestN2 = -1;
    let bestUnprocessed = -1;
    let bestPriority = Number.NEGATIVE_INFINITY;
    let ties = 0;
    let scanned = 0;
    for (let d = this.bucketHead[k * this.B + c]!; d >= 0; d = this.bucketNext[k * this.H + d]!) {
      if (this.threshold > 0 && scanned++ >= this.threshold) break;
      const n2 = this.threeInputs ? this.oneAwayCount(k, d) : 0;
      if (n2 < bestN2) continue;
      const un = this.unprocessed[d]!;
      if (n2 === bestN2 && un < bestUnprocessed) continue;
      const pr = this.hasPriorities ? this.maxPoolPriority(d) : 0;
      if (n2 === bestN2 && un === bestUnprocessed) {
        if (pr < bestPriority) continue;
        if (pr === bestPriority) {
          // Reservoir sampling keeps a uniform choice among equal candidates.
          ties++;
          if (this.ctx.random(ties) === 0) best = d;
          continue;
        }
      }
      best = d;
      bestN2 = n2;
      bestUnprocessed = un;
      bestPriority = pr;
      ties = 1;
    }
    return best;
  }

  /** The "opti" order: smallest transfer time over compute time freed, among data freeing tasks. */
  private chooseOpti(k: number, worker: number): number {
    const node = this.ctx.platform.workers[worker]!.node;
    let best = -1;
    let bestRatio = Number.POSITIVE_INFINITY;
    let scanned = 0;
    for (let c = this.maxBucket[k]!; c > 0; c--) {
      for (let d = this.bucketHead[k * this.B + c]!; d >= 0; d = this.bucketNext[k * this.H + d]!) {
        if (this.threshold > 0 && scanned++ >= this.threshold) return best;
        let compute = 0;
        for (let i = this.readersStart[d]!; i < this.readersStart[d + 1]!; i++) {
          const t = this.readers[i]!;
          if (this.where[t] === IN_POOL && this.missing[k * this.T + t] === 1)
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
    let n = 0;
    for (let i = this.readersStart[d]!; i < this.readersStart[d + 1]!; i++) {
      const t = this.readers[i]!;
      if (this.where[t] === IN_POOL && this.missing[k * this.T + t] === 2) n++;
    }
    return n;
  }

  private maxPoolPriority(d: number): number {
    const pr = this.ctx.graph.taskPriority.data;
    let best = Number.NEGATIVE_INFINITY;
    for (let i = this.readersStart[d]!; i < this.readersStart[d + 1]!; i++) {
      const t = this.readers[i]!;
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
    for (const t of tasks) {
      this.removeFromPool(t);
      this.where[t] = k;
      list.push(t);
      this.plannedAt[t] = this.plans++;
      this.index?.add(t, k, 0, this.plannedAt[t]!);
      for (let i = this.inStart[t]!; i < this.inStart[t + 1]!; i++)
        this.plannedUses[k * this.H + this.inHandle[i]!]!++;
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
    for (let i = this.inStart[t]!; i < this.inStart[t + 1]!; i++)
      this.plannedUses[k * this.H + this.inHandle[i]!]!--;
  }

  /** Hands task t to GPU k: its inputs are (about to be) in k's memory. */
  private take(k: number, t: number): number {
    this.where[t] = TAKEN;
    for (let i = this.inStart[t]!; i < this.inStart[t + 1]!; i++) this.setLoaded(k, this.inHandle[i]!);
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
    const H = this.H;
    for (let i = this.inStart[t]!; i < this.inStart[t + 1]!; i++) this.unprocessed[this.inHandle[i]!]!++;
    for (let k = 0; k < this.K; k++) {
      let m = 0;
      let last = -1;
      for (let i = this.inStart[t]!; i < this.inStart[t + 1]!; i++) {
        const h = this.inHandle[i]!;
        if (this.loaded[k * H + h] === 0) {
          m++;
          last = h;
        }
      }
      this.missing[k * this.T + t] = m;
      if (m === 0) this.freeTasks[k]!.add(t);
      else if (m === 1) this.bumpFree(k, last, 1);
    }
  }

  private removeFromPool(t: number): void {
    this.pool.delete(t);
    this.where[t] = TAKEN;
    for (let i = this.inStart[t]!; i < this.inStart[t + 1]!; i++) this.unprocessed[this.inHandle[i]!]!--;
    for (let k = 0; k < this.K; k++) {
      const m = this.missing[k * this.T + t]!;
      if (m === 0) this.freeTasks[k]!.delete(t);
      else if (m === 1) this.bumpFree(k, this.onlyMissing(k, t), -1);
    }
  }

  private onlyMissing(k: number, t: number): number {
    for (let i = this.inStart[t]!; i < this.inStart[t + 1]!; i++) {
      const h = this.inHandle[i]!;
      if (this.loaded[k * this.H + h] === 0) return h;
    }
    return -1;
  }

  /** D enters k's memory (leaves dataNotInMem_k). */
  private setLoaded(k: number, d: number): void {
    const kd = k * this.H + d;
    if (this.loaded[kd] === 1) return;
    this.loaded[kd] = 1;
    this.unbucket(k, d);
    for (let i = this.readersStart[d]!; i < this.readersStart[d + 1]!; i++) {
      const t = this.readers[i]!;
      if (this.where[t] !== IN_POOL) continue;
      const m = --this.missing[k * this.T + t]!;
      if (m === 1) {
        this.bumpFree(k, this.onlyMissing(k, t), 1);
      } else if (m === 0) {
        this.freeCount[kd]!--;
        this.freeTasks[k]!.add(t);
      }
    }
  }

  /** D leaves k's memory (back into dataNotInMem_k). */
  private setUnloaded(k: number, d: number): void {
    const kd = k * this.H + d;
    if (this.loaded[kd] === 0) return;
    for (let i = this.readersStart[d]!; i < this.readersStart[d + 1]!; i++) {
      const t = this.readers[i]!;
      if (this.where[t] !== IN_POOL) continue;
      const m = ++this.missing[k * this.T + t]!;
      if (m === 1) {
        this.freeTasks[k]!.delete(t);
        this.freeCount[kd]!++;
      } else if (m === 2) {
        // The other missing input stops being the only one (d is not marked unloaded yet).
        this.bumpFree(k, this.onlyMissing(k, t), -1);
      }
    }
    this.loaded[kd] = 0;
    if (this.freeCount[kd]! > 0) this.bucket(k, d, this.freeCount[kd]!);
  }

  /** free_k(D) += delta, moving D between buckets when it is not in k's memory. */
  private bumpFree(k: number, d: number, delta: number): void {
    const kd = k * this.H + d;
    this.freeCount[kd]! += delta;
    const c = this.freeCount[kd]!;
    if (this.loaded[kd] === 1) return;
    this.unbucket(k, d);
    if (c > 0) this.bucket(k, d, c);
  }

  private bucket(k: number, d: number, c: number): void {
    const kd = k * this.H + d;
    const slot = k * this.B + c;
    const head = this.bucketHead[slot]!;
    this.bucketNext[kd] = head;
    this.bucketPrev[kd] = -1;
    if (head >= 0) this.bucketPrev[k * this.H + head] = d;
    this.bucketHead[slot] = d;
    this.bucketOf[kd] = c;
    if (c > this.maxBucket[k]!) this.maxBucket[k] = c;
  }

  private unbucket(k: number, d: number): void {
    const kd = k * this.H + d;
    const c = this.bucketOf[kd]!;
    if (c === 0) return;
    const prev = this.bucketPrev[kd]!;
    const next = this.bucketNext[kd]!;
    if (prev >= 0) this.bucketNext[k * this.H + prev] = next;
    else this.bucketHead[k * this.B + c] = next;
    if (next >= 0) this.bucketPrev[k * this.H + next] = prev;
    this.bucketOf[kd] = 0;
  }
}
