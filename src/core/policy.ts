/**
 * The interfaces policies plug into: schedulers (push / pop / notifications over a read-only
 * context) and eviction policies (pick a victim among a node's unpinned replicas). The engine
 * calls them; they never change engine state except through the context's requests
 * (prefetch, wontUse), so the same policy runs unchanged under the simulator and the real driver.
 */
import type { TaskGraph } from './graph.ts';
import type { Platform } from './platform.ts';

/** What a scheduler may observe and request. Everything here is read-only but prefetch and wontUse. */
export interface SchedContext {
  /** The task graph (read it; do not submit from a policy). */
  readonly graph: TaskGraph;
  /** The platform. */
  readonly platform: Platform;
  /** The current time in seconds (virtual or wall clock). */
  now(): number;
  /** True when `task` has an implementation for `worker`'s kind and fits in its memory node. */
  canRun(task: number, worker: number): boolean;
  /** True when `handle` has a valid replica on `node` (shared or modified). */
  isValidOn(handle: number, node: number): boolean;
  /** True when `handle` is valid on `node` or a transfer there is in flight. */
  isValidOrLoading(handle: number, node: number): boolean;
  /** Bytes allocated on `node`. */
  memoryUsed(node: number): number;
  /** Capacity of `node` in bytes. */
  memoryCapacity(node: number): number;
  /**
   * True when the performance model has no estimate of `task` on `worker`'s kind, or, while
   * calibrating (`--calibrate`), too few measurements: StarPU's dm policies then send the task
   * there to measure it. Always false with the platform's rates alone.
   */
  needsCalibration(task: number, worker: number): boolean;
  /** Expected duration of `task` on `worker` (seconds) from the performance model. */
  taskDuration(task: number, worker: number): number;
  /** Expected time to make `handle` valid on `node` (0 if it already is). */
  transferTime(handle: number, node: number): number;
  /**
   * Asks the engine to load `handle` onto `node` ahead of use. Loads only into free memory
   * or, with `mayEvict`, after evicting unpinned replicas chosen by the eviction policy among
   * those `allow` accepts (all when omitted). Returns true if the replica is valid, in flight
   * or now requested.
   */
  prefetch(handle: number, node: number, mayEvict?: boolean, allow?: (handle: number) => boolean): boolean;
  /**
   * The scheduler's wontUse hint (StarPU's starpu_data_wont_use, as TaskGraph.wontUse but
   * applied now): `handle` will not be used again for a while, on any node. It applies to the
   * replicas as they stand when called: every modified replica off its home is written back
   * at once (EARLY_WRITEBACK) unless a queued or running task writes it or a copy home is
   * already on its way, and every replica off its home is flagged to be evicted first. It
   * waits for no task: call it once the tasks that were to use the datum have ended (from
   * taskFinished, say); a task that still holds a replica keeps it pinned (never evicted
   * under it), and a task that uses the datum later clears the flag. Allocates nothing.
   */
  wontUse(handle: number): void;
  /**
   * Optional (the engine has it): the scheduler's evictionFilter(node) now accepts `handle`,
   * which it refused (see Scheduler.notifiesEvictionFilter). O(log n).
   */
  evictionFilterChanged?(handle: number, node: number): void;
  /**
   * The worker whose event is being handled (the one whose task finished and released the
   * task being pushed, say), or -1 at start and for transfer events.
   */
  currentWorker(): number;
  /** Tasks popped by `worker` and not finished yet, in execution order (its pipeline). */
  pipeline(worker: number): number[];
  /**
   * Tells the user something that does not stop the run (a policy working around a missing
   * performance model, say), in one line: each distinct message reaches the application's
   * onWarning once per run.
   */
  warn(message: string): void;
  /** A deterministic random integer in [0, n), from the run's seed. */
  random(n: number): number;
  /**
   * Size of per-task tables: task ids stay below it until the next `grow` (it doubles as
   * tasks are submitted while the engine runs).
   */
  readonly taskCapacity: number;
  /** Size of per-handle tables, likewise. */
  readonly handleCapacity: number;
}

