/**
 * LWS, locality work stealing (StarPU's `lws`, StarPU's default scheduler): one queue per
 * worker, highest priority first and then push order (StarPU's prio deques).
 *
 * push: a task goes where its data are. Each worker that can run it scores the bytes of its
 * inputs valid or loading on the worker's memory node, not counting the home node (the host
 * memory, which ends up holding everything). The worker whose finished task made it ready
 * (StarPU's rule: it wrote the data the task reads) takes it when it scores as high as any;
 * otherwise the highest score wins, ties to the fewest queued tasks; when no node but the home
 * holds any input (at start, on a machine of CPUs), the releasing worker keeps it, else the
 * workers take turns (round-robin, as StarPU's lws when no worker released the task).
 *
 * pop: the worker's own queue first. An idle worker steals from its neighbours, nearest first:
 * the workers of its own memory node, then the others, each in turn from the worker after it;
 * it takes the first task of the victim's queue that it can run. Across memory nodes (a steal
 * that moves data) it only steals from a victim with at least 2 tasks queued, leaving the
 * victim its next one: on a loaded machine, where workers run at uneven speeds, tasks then do
 * not wander between devices for a passing imbalance. Deterministic.
 *
 * Costs: push O(N a) replica checks for N memory nodes and a task of a accesses, plus
 * O(W) and a heap push O(log q); own pop O(log q); a steal O(W) victims plus the scan of a
 * victim's queue in order (the first task when kinds are uniform).
 */
import { growF64, growI32 } from '../core/growable.ts';
import type { SchedContext, Scheduler } from '../core/policy.ts';
import { AccessMode } from '../core/types.ts';
import { TaskHeap } from './dm/heap.ts';

/** Per-worker priority queues, placed by data locality, with stealing from neighbours. */
export class LocalityWorkStealingScheduler implements Scheduler {
  readonly name = 'lws';
  /** Keeps per-task tables that grow: takes tasks submitted while it runs. */
  readonly dynamic = true;
  private ctx!: SchedContext;
  private nw = 0;
  private queues: TaskHeap[] = [];
  private workerNode = new Int32Array(0);
  /** Per worker: the other workers, its node's first, each group from the worker after it. */
  private neighbours: Int32Array[] = [];
  private seq: Float64Array<ArrayBuffer> = new Float64Array(0);
  private pos: Int32Array<ArrayBuffer> = new Int32Array(0);
  private pushes = 0;
  private next = 0;
  private score = new Float64Array(0);
  private scored = new Int32Array(0);
  private stamp = 0;

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    const p = ctx.platform;
    this.nw = p.workers.length;
    this.workerNode = Int32Array.from(p.workers, (w) => w.node);
    this.seq = new Float64Array(ctx.taskCapacity);
    this.pos = new Int32Array(ctx.taskCapacity).fill(-1);
    this.pushes = 0;
    this.next = 0;
    this.score = new Float64Array(p.nodes.length);
    this.scored = new Int32Array(p.nodes.length);
    this.stamp = 0;
    // Read the tables through `this` and the graph: both grow with dynamic submission.
    const less = (a: number, b: number) => {
      const prio = ctx.graph.taskPriority.data;
      return prio[a]! > prio[b]! || (prio[a] === prio[b] && this.seq[a]! < this.seq[b]!);
    };
    this.queues = p.workers.map(() => new TaskHeap(less, this.pos));
    this.neighbours = p.workers.map((_, w) => {
      const order: number[] = [];
      for (const sameNode of [true, false]) {
        for (let k = 1; k < this.nw; k++) {
          const v = (w + k) % this.nw;
          if ((this.workerNode[v] === this.workerNode[w]) === sameNode) order.push(v);
        }
      }
      return Int32Array.from(order);
    });
  }

  grow(tasks: number): void {
    this.seq = growF64(this.seq, tasks);
    this.pos = growI32(this.pos, tasks, -1);
    for (const q of this.queues) q.setPositions(this.pos);
  }

  push(task: number): void {
    if (task >= this.seq.length) this.grow(Math.max(task + 1, 2 * this.seq.length));
    const w = this.place(task);
    this.seq[task] = this.pushes++;
    this.queues[w]!.push(task);
  }

  /** The engine recycled tasks [0, k): per-task tables and queued ids shift down. O(tasks held). */
  rebase(k: number): void {
    this.seq.copyWithin(0, k);
    this.pos.copyWithin(0, k);
    this.pos.fill(-1, this.pos.length - k);
    for (const q of this.queues) q.rebase(k);
  }

  pop(worker: number): number {
    const own = this.queues[worker]!;
    if (own.size > 0) return own.pop();
    const node = this.workerNode[worker]!;
    for (const v of this.neighbours[worker]!) {
      const q = this.queues[v]!;
      if (q.size === 0 || (this.workerNode[v] !== node && q.size < 2)) continue;
      for (const t of q.ordered()) {
        if (this.ctx.canRun(t, worker)) {
          q.remove(t);
          return t;
        }
      }
    }
    return -1;
  }

  /** The worker's own queue in the order it pops it. */
  *plannedTasks(worker: number): Generator<number> {
    yield* this.queues[worker]!.ordered();
  }

  /** The worker `task` is queued on (see the rule in the file's comment). */
  private place(task: number): number {
    const ctx = this.ctx;
    const released = ctx.currentWorker();
    const stamp = ++this.stamp;
    let best = -1;
    let bestScore = 0;
    for (let w = 0; w < this.nw; w++) {
      if (!ctx.canRun(task, w)) continue;
      const s = this.nodeScore(task, this.workerNode[w]!, stamp);
      if (best < 0 || s > bestScore || (s === bestScore && this.queues[w]!.size < this.queues[best]!.size)) {
        best = w;
        bestScore = s;
      }
    }
    if (best < 0) throw new Error(`scheduler lws: no worker can run task ${task}`);
    if (released >= 0 && ctx.canRun(task, released)) {
      if (this.nodeScore(task, this.workerNode[released]!, stamp) >= bestScore) return released;
    }
    if (bestScore > 0) return best;
    for (let k = 0; k < this.nw; k++) {
      const w = (this.next + k) % this.nw;
      if (!ctx.canRun(task, w)) continue;
      this.next = (w + 1) % this.nw;
      return w;
    }
    return best;
  }

  /** Bytes of `task`'s inputs valid or loading on `node` (0 on the home node), once per push. */
  private nodeScore(task: number, node: number, stamp: number): number {
    if (this.scored[node] === stamp) return this.score[node]!;
    this.scored[node] = stamp;
    let sum = 0;
    const ctx = this.ctx;
    if (node !== ctx.platform.homeNode) {
      const g = ctx.graph;
      const end = g.accessStart.data[task + 1]!;
      for (let a = g.accessStart.data[task]!; a < end; a++) {
        if (!(g.accessMode.data[a]! & AccessMode.R)) continue;
        const h = g.accessHandle.data[a]!;
        if (ctx.isValidOrLoading(h, node)) sum += g.handleSize.data[h]!;
      }
    }
    this.score[node] = sum;
    return sum;
  }
}
