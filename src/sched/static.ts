/**
 * STATIC (seed 001, section V.B.1: "a trivial static allocation"): each task runs on the GPU
 * that owns its part of the data. A task's part is its affinity hint (a stencil block); parts
 * are split into as many contiguous ranges as there are GPUs (blocks b of B go to GPU
 * floor(b G / B)), so neighbouring blocks share a GPU and only range borders cross GPUs. A
 * task without affinity goes to the GPU that owns its first written handle's part if it has
 * one, else round-robin. Per-GPU FIFO queues. Cost: O(1) per push and pop.
 */
import { IntQueue } from '../core/growable.ts';
import type { SchedContext, Scheduler } from '../core/policy.ts';
import { LocusError } from '../core/types.ts';

/** Owner-computes placement over the affinity hints. */
export class StaticScheduler implements Scheduler {
  readonly name = 'static';
  private ctx!: SchedContext;
  private queues: IntQueue[] = [];
  private gpus: number[] = [];
  private parts = 1;
  private next = 0;

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    this.gpus = ctx.platform.workers.flatMap((w, i) => (w.kind === 'gpu' ? [i] : []));
    if (this.gpus.length === 0)
      throw new LocusError('scheduler static binds tasks to GPUs: the platform has none');
    this.queues = ctx.platform.workers.map(() => new IntQueue());
    const aff = ctx.graph.taskAffinity;
    let max = -1;
    for (let t = 0; t < aff.length; t++) if (aff.data[t]! > max) max = aff.data[t]!;
    this.parts = max + 1;
  }

  /** The worker that owns part `part` (contiguous ranges of parts per GPU). */
  ownerOf(part: number): number {
    return this.gpus[
      Math.min(this.gpus.length - 1, Math.floor((part * this.gpus.length) / Math.max(1, this.parts)))
    ]!;
  }

  push(task: number): void {
    const part = this.ctx.graph.taskAffinity.data[task]!;
    let w = part >= 0 ? this.ownerOf(part) : this.gpus[this.next++ % this.gpus.length]!;
    if (!this.ctx.canRun(task, w)) {
      const able = this.ctx.platform.workers.findIndex((_, i) => this.ctx.canRun(task, i));
      w = able;
    }
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
