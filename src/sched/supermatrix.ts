/**
 * SuperMatrix's hybrid scheduler (seed 002): one worker per CPU core, a GPU's control thread
 * taking one core (the presets leave those cores out of the CPU workers). Tasks on the DAG's
 * critical path go to the priority queue of the fastest resource able to run them; the others
 * to one shared FIFO queue. A worker takes from its own priority queue first, then from the
 * shared queue.
 *
 * Critical path (computed once, at init): with each task's cost its fastest duration over the
 * workers that can run it, top(t) = longest path from an entry task to t's start and
 * bottom(t) = longest path from t's start to an exit (seed 000's bottom level, cost included);
 * t is critical when top(t) + bottom(t) equals the longest path of the graph (within 1e-9).
 * A critical task goes to the fastest worker kind; among its workers, the one whose priority
 * queue holds the least work.
 *
 * `supermatrix-noprio` is the original scheduler without priority queues (every task in the
 * shared queue), the seed's baseline for its 20% gain.
 *
 * Costs: init O(V + E + V W); push O(W); pop O(1), or O(k) when the k first shared tasks
 * cannot run on the worker (kinds).
 */
import { IntQueue } from '../core/growable.ts';
import type { SchedContext, Scheduler } from '../core/policy.ts';

/** SuperMatrix with (or without) per-worker priority queues for critical tasks. */
export class SuperMatrixScheduler implements Scheduler {
  readonly name: string;
  private ctx!: SchedContext;
  private critical = new Uint8Array(0);
  private fastest = new Float64Array(0);
  private priority: IntQueue[] = [];
  private priorityWork = new Float64Array(0);
  private shared: number[] = [];
  private sharedHead = 0;

  constructor(private readonly usePriorities: boolean) {
    this.name = usePriorities ? 'supermatrix' : 'supermatrix-noprio';
  }

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    const g = ctx.graph;
    const T = g.taskCount;
    const W = ctx.platform.workers.length;
    this.priority = ctx.platform.workers.map(() => new IntQueue());
    this.priorityWork = new Float64Array(W);
    this.shared = [];
    this.sharedHead = 0;
    this.fastest = new Float64Array(T);
    for (let t = 0; t < T; t++) {
      let best = Number.POSITIVE_INFINITY;
      for (let w = 0; w < W; w++) if (ctx.canRun(t, w)) best = Math.min(best, ctx.taskDuration(t, w));
      this.fastest[t] = Number.isFinite(best) ? best : 0;
    }
    this.critical = new Uint8Array(T);
    if (!this.usePriorities || T === 0) return;
    const bottom = g.bottomLevels((t) => this.fastest[t]!);
    const order = g.topologicalOrder();
    const top = new Float64Array(T);
    let longest = 0;
    for (const t of order) {
      const end = top[t]! + this.fastest[t]!;
      for (let e = g.succHead.data[t]!; e >= 0; e = g.edgeNext.data[e]!) {
        const s = g.edgeTarget.data[e]!;
        if (end > top[s]!) top[s] = end;
      }
      if (bottom[t]! > longest) longest = bottom[t]!;
    }
    const tol = longest * 1e-9;
    for (let t = 0; t < T; t++) if (top[t]! + bottom[t]! >= longest - tol) this.critical[t] = 1;
  }

  /** Whether `task` is on the critical path (for tests and reports). */
  isCritical(task: number): boolean {
    return this.critical[task] === 1;
  }

  push(task: number): void {
    if (this.critical[task] !== 1) {
      this.shared.push(task);
      return;
    }
    const ctx = this.ctx;
    let best = -1;
    let bestDur = Number.POSITIVE_INFINITY;
    let bestWork = Number.POSITIVE_INFINITY;
    for (let w = 0; w < ctx.platform.workers.length; w++) {
      if (!ctx.canRun(task, w)) continue;
      const d = ctx.taskDuration(task, w);
      // The fastest kind first (1% slack for rounding), then the least loaded queue.
      if (d < bestDur * 0.99 || (d <= bestDur * 1.01 && this.priorityWork[w]! < bestWork)) {
        best = w;
        bestDur = Math.min(bestDur, d);
        bestWork = this.priorityWork[w]!;
      }
    }
    this.priority[best]!.push(task);
    this.priorityWork[best]! += bestDur;
  }

  pop(worker: number): number {
    const q = this.priority[worker]!;
    if (q.length > 0) {
      const t = q.shift();
      this.priorityWork[worker]! -= this.ctx.taskDuration(t, worker);
      if (q.length === 0) this.priorityWork[worker] = 0;
      return t;
    }
    for (let i = this.sharedHead; i < this.shared.length; i++) {
      const t = this.shared[i]!;
      if (!this.ctx.canRun(t, worker)) continue;
      if (i === this.sharedHead) {
        this.sharedHead++;
        if (this.sharedHead > 1024 && this.sharedHead * 2 > this.shared.length) {
          this.shared = this.shared.slice(this.sharedHead);
          this.sharedHead = 0;
        }
      } else {
        this.shared.splice(i, 1);
      }
      return t;
    }
    return -1;
  }

  plannedTasks(worker: number): number[] {
    const q = this.priority[worker]!;
    const out: number[] = [];
    for (let i = 0; i < q.length; i++) out.push(q.at(i));
    return out;
  }
}
