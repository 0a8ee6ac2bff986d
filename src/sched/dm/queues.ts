/**
 * Per-worker task queues, the part of a deque-model scheduler that decides in which order a
 * worker's assigned tasks are handed out: FIFO here (dm, dmda), the "ready" orderings in
 * ready.ts (dmdar, dmdas). Also a double-ended ring buffer for work stealing.
 */
import { growF64, IntQueue } from '../../core/growable.ts';
import type { SchedContext } from '../../core/policy.ts';
import { PlanIndex, type PlanView } from '../plan-index.ts';
import type { QueuedInputs } from './inputs.ts';

/** The per-worker queues of a deque-model scheduler. */
export interface WorkerQueues {
  /** Called once, after `inputs` was initialised. */
  init(ctx: SchedContext, inputs: QueuedInputs): void;
  /** Appends `task` to `worker`'s queue (before `inputs` records it). */
  add(task: number, worker: number): void;
  /** Takes the next task of `worker`'s queue, or -1 when it is empty. */
  pop(worker: number): number;
  /** Number of tasks queued for `worker`. */
  size(worker: number): number;
  /** `worker`'s queue in the order it would be handed out now. */
  planned(worker: number): Iterable<number>;
  /** Optional: the replicas of `handle` may have changed (loaded, requested, dropped, written). */
  dataChanged?(handle: number): void;
  /** Optional: per-task tables must hold `tasks` entries, per-handle ones `handles`. */
  grow?(tasks: number, handles: number): void;
  /** Optional: an incremental index of `worker`'s queue (see PlanIndex). */
  plannedIndex?(worker: number): PlanView | undefined;
  /**
   * The engine recycled tasks [0, k) (none of them queued): every queued id shifts down by k,
   * the order unchanged.
   */
  rebase(k: number): void;
}

/**
 * One FIFO per worker: tasks are handed out in the order they were assigned. O(1) each way;
 * once an eviction policy asks for the PlanIndex (key: the assignment count), plus
 * O(accesses x log n) to keep it.
 */
export class FifoQueues implements WorkerQueues {
  private queues: IntQueue[] = [];
  private ctx!: SchedContext;
  private index: PlanIndex | undefined;
  private addedAt = new Float64Array(0);
  private added = 0;

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    this.queues = ctx.platform.workers.map(() => new IntQueue());
    this.index = undefined;
    this.addedAt = new Float64Array(ctx.taskCapacity);
    this.added = 0;
  }

  add(task: number, worker: number): void {
    this.queues[worker]!.push(task);
    if (task >= this.addedAt.length)
      this.addedAt = growF64(this.addedAt, Math.max(task + 1, 2 * this.addedAt.length));
    this.addedAt[task] = this.added++;
    this.index?.add(task, worker, 0, this.addedAt[task]!);
  }

  pop(worker: number): number {
    const q = this.queues[worker]!;
    if (q.length === 0) return -1;
    const t = q.shift();
    this.index?.remove(t);
    return t;
  }

  /**
   * Queued ids shift down by k; the PlanIndex, keyed by task id, is dropped and rebuilt on its
   * next use. O(tasks queued + tasks held).
   */
  rebase(k: number): void {
    for (const q of this.queues) q.addToAll(-k);
    this.addedAt.copyWithin(0, k);
    this.index = undefined;
  }

  plannedIndex(worker: number): PlanView {
    if (this.index === undefined) {
      // Built on first use, from the queues as they are; kept up to date from then on.
      const index = new PlanIndex(this.ctx.graph, this.queues.length);
      this.queues.forEach((q, w) => {
        for (let i = 0; i < q.length; i++) index.add(q.at(i), w, 0, this.addedAt[q.at(i)]!);
      });
      this.index = index;
    }
    return { index: this.index, group: worker };
  }

  size(worker: number): number {
    return this.queues[worker]!.length;
  }

  *planned(worker: number): Generator<number> {
    const q = this.queues[worker]!;
    for (let i = 0; i < q.length; i++) yield q.at(i);
  }
}

/** A double-ended queue of integers over a growable ring buffer. */
export class IntDeque {
  private buf = new Int32Array(16);
  private head = 0;
  /** Number of values. */
  length = 0;

  /** Appends at the back (newest end). */
  pushBack(value: number): void {
    if (this.length === this.buf.length) this.grow();
    this.buf[(this.head + this.length) & (this.buf.length - 1)] = value;
    this.length++;
  }

  /** Removes and returns the newest value (undefined behaviour when empty). */
  popBack(): number {
    this.length--;
    return this.buf[(this.head + this.length) & (this.buf.length - 1)]!;
  }

  /** Adds `delta` to every value (task ids shifted by the engine's compaction). */
  addToAll(delta: number): void {
    const mask = this.buf.length - 1;
    for (let k = 0; k < this.length; k++) this.buf[(this.head + k) & mask]! += delta;
  }

  /** The i-th value from the front (oldest = 0). */
  at(i: number): number {
    return this.buf[(this.head + i) & (this.buf.length - 1)]!;
  }

  /** Removes the i-th value from the front, keeping the others' order. O(length - i). */
  removeAt(i: number): void {
    const mask = this.buf.length - 1;
    if (i === 0) {
      this.head = (this.head + 1) & mask;
    } else {
      for (let k = i; k < this.length - 1; k++) {
        this.buf[(this.head + k) & mask] = this.buf[(this.head + k + 1) & mask]!;
      }
    }
    this.length--;
  }

  private grow(): void {
    const next = new Int32Array(this.buf.length * 2);
    for (let i = 0; i < this.length; i++) next[i] = this.at(i);
    this.buf = next;
    this.head = 0;
  }
}