/**
 * A scheduling policy (StarPU's push/pop model, seed 001 section II.A). The engine pushes
 * every task that becomes ready and pops when a worker has room in its pipeline.
 */
export interface Scheduler {
  /** Policy name as given on the command line. */
  readonly name: string;
  /**
   * Called once before the first push. Size per-task and per-handle tables to
   * ctx.taskCapacity and ctx.handleCapacity: the graph may hold fewer tasks yet.
   */
  init(ctx: SchedContext): void;
  /**
   * True when the policy takes tasks submitted while the engine runs (it implements `grow`
   * and `submitted` as it needs). Others can only run a graph submitted whole before start;
   * the engine refuses later submissions with a clear error.
   */
  readonly dynamic?: boolean;
  /** Optional: per-task tables must now hold `tasks` entries, per-handle ones `handles`. */
  grow?(tasks: number, handles: number): void;
  /**
   * Optional: the engine recycled the records of tasks [0, k), all ended: every task id the
   * policy holds shifts down by k (task t is now t - k), and every access index (a position in
   * the graph's accessHandle / accessMode) by `accesses`. A policy without it keeps the engine
   * from recycling (an endless stream then grows in memory); one with no per-task state
   * implements it as a no-op.
   */
  rebase?(k: number, accesses: number): void;
  /**
   * Optional: false while the policy holds task ids it cannot shift (hfp's plan of a graph of
   * accumulation chains): the engine then recycles nothing for now and asks again later.
   */
  canRebase?(): boolean;
  /**
   * Optional: tasks [from, to) were submitted (their accesses are in the graph); called
   * before any of them is pushed.
   */
  submitted?(from: number, to: number): void;
  /** A task's dependencies are satisfied. */
  push(task: number): void;
  /** Worker `worker` wants a task: return one it can run, or -1 for none now. */
  pop(worker: number): number;
  /** Optional: `task` started on `worker`. */
  taskStarted?(task: number, worker: number): void;
  /** Optional: `task` finished on `worker`. */
  taskFinished?(task: number, worker: number): void;
  /** Optional: a transfer of `handle` to `node` was issued (the replica is now loading). */
  dataRequested?(handle: number, node: number): void;
  /** Optional: `handle` became valid on `node`. */
  dataLoaded?(handle: number, node: number): void;
  /** Optional: the replica of `handle` on `node` was dropped (evicted, invalidated or discarded). */
  dataRemoved?(handle: number, node: number, reason: 'evict' | 'invalidate' | 'discard'): void;
  /**
   * Optional: tasks this scheduler has assigned to `worker` and not yet handed over, in the
   * order it will hand them (DARTS's plannedTasks, a dm* worker queue). Eviction policies that
   * look into the future (LUF, Belady) read it.
   */
  plannedTasks?(worker: number): Iterable<number>;
  /**
   * Optional: which replicas of `node` the engine's own prefetches (the workers' lookahead
   * buffers) may evict; dm* refuse data their queued tasks still need. All when absent.
   */
  evictionFilter?(node: number): ((handle: number) => boolean) | undefined;
  /**
   * Optional: true when the scheduler calls `ctx.evictionFilterChanged(handle, node)` each time
   * its evictionFilter(node) (which must return the same function at every call) starts
   * accepting a replica it refused. The engine then keeps the replicas the filter refuses
   * apart and finds a filtered victim without calling the filter per candidate.
   */
  readonly notifiesEvictionFilter?: boolean;
  /**
   * Optional: how many tasks each GPU worker pops ahead of its pipeline when the user gave no
   * `--lookahead` (the engine's default is 4). dmdar and dmdas ask for 1: their pop-time
   * "ready" order must see the memory state each earlier pop produced.
   */
  readonly lookahead?: number;
  /**
   * Optional: the rank of `task`, popped into a GPU's lookahead buffer. With
   * EngineOptions.readyFirst the worker takes, among its buffered tasks whose inputs are in
   * place, the first of the highest rank (all equal: the first of them, as without it).
   */
  bufferRank?: (task: number) => number;
  /** Optional: the eviction policy this scheduler needs (LUF uses DARTS's planned tasks). */
  evictionPolicy?(): EvictionPolicy | undefined;
}

