/**
 * The deque-model scheduler skeleton (StarPU's dm family, seed 001's heft-* policies): a
 * pushed task is placed at once on the worker where it is expected to complete first
 * (CompletionEstimator, with or without transfer times), appended to that worker's queue
 * (WorkerQueues: FIFO, ready or priority-then-ready order), optionally with its inputs
 * prefetched (Prefetcher); a worker pops only its own queue. dm, dmda, dmdar and dmdas are
 * this class with different parts (dm.ts, dmda.ts, dmdar.ts, dmdas.ts).
 *
 * Prefetch requests that had to wait are retried when a worker of their node finishes a task
 * or a replica leaves the node (prefetch.ts).
 *
 * Cost per push: the placement (O(W) estimates, plus transfer estimates for dmda*) plus the
 * queue's insertion, O(a) input bookkeeping and, with prefetch, O(a) requests. Per pop: the
 * queue's pop plus O(a). Per data notification: the queue's update (ready orders only) and,
 * with prefetch, a retry of the node's pending requests (O(1) when the first must still wait).
 */
import type { SchedContext, Scheduler } from '../../core/policy.ts';
import { AccessMode, LocusError } from '../../core/types.ts';
import { OwnerMap } from '../owner.ts';
import type { PlanView } from '../plan-index.ts';
import { CompletionEstimator } from './estimator.ts';
import { QueuedInputs } from './inputs.ts';
import { Prefetcher } from './prefetch.ts';
import type { WorkerQueues } from './queues.ts';

/** The parts of a deque-model scheduler. */
export interface DequeModelParts {
  /** Registry name. */
  name: string;
  /** Count input transfer times in placements (seed 000 Eq. 1). */
  transfers: boolean;
  /** The per-worker queues (their order). */
  queues: WorkerQueues;
  /** Prefetch each task's inputs when it is assigned. */
  prefetch: boolean;
  /**
   * Seed 001's `-init` variants: tasks of the first iteration (phase 0) with an affinity go to
   * the GPU that owns their block, as `static` places them; later ones are placed freely.
   */
  initialPlacement?: boolean;
  /** Tasks a GPU pops ahead by default (Scheduler.lookahead); the engine's default when absent. */
  lookahead?: number;
}

/** A push-time placement onto per-worker queues. */
export class DequeModelScheduler implements Scheduler {
  readonly name: string;
  readonly lookahead: number | undefined;
  /** Takes tasks submitted while it runs, except the -init variants (a whole-graph mapping). */
  readonly dynamic: boolean;
  /** QueuedInputs tells the engine of every input no queued task of a node reads any more. */
  readonly notifiesEvictionFilter = true;
  /** The completion-time estimator (exposed for tests and tools). */
  readonly estimator: CompletionEstimator;
  /** The per-worker queues. */
  readonly queues: WorkerQueues;
  /** The queued tasks' inputs per (handle, node). */
  readonly inputs = new QueuedInputs();
  private allow: ((handle: number) => boolean)[] = [];
  private readonly prefetcher: Prefetcher | undefined;
  private readonly owners: OwnerMap | undefined;
  private ctx!: SchedContext;
  private workerNode = new Int32Array(0);

  constructor(parts: DequeModelParts) {
    this.name = parts.name;
    this.lookahead = parts.lookahead;
    this.estimator = new CompletionEstimator(parts.transfers, parts.name);
    this.queues = parts.queues;
    this.prefetcher = parts.prefetch ? new Prefetcher() : undefined;
    this.owners = parts.initialPlacement ? new OwnerMap() : undefined;
    this.dynamic = this.owners === undefined;
  }

  grow(tasks: number, handles: number): void {
    this.estimator.grow(tasks);
    this.inputs.grow(handles);
    this.queues.grow?.(tasks, handles);
    this.prefetcher?.grow(handles);
  }

  /**
   * The engine recycled tasks [0, k): the estimator's and the queues' ids shift down (the
   * same placements and pops follow; the input counts hold no ids).
   */
  rebase(k: number): void {
    this.estimator.rebase(k);
    this.queues.rebase(k);
  }

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    this.workerNode = Int32Array.from(ctx.platform.workers, (w) => w.node);
    this.estimator.init(ctx);
    this.inputs.init(ctx);
    this.queues.init(ctx, this.inputs);
    this.allow = ctx.platform.nodes.map((_, node) => (handle: number) => !this.inputs.needed(handle, node));
    this.prefetcher?.init(ctx, this.inputs, this.allow);
    this.owners?.init(ctx);
  }

  /**
   * Queued tasks of `worker`'s node that read `handle` (LUF's n_p(D), in O(1) instead of a scan
   * of the queues). Counted per node: reported for the node's first worker, 0 for the others,
   * so that LUF's sum over a node's workers counts each task once.
   */
  plannedUsesOf(worker: number, handle: number): number {
    const node = this.workerNode[worker]!;
    if (this.workerNode.indexOf(node) !== worker) return 0;
    return this.inputs.count[handle * this.inputs.nodes + node]!;
  }

  /** The engine's lookahead prefetches may not evict data a task queued on `node` reads. */
  evictionFilter(node: number): (handle: number) => boolean {
    return this.allow[node]!;
  }

  push(task: number): void {
    const g = this.ctx.graph;
    let w = -1;
    if (this.owners && g.taskPhase.data[task] === 0) {
      w = this.owners.ownerOf(g.taskAffinity.data[task]!);
      if (w >= 0 && !this.ctx.canRun(task, w)) w = -1;
    }
    if (w < 0) w = this.estimator.best(task);
    if (w < 0)
      throw new LocusError('LOCUS_WORKER_MISSING', `scheduler ${this.name}: no worker can run task ${task}`);
    const node = this.workerNode[w]!;
    this.estimator.assigned(task, w);
    this.queues.add(task, w);
    this.inputs.add(task, node);
    this.prefetcher?.request(task, node);
  }

  pop(worker: number): number {
    const t = this.queues.pop(worker);
    if (t < 0) return -1;
    this.inputs.remove(t, this.workerNode[worker]!);
    this.estimator.popped(t, worker);
    return t;
  }

  taskStarted(task: number, worker: number): void {
    this.estimator.started(task, worker);
    this.writesChanged(task);
  }

  taskFinished(task: number, worker: number): void {
    this.estimator.finished(worker);
    this.writesChanged(task);
    this.prefetcher?.retry(this.workerNode[worker]!);
  }

  dataRequested(handle: number): void {
    this.queues.dataChanged?.(handle);
  }

  dataLoaded(handle: number): void {
    this.queues.dataChanged?.(handle);
  }

  dataRemoved(handle: number, node: number): void {
    this.queues.dataChanged?.(handle);
    this.prefetcher?.retry(node);
  }

  plannedTasks(worker: number): Iterable<number> {
    return this.queues.planned(worker);
  }

  /** The queues' incremental index of `worker`'s planned tasks, when they keep one (FIFO). */
  plannedIndex(worker: number): PlanView | undefined {
    return this.queues.plannedIndex?.(worker);
  }

  /**
   * A task's writes change replicas without a data notification (a write-only replica
   * becomes valid when the task starts, the home copy is invalidated; a discarded output's
   * home copy is valid again when it finishes): let the queues re-check those handles.
   */
  private writesChanged(task: number): void {
    const q = this.queues;
    if (!q.dataChanged) return;
    const g = this.ctx.graph;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      if (g.accessMode.data[a]! & AccessMode.W) q.dataChanged(g.accessHandle.data[a]!);
    }
  }
}
