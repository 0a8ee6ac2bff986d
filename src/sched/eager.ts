/**
 * EAGER (seed 000 section 4.1, StarPU's `eager`): one queue shared by all workers, in the
 * order tasks became ready (submission order when all are ready at once); an idle worker
 * takes the first task it can run. No locality: the baseline of seed 000's figures.
 * Cost per pop: O(1) when the head is runnable by the worker, else a scan of the queue.
 */
import { IntQueue } from '../core/growable.ts';
import type { SchedContext, Scheduler } from '../core/policy.ts';

/** The shared-FIFO baseline. */
export class EagerScheduler implements Scheduler {
  readonly name = 'eager';
  /** Keeps no per-task table: takes tasks submitted while it runs. */
  readonly dynamic = true;
  private ctx!: SchedContext;
  private readonly queue = new IntQueue();

  init(ctx: SchedContext): void {
    this.ctx = ctx;
  }

  push(task: number): void {
    this.queue.push(task);
  }

  /** The engine recycled tasks [0, k): the queued ids shift down. */
  rebase(k: number): void {
    this.queue.addToAll(-k);
  }

  pop(worker: number): number {
    const q = this.queue;
    if (q.length === 0) return -1;
    if (this.ctx.canRun(q.peek(), worker)) return q.shift();
    for (let i = 1; i < q.length; i++) {
      const t = q.at(i);
      if (this.ctx.canRun(t, worker)) {
        q.removeAt(i);
        return t;
      }
    }
    return -1;
  }
}