/** What an eviction policy may ask the engine. */
export interface EvictionContext {
  /** The task graph. */
  readonly graph: TaskGraph;
  /** The platform. */
  readonly platform: Platform;
  /** The scheduler in use (for its plannedTasks). */
  readonly scheduler: Scheduler;
  /** Tasks popped by `worker` and not finished yet, in execution order (its pipeline). */
  pipeline(worker: number): number[];
  /** True when the replica of `handle` on `node` may be evicted now (valid, unpinned, idle). */
  isEvictable(handle: number, node: number): boolean;
  /**
   * True when the replica of `handle` on `node` is modified (dirty): the only valid copy, which
   * an eviction must first write back to the handle's home.
   */
  isModified(handle: number, node: number): boolean;
  /**
   * What evicting the replica of `handle` on `node` costs: the bytes written back to its home
   * first (its size when modified, 0 when clean or when its value is dead).
   */
  evictionCost(handle: number, node: number): number;
  /** Size of per-task tables (see SchedContext.taskCapacity). */
  readonly taskCapacity: number;
  /** Size of per-handle tables. */
  readonly handleCapacity: number;
  /**
   * Optional (the engine has it), for a ranked policy, whose victim is always the evictable
   * replica of least `rank` that the filter accepts and whose ranks change only when a
   * replica is added or used (LRU, FIFO): that victim on `node`, or -1, from the engine's
   * eviction index in O(1) amortised instead of a walk past rejected replicas; -2 when the
   * engine does not know what `allow` means (a filter of the scheduler's own): walk then.
   */
  rankedVictim?(node: number, ranked: RankedEviction, allow?: (handle: number) => boolean): number;
}

/** A ranked eviction policy (see EvictionContext.rankedVictim). */
export interface RankedEviction {
  /** The rank of the replica of `handle` on `node`: lower goes first. */
  rank(handle: number, node: number): number;
}

/**
 * An eviction policy: it is told when replicas appear, are used and disappear on a node,
 * and picks a victim among evictable replicas when the memory manager needs space.
 */
export interface EvictionPolicy {
  /** Policy name as given on the command line. */
  readonly name: string;
  /** Called once before any other method (size tables to ctx.handleCapacity). */
  init(ctx: EvictionContext): void;
  /** True when the policy takes handles registered while the engine runs (see Scheduler.dynamic). */
  readonly dynamic?: boolean;
  /** Optional: per-handle tables must now hold `handles` entries (per-task ones `tasks`). */
  grow?(tasks: number, handles: number): void;
  /** Optional: task ids shift down by k (see Scheduler.rebase); absent keeps the engine from recycling. */
  rebase?(k: number): void;
  /**
   * True when victim() returns -1 only when no replica of the node is evictable and accepted
   * by `allow` (whatever the policy's own state): the memory manager then skips a search that
   * failed with the same filter until a replica of the node becomes more eligible (a
   * prefetch that cannot make room retries in O(1)). LRU, FIFO, LUF and Belady are.
   */
  readonly exhaustive?: boolean;
  /** A replica of `handle` was allocated on `node`. */
  added(handle: number, node: number): void;
  /** A task on `node` is about to use `handle`. */
  used(handle: number, node: number): void;
  /** The replica of `handle` on `node` was freed. */
  removed(handle: number, node: number): void;
  /**
   * An evictable handle on `node` to evict, among those `allow` accepts when given, or -1 if
   * there is none. The memory manager prefers clean victims (EngineOptions.cleanFirst): it asks
   * first with a filter accepting only clean replicas, and again with the dirty ones only when
   * no clean one qualifies, so every policy takes clean data first in its own order. With
   * `peek`, nothing is evicted: the memory manager only asks which modified replica the policy
   * would take first, to write it back early (EngineOptions.minClean); the policy then changes
   * nothing (LUF does not unplan the victim's tasks). A scheduler that knows a datum to be
   * finished tells the engine (SchedContext.wontUse) rather than reorder victims here.
   */
  victim(node: number, allow?: (handle: number) => boolean, peek?: boolean): number;
}
