/**
 * What observers of the engine hear (DESIGN.md: tracing, statistics, energy and the
 * performance recorder are observers): task and transfer starts and ends, replica
 * allocations and frees, failures, cancellations, table growth and the end of the run.
 */
import type { FreeReason } from './data/replicas.ts';

/** Observes the engine (DESIGN.md: tracing is an observer). All methods are optional. */
export interface EngineObserver {
  /** `task`'s predecessors have all ended: it goes to the scheduler (ready). */
  taskReady?(task: number, now: number): void;
  /** The scheduler gave ready `task` to `worker` (it waits there for its data, then runs). */
  taskPopped?(task: number, worker: number, now: number): void;
  /** `task` starts on `worker`. */
  taskStarted?(task: number, worker: number, now: number): void;
  /** `task` finished on `worker`. */
  taskFinished?(task: number, worker: number, now: number): void;
  /** Transfer `id` starts (read its details from the engine's transfer tables). */
  transferStarted?(id: number, now: number): void;
  /**
   * Transfer `id` finished; `applied` is false when its content went stale in flight (a
   * writer started meanwhile) and was dropped.
   */
  transferFinished?(id: number, now: number, applied: boolean): void;
  /** A replica of `handle` was allocated on `node`. */
  replicaAllocated?(handle: number, node: number, now: number): void;
  /** The replica of `handle` on `node` was freed. */
  replicaFreed?(handle: number, node: number, reason: FreeReason, now: number): void;
  /** The run finished (all tasks done, all data home). */
  runFinished?(now: number): void;
  /**
   * The engine's tables grew to hold `tasks` tasks and `handles` handles (capacities): size
   * per-task and per-handle tables to them. Called before any task or handle beyond the old
   * capacity is reported.
   */
  grow?(tasks: number, handles: number): void;
  /** `task` failed on `worker` (after taskFinished, which every task that ran gets). */
  taskFailed?(task: number, worker: number, now: number): void;
  /** `task` will not run: a task it depends on failed or was cancelled. */
  taskCancelled?(task: number, now: number): void;
  /**
   * The engine recycled the records of tasks [0, k): task ids shift down by k. An observer
   * without it keeps the engine from recycling; one with no per-task state implements it as
   * a no-op.
   */
  rebase?(k: number): void;
}

/**
 * The observers' hooks, one array of bound functions per event, so the engine's hot path
 * calls only the observers that listen to an event, without a property lookup per call.
 */
export class ObserverHooks {
  readonly taskReady: ((task: number, now: number) => void)[] = [];
  readonly taskPopped: ((task: number, worker: number, now: number) => void)[] = [];
  readonly taskStarted: ((task: number, worker: number, now: number) => void)[] = [];
  readonly taskFinished: ((task: number, worker: number, now: number) => void)[] = [];
  readonly transferStarted: ((id: number, now: number) => void)[] = [];
  readonly transferFinished: ((id: number, now: number, applied: boolean) => void)[] = [];
  readonly replicaAllocated: ((handle: number, node: number, now: number) => void)[] = [];
  readonly replicaFreed: ((handle: number, node: number, reason: FreeReason, now: number) => void)[] = [];

  /** Adds the hooks `o` defines. */
  add(o: EngineObserver): void {
    if (o.taskReady) this.taskReady.push(o.taskReady.bind(o));
    if (o.taskPopped) this.taskPopped.push(o.taskPopped.bind(o));
    if (o.taskStarted) this.taskStarted.push(o.taskStarted.bind(o));
    if (o.taskFinished) this.taskFinished.push(o.taskFinished.bind(o));
    if (o.transferStarted) this.transferStarted.push(o.transferStarted.bind(o));
    if (o.transferFinished) this.transferFinished.push(o.transferFinished.bind(o));
    if (o.replicaAllocated) this.replicaAllocated.push(o.replicaAllocated.bind(o));
    if (o.replicaFreed) this.replicaFreed.push(o.replicaFreed.bind(o));
  }
}
