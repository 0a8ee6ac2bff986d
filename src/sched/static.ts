/**
 * STATIC, owner-computes: each task runs on the GPU that owns its data.
 * - A task that writes a matrix block (a handle with block coordinates) runs on the GPU the
 *   block mapping gives (seed 004: 2-D block-cyclic by default, or row-, column-cyclic, or a
 *   grid from a file; mapping.ts).
 * - Otherwise its part is its affinity hint (seed 001 V.B.1's stencil blocks, "a trivial
 *   static allocation"); parts are split into contiguous ranges, one per GPU (OwnerMap), so
 *   neighbouring blocks share a GPU and only range borders cross GPUs.
 * - A task with neither goes round-robin over the GPUs.
 * Per-GPU FIFO queues. Cost: O(a) per push, O(1) per pop.
 */
import { IntQueue } from '../core/growable.ts';
import type { SchedContext, Scheduler } from '../core/policy.ts';
import { AccessMode, LocusError } from '../core/types.ts';
import { type BlockMapping, blockOwner, parseMapping } from './mapping.ts';
import type { SchedulerOptions } from './options.ts';
import { OwnerMap } from './owner.ts';

/** Owner-computes placement over the affinity hints. */
export class StaticScheduler implements Scheduler {
  readonly name = 'static';
  private ctx!: SchedContext;
  private queues: IntQueue[] = [];
  private readonly owners = new OwnerMap();
  private next = 0;
  private mapping: BlockMapping | undefined;

  constructor(private readonly options: SchedulerOptions = {}) {}

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    this.owners.init(ctx);
    if (this.owners.gpuWorkers.length === 0) {
      throw new LocusError(
        'LOCUS_POLICY_INCOMPATIBLE',
        'scheduler static binds tasks to GPUs: the platform has none',
      );
    }
    this.queues = ctx.platform.workers.map(() => new IntQueue());
    this.mapping = this.options.mapping ?? parseMapping('2d', this.owners.gpuWorkers.length);
  }

  /** The GPU worker owning the first block `task` writes, -1 when it writes none. */
  private blockOwner(task: number): number {
    const g = this.ctx.graph;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      if (!(g.accessMode.data[a]! & AccessMode.W)) continue;
      const h = g.accessHandle.data[a]!;
      const i = g.handleBlockRow.data[h]!;
      const j = g.handleBlockCol.data[h]!;
      if (i < 0 || j < 0) continue;
      const gpus = this.owners.gpuWorkers;
      return gpus[blockOwner(this.mapping!, i, j, gpus.length)]!;
    }
    return -1;
  }

  push(task: number): void {
    const part = this.ctx.graph.taskAffinity.data[task]!;
    const gpus = this.owners.gpuWorkers;
    let w = this.blockOwner(task);
    if (w < 0) w = part >= 0 ? this.owners.ownerOf(part) : gpus[this.next++ % gpus.length]!;
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
