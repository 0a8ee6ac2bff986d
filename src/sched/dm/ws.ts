/**
 * WS, work stealing (StarPU's `ws`): one deque per worker. A task made ready by a worker's
 * finished task goes to that worker's deque when it can run it; otherwise (at start, after a
 * transfer, or when it cannot) to the next worker able to run it in round-robin order. A
 * worker pops the newest task of its own deque (LIFO: depth first, warm data); when its
 * deque is empty it steals the oldest task it can run from the worker with the most queued
 * tasks (ties: lowest index; a victim with nothing it can run is skipped). Deterministic.
 * Costs: push O(1) (O(W) in round-robin), own pop O(1), steal O(W) victim choices plus the
 * scan of the victim's deque for a runnable task (the first one when kinds are uniform).
 */
import { growF64 } from '../../core/growable.ts';
import type { SchedContext, Scheduler } from '../../core/policy.ts';
import { PlanIndex, type PlanView } from '../plan-index.ts';
import { IntDeque } from './queues.ts';

/** Per-worker deques with stealing. */
export class WorkStealingScheduler implements Scheduler {
  readonly name = 'ws';
  /** Keeps no per-task table: takes tasks submitted while it runs. */
  readonly dynamic = true;
  private ctx!: SchedContext;
  private deques: IntDeque[] = [];
  private nw = 0;
  private next = 0;
  private tried = new Int32Array(0);
  private stamp = 0;
  // The deques in plannedTasks' order, newest first (key: minus the push count).
  private index: PlanIndex | undefined;
  private pushedAt = new Float64Array(0);
  private pushes = 0;

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    this.nw = ctx.platform.workers.length;
    this.deques = ctx.platform.workers.map(() => new IntDeque());
    this.tried = new Int32Array(this.nw);
    this.index = undefined;
    this.pushedAt = new Float64Array(ctx.taskCapacity);
    this.pushes = 0;
  }

  push(task: number): void {
    if (task >= this.pushedAt.length)
      this.pushedAt = growF64(this.pushedAt, Math.max(task + 1, 2 * this.pushedAt.length));
    const ctx = this.ctx;
    const cw = ctx.currentWorker();
    if (cw >= 0 && ctx.canRun(task, cw)) {
      this.deques[cw]!.pushBack(task);
      this.pushedAt[task] = this.pushes++;
      this.index?.add(task, cw, 0, -this.pushedAt[task]!);
      return;
    }
    for (let k = 0; k < this.nw; k++) {
      const w = (this.next + k) % this.nw;
      if (!ctx.canRun(task, w)) continue;
      this.deques[w]!.pushBack(task);
      this.pushedAt[task] = this.pushes++;
      this.index?.add(task, w, 0, -this.pushedAt[task]!);
      this.next = (w + 1) % this.nw;
      return;
    }
    throw new Error(`scheduler ws: no worker can run task ${task}`);
  }

  /** The engine recycled tasks [0, k): queued ids shift down, the index is rebuilt on use. O(tasks held). */
  rebase(k: number): void {
    for (const d of this.deques) d.addToAll(-k);
    this.pushedAt.copyWithin(0, k);
    this.index = undefined;
  }

  pop(worker: number): number {
    const own = this.deques[worker]!;
    if (own.length > 0) {
      const t = own.popBack();
      this.index?.remove(t);
      return t;
    }
    const stamp = ++this.stamp;
    for (;;) {
      let victim = -1;
      for (let v = 0; v < this.nw; v++) {
        if (v === worker || this.tried[v] === stamp) continue;
        const len = this.deques[v]!.length;
        if (len > 0 && (victim < 0 || len > this.deques[victim]!.length)) victim = v;
      }
      if (victim < 0) return -1;
      this.tried[victim] = stamp;
      const d = this.deques[victim]!;
      for (let i = 0; i < d.length; i++) {
        const t = d.at(i);
        if (this.ctx.canRun(t, worker)) {
          d.removeAt(i);
          this.index?.remove(t);
          return t;
        }
      }
    }
  }

  /** The index of the worker's deque (see PlanIndex). */
  plannedIndex(worker: number): PlanView {
    if (this.index === undefined) {
      // Built on first use (an eviction policy asks), kept up to date from then on.
      const index = new PlanIndex(this.ctx.graph, this.nw);
      this.deques.forEach((d, w) => {
        for (let i = 0; i < d.length; i++) index.add(d.at(i), w, 0, -this.pushedAt[d.at(i)]!);
      });
      this.index = index;
    }
    return { index: this.index, group: worker };
  }

  /** The worker's own deque, newest first (the order it pops it). */
  *plannedTasks(worker: number): Generator<number> {
    const d = this.deques[worker]!;
    for (let i = d.length - 1; i >= 0; i--) yield d.at(i);
  }
}
