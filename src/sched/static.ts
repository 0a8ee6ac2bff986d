/**
 * STATIC (seed 001, section V.B.1: "a trivial static allocation"): each task runs on the GPU
 * that owns its part of the data. A task's part is its affinity hint (a stencil block); parts
 * are split into contiguous ranges, one per GPU (OwnerMap), so neighbouring blocks share a
 * GPU and only range borders cross GPUs. A task without affinity goes round-robin over the
 * GPUs. Per-GPU FIFO queues. Cost: O(1) per push and pop.
 */
import { IntQueue } from '../core/growable.ts';
import type { SchedContext, Scheduler } from '../core/policy.ts';
import { LocusError } from '../core/types.ts';
import { OwnerMap } from './owner.ts';

/** Owner-computes placement over the affinity hints. */
export class StaticScheduler implements Scheduler {
  readonly name = 'static';
  private ctx!: SchedContext;
  private queues: IntQueue[] = [];
  private readonly owners = new OwnerMap();
  private next = 0;

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    this.owners.init(ctx);
    if (this.owners.gpuWorkers.length === 0) {
      throw new LocusError('scheduler static binds tasks to GPUs: the platform has none');
    }
    this.queues = ctx.platform.workers.map(() => new IntQueue());
  }

  push(task: number): void {
    const part = this.ctx.graph.taskAffinity.data[task]!;
    const gpus = this.owners.gpuWorkers;
    let w = part >= 0 ? this.owners.ownerOf(part) : gpus[this.next++ % gpus.length]!;
    if (!this.ctx.canRun(task, w))
      w = this.ctx.platform.workers.findIndex((_, i) => this.ctx.canRun(task, i));
    this.queues[w]!.push(task);
  }

  pop(worker: number): number {
    const q = this.queues[worker]!;
    return q.length > 0 ? q.shift() : -1;
  }

  plannedTasks(worker: number): number[] {
    const q = this.queues[worker]!;
    const out: number[] = [];
    for (let i = 0; i < q.length; i++) out.push(q.at(i));
    return out;
  }
}
