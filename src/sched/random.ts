/**
 * RANDOM (StarPU's `random`): each ready task goes, when pushed, to a worker drawn at random
 * among those able to run it, with probability proportional to the worker's speed for that
 * task (1 / expected duration); workers pop their own queue in order. Draws come from the
 * run's seeded generator, so runs are reproducible. Cost per push: O(workers).
 */
import { IntQueue } from '../core/growable.ts';
import type { SchedContext, Scheduler } from '../core/policy.ts';

/** Speed-weighted random placement. */
export class RandomScheduler implements Scheduler {
  readonly name = 'random';
  /** Keeps no per-task table: takes tasks submitted while it runs. */
  readonly dynamic = true;
  private ctx!: SchedContext;
  private queues: IntQueue[] = [];
  private weights = new Float64Array(0);

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    const n = ctx.platform.workers.length;
    this.queues = Array.from({ length: n }, () => new IntQueue());
    this.weights = new Float64Array(n);
  }

  /** The engine recycled tasks [0, k): the queued ids shift down. */
  rebase(k: number): void {
    for (const q of this.queues) q.addToAll(-k);
  }

  push(task: number): void {
    const n = this.queues.length;
    let total = 0;
    for (let w = 0; w < n; w++) {
      const ok = this.ctx.canRun(task, w);
      const d = ok ? this.ctx.taskDuration(task, w) : 0;
      this.weights[w] = ok ? 1 / Math.max(d, 1e-12) : 0;
      total += this.weights[w]!;
    }
    // Draw in [0, 2^20) and scale, so the weights need no integer rounding.
    let x = (this.ctx.random(1 << 20) / (1 << 20)) * total;
    let chosen = -1;
    for (let w = 0; w < n; w++) {
      if (this.weights[w] === 0) continue;
      chosen = w;
      x -= this.weights[w]!;
      if (x < 0) break;
    }
    this.queues[chosen]!.push(task);
  }

  pop(worker: number): number {
    const q = this.queues[worker]!;
    return q.length > 0 ? q.shift() : -1;
  }
}
