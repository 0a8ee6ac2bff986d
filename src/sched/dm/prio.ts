/**
 * PRIO (StarPU's `prio`): one central queue shared by all workers, highest priority
 * (graph.taskPriority) first, ties in push order; a worker takes the best task it can run.
 * Workers that can run the same tasks (same kind, same memory size) share a class; each
 * class has a heap of the tasks its workers can run, and a task taken by one class is
 * dropped lazily from the others' heaps. Costs: push O(C log n) for C classes (usually 1 or
 * 2), pop O(log n) amortised.
 */
import { growF64, growU8 } from '../../core/growable.ts';
import type { SchedContext, Scheduler } from '../../core/policy.ts';
import { PlanIndex, type PlanView } from '../plan-index.ts';
import { TaskHeap } from './heap.ts';

/** Entries plannedTasks yields at most (eviction policies read the head of the queue). */
export const PRIO_PLANNED_CAP = 4096;

/** Central priority queue. */
export class PrioScheduler implements Scheduler {
  readonly name = 'prio';
  readonly dynamic = true;
  private ctx!: SchedContext;
  private heaps: TaskHeap[] = [];
  private classOf = new Int32Array(0);
  private representative: number[] = [];
  private seq = new Float64Array(0);
  private taken = new Uint8Array(0);
  private pushes = 0;
  // Per class, the untaken tasks of its heap in the same order (for eviction policies).
  private indexes: PlanIndex[] | undefined;

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    const g = ctx.graph;
    const p = ctx.platform;
    this.seq = new Float64Array(ctx.taskCapacity);
    this.taken = new Uint8Array(ctx.taskCapacity);
    // Read the tables through `this` and the graph: both grow with dynamic submission.
    const less = (a: number, b: number) => {
      const prio = g.taskPriority.data;
      return prio[a]! > prio[b]! || (prio[a] === prio[b] && this.seq[a]! < this.seq[b]!);
    };
    const keys = new Map<string, number>();
    this.classOf = new Int32Array(p.workers.length);
    p.workers.forEach((w, i) => {
      const key = `${w.kind}:${p.nodes[w.node]!.capacity}`;
      let c = keys.get(key);
      if (c === undefined) {
        c = this.heaps.length;
        keys.set(key, c);
        this.heaps.push(new TaskHeap(less));
        this.representative.push(i);
      }
      this.classOf[i] = c;
    });
  }

  grow(tasks: number): void {
    this.seq = growF64(this.seq, tasks);
    this.taken = growU8(this.taken, tasks);
  }

  push(task: number): void {
    this.seq[task] = this.pushes++;
    for (let c = 0; c < this.heaps.length; c++) {
      if (this.ctx.canRun(task, this.representative[c]!)) {
        this.heaps[c]!.push(task);
        if (this.indexes)
          this.indexes[c]!.add(task, 0, -this.ctx.graph.taskPriority.data[task]!, this.seq[task]!);
      }
    }
  }

  /**
   * The engine recycled tasks [0, k): per-task tables shift down, each heap drops the entries
   * of recycled tasks (taken by another class) and shifts the others; the indexes are rebuilt
   * on use. O(tasks held).
   */
  rebase(k: number): void {
    this.seq.copyWithin(0, k);
    this.taken.copyWithin(0, k);
    this.taken.fill(0, this.taken.length - k);
    for (const h of this.heaps) h.rebase(k);
    this.indexes = undefined;
  }

  pop(worker: number): number {
    const h = this.heaps[this.classOf[worker]!]!;
    while (h.size > 0) {
      const t = h.pop();
      if (this.taken[t] === 0) {
        this.taken[t] = 1;
        if (this.indexes) for (const index of this.indexes) index.remove(t);
        return t;
      }
    }
    return -1;
  }

  /**
   * The shared queue as this worker sees it, every untaken task, in plannedTasks' order (an
   * eviction policy reading it does not stop at PRIO_PLANNED_CAP).
   */
  plannedIndex(worker: number): PlanView {
    if (this.indexes === undefined) {
      // Built on first use (an eviction policy asks), kept up to date from then on.
      const prio = this.ctx.graph.taskPriority.data;
      this.indexes = this.heaps.map((h) => {
        const index = new PlanIndex(this.ctx.graph, 1);
        for (const t of h.ordered()) if (this.taken[t] === 0) index.add(t, 0, -prio[t]!, this.seq[t]!);
        return index;
      });
    }
    return { index: this.indexes[this.classOf[worker]!]!, group: 0 };
  }

  /** The shared queue as this worker sees it, in priority order, at most PRIO_PLANNED_CAP tasks. */
  *plannedTasks(worker: number): Generator<number> {
    let n = 0;
    for (const t of this.heaps[this.classOf[worker]!]!.ordered()) {
      if (this.taken[t] === 1) continue;
      yield t;
      if (++n >= PRIO_PLANNED_CAP) return;
    }
  }
}
