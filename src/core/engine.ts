/**
 * The sans-IO engine (DESIGN.md): a state machine that takes events (open, tasks submitted,
 * task finished or failed, transfer finished, release of an acquire, close) with the driver's
 * current time and answers with commands (run task T on worker W, copy handle H from node A
 * to node B, free H on node B, task cancelled, data acquired, idle, finished) that the driver
 * executes (src/core/protocol.ts). Tasks and data may be submitted while earlier tasks run:
 * every table grows, and policies are told (Scheduler.grow / submitted). It owns the task
 * lifecycle, dependency release, MSI coherence of every replica, one memory manager per node
 * (capacity never exceeded, replicas in use pinned, eviction through a policy, write-back of
 * the only valid copy before it is dropped and of all modified data when the run closes),
 * transfer routing with staging through host memory when GPUs cannot copy peer-to-peer
 * (seed 001's chained requests), and prefetch requests.
 *
 * Worker pipeline: each worker holds up to `depth` popped tasks (StarPU's CUDA pipeline).
 * Their input requests go through a FIFO per memory node, so the earliest task always gets
 * memory first: every replica pinned on a node belongs to an earlier, fully served task or
 * to a running one, which guarantees progress whenever each task fits in its node.
 *
 * Task states: PENDING (predecessors left) -> READY (pushed to the scheduler) -> BUFFERED
 * (popped into a GPU's lookahead buffer, inputs prefetched) -> QUEUED (in a pipeline, inputs
 * requested) -> RUNNING (RUN emitted) -> DONE or FAILED; a PENDING task whose predecessor
 * failed or was cancelled becomes CANCELLED. An application task (acquire) goes PENDING ->
 * QUEUED (its accesses requested at home) -> HELD (ACQUIRED emitted) -> DONE on release.
 *
 * Replica states per (handle, node), MSI with transient states (Replica):
 *
 *              fetch/prefetch issued              copy arrives (current version)
 *   INVALID ---------------------------> LOADING ------------------------------> SHARED
 *      ^  ^    write-only access                  copy arrives stale: refetch, or
 *      |  |  ---------------------> ALLOCATED      INVALID / freed when no one waits
 *      |  |                             |
 *      |  |        a task writing it starts on this node (every other copy -> INVALID)
 *      |  |   SHARED / ALLOCATED / LOADING(home) --------------------------> MODIFIED
 *      |  |                                                                    |
 *      |  +-- a writer starts elsewhere (freed off home once unpinned) --------+
 *      |                                                                       |
 *      |   evicted: SHARED freed at once; MODIFIED written back home first     |
 *      +-- (F_WRITEBACK | F_EVICTING until the copy lands, then freed) --------+
 *          MODIFIED copied home (write-back, flush, write-through) -> SHARED
 *
 * A MODIFIED replica copied to another device stays MODIFIED (the owner that must write it
 * back); only a copy home makes it SHARED. The home replica of a handle is never freed.
 * Flags on a replica: F_WRITEBACK (a copy from it is in flight), F_EVICTING (free it when
 * that lands), F_DROP (coherence: free it after its copy home), F_AGAIN (write-through: copy
 * again), F_WRITING (a running task writes it: no copy may start from it).
 */
import type { TaskGraph } from './graph.ts';
import { growF64, growI32, growU8, IntList, IntQueue } from './growable.ts';
import type { DurationModel } from './model.ts';
import type { Platform } from './platform.ts';
import { routeOf } from './platform.ts';
import type { EvictionContext, EvictionPolicy, SchedContext, Scheduler } from './policy.ts';
import { Cmd, TransferKind } from './protocol.ts';
import { Rng } from './rng.ts';
import { AccessMode, LocusError } from './types.ts';

export { Cmd, TRANSFER_KIND_NAMES, TransferKind } from './protocol.ts';

/** Replica states (MSI plus the transient states of a replica being filled). */
export const Replica = {
  /** No valid content (and, off the home node, no memory unless still pinned). */
  INVALID: 0,
  /** Valid, possibly one of several copies. */
  SHARED: 1,
  /** Valid and the only up-to-date copy: must be written back before it is dropped. */
  MODIFIED: 2,
  /** Allocated, a transfer into it in flight (or waiting for the home copy to arrive). */
  LOADING: 3,
  /** Allocated for a write-only access: no content needed. */
  ALLOCATED: 4,
} as const;

/** Why a replica was freed. */
export type FreeReason = 'evict' | 'invalidate' | 'discard';

/** Observes the engine (DESIGN.md: tracing is an observer). All methods are optional. */
export interface EngineObserver {
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
}

/** Engine construction options. */
export interface EngineOptions {
  /** The task graph; every task in it at start() is run. */
  graph: TaskGraph;
  /** The machine. */
  platform: Platform;
  /** The scheduling policy. */
  scheduler: Scheduler;
  /** The eviction policy (a scheduler's own policy, if it provides one, takes precedence). */
  eviction: EvictionPolicy;
  /** Duration estimates for schedulers. */
  model: DurationModel;
  /** Seed of the run's random source. */
  seed?: number;
  /** Tasks a GPU worker holds at once, running one included (default 2). */
  gpuPipeline?: number;
  /** Tasks a CPU worker holds at once (default 1). */
  cpuPipeline?: number;
  /**
   * Tasks a GPU worker pops ahead of its pipeline (default 4): their inputs are prefetched
   * (not pinned, so an eviction may take them back), like the task buffer of StarPU's
   * schedulers (seed 000's taskBuffer_k is this buffer plus the pipeline). Four tasks of
   * seed 000's matrix product (4 x 0.56 ms) cover the load of one 14 MiB block on a shared
   * bus (about 2.4 ms), which a pipeline of 2 alone does not.
   */
  gpuLookahead?: number;
  /**
   * Emit RUN for every task at the front of a worker's pipeline whose inputs are in place, not
   * only for the oldest one (default false). For drivers whose workers queue the tasks they
   * are given and run them in order (the real driver): several tasks in flight per worker hide
   * the round trip between the engine and the worker. A worker's tasks must finish in the
   * order their RUN commands were emitted.
   */
  issueAhead?: boolean;
  /**
   * Calibration mode: schedulers learn through SchedContext.needsCalibration which tasks the
   * model has not measured enough (StarPU_CALIBRATE).
   */
  calibrate?: boolean;
  /** Coherence policies of seed 004's runtimes (default: write-back, replicas kept). */
  coherence?: CoherenceOptions;
  /** Write every modified replica home at the end (default true; false for --stop-after). */
  flushAtEnd?: boolean;
}

/**
 * Seed 004's coherence policies, on top of MSI with write-invalidate (a writer invalidates
 * every other copy): the memory of a GPU is a cache of host memory.
 */
export interface CoherenceOptions {
  /** Copy a block home as soon as a task on a device has written it (write-through). */
  writeThrough?: boolean;
  /**
   * After each task on a device, free its operands: 'all' (runtime version 1), 'aliens' (the
   * blocks the device does not own, version 2), or 'none' (keep them, the default).
   */
  freeAfterTask?: 'none' | 'aliens' | 'all';
  /**
   * Software cache of alien blocks: at most this many alien replicas per device, the least
   * recently used one evicted first (version 3's cache lines; default unlimited).
   */
  alienCacheLines?: number;
  /** Owner memory node of each handle (owner-computes mapping), -1 for none. */
  owners?: Int32Array;
}

const TASK_PENDING = 0;
const TASK_READY = 1;
const TASK_QUEUED = 2;
const TASK_RUNNING = 3;
const TASK_DONE = 4;
const TASK_BUFFERED = 5;
const TASK_FAILED = 6;
const TASK_CANCELLED = 7;
/** An application task holding its data (acquired, not released yet). */
const TASK_HELD = 8;

const F_WRITEBACK = 1; // a write-back from this replica is in flight
const F_EVICTING = 2; // free it when that write-back completes
const F_DROP = 4; // coherence: free it after its copy home completes; tasks must not reuse it
const F_AGAIN = 8; // write-through: written again while its copy home was in flight: copy again
const F_WRITING = 16; // a running task writes it: no copy may start from it

/** The engine: events in, commands out. */
export class Engine implements SchedContext, EvictionContext {
  readonly graph: TaskGraph;
  readonly platform: Platform;
  /** The scheduling policy in use. */
  readonly scheduler: Scheduler;
  /** The eviction policy in use. */
  readonly eviction: EvictionPolicy;
  /** Registered observers. */
  readonly observers: EngineObserver[] = [];

  // Commands produced by the last event, drained by the driver.
  /** Opcode of each pending command (see Cmd). */
  readonly cmdOp = new IntList(64);
  /** First argument of each pending command. */
  readonly cmdA = new IntList(64);
  /** Second argument of each pending command. */
  readonly cmdB = new IntList(64);
  /** Id of the event that caused each pending command. */
  readonly cmdCause = new IntList(64);

  // Transfers, indexed by transfer id.
  /** Handle of each transfer. */
  readonly trHandle = new IntList(256);
  /** Source node of each transfer. */
  readonly trSrc = new IntList(256);
  /** Destination node of each transfer. */
  readonly trDst = new IntList(256);
  /** Kind of each transfer (TransferKind). */
  readonly trKind = new IntList(256);
  /**
   * 1 when a task waits for the transfer (every kind but prefetch, and prefetches a task
   * came to need): drivers serve these before prefetches, as StarPU orders its requests.
   */
  readonly trUrgent = new IntList(256);
  private readonly trVersion = new IntList(256);

  private readonly model: DurationModel;
  private readonly rng: Rng;
  private readonly nNodes: number;
  private readonly home: number;
  private nowS = 0;
  private eventId = 0;
  private eventWorker = -1;

  // Tasks (tables sized to taskCap; ids below knownTasks are the engine's).
  private taskState = new Uint8Array(0);
  private predLeft = new Int32Array(0);
  private taskWorker = new Int32Array(0);
  private waitCount = new Int32Array(0);
  private footprint = new Float64Array(0);
  /** Tasks finished, failed or cancelled. */
  private tasksEnded = 0;
  /** Tasks the engine has taken from the graph (ids 0 .. knownTasks - 1). */
  private knownTasks = 0;
  /** Handles the engine has taken from the graph. */
  private knownHandles = 0;
  /** Dependency edges read from the graph (a prefix of its edge list). */
  private knownEdges = 0;
  /** Codelets read from the graph. */
  private knownCodelets = 0;
  private taskCap = 0;
  private handleCap = 0;
  /** The application said no more tasks will come: finish once all have ended. */
  private closed = false;
  /** IDLE was emitted for the current knownTasks. */
  private idleSent = false;
  /** The final write-back has been issued. */
  private flushStarted = false;
  /** Tasks were taken at least once (later submissions need dynamic policies). */
  private tookTasks = false;
  /** Tasks whose footprint is computed (ids below it). */
  private footprintsDone = 0;

  // Workers.
  private readonly depth: Int32Array;
  private readonly pipe: Int32Array;
  private readonly pipeHead: Int32Array;
  private readonly pipeLen: Int32Array;
  private readonly maxDepth: number;
  /** Tasks of each worker's pipeline already handed to the driver (RUN emitted). */
  private readonly issued: Int32Array;
  private readonly issueAhead: boolean;
  private readonly calibrate: boolean;
  private readonly coherence: CoherenceOptions | undefined;
  private readonly flushAtEnd: boolean;
  /** Per device node: alien handles in least-recently-used-first order (alienCacheLines). */
  private readonly alienLru: number[][];
  private readonly lookahead: Int32Array;
  private readonly buffer: IntQueue[];
  private readonly anyLookahead: boolean;
  /** Per replica slot: buffered tasks of that node that read the handle. */
  private bufNeed = new Int32Array(0);
  /** Per node: the eviction filter of lookahead prefetches (bufferFilter). */
  private readonly bufferFilters: (((handle: number) => boolean) | undefined)[] = [];
  private bufferNeeded = false;
  private readonly workerNode: Int32Array;
  private readonly kindMask: Uint8Array;
  private codeletKinds = new Uint8Array(0);

  // Replicas: slot = handle * nNodes + node (tables sized to handleCap * nNodes).
  private rstate = new Uint8Array(0);
  private rflags = new Uint8Array(0);
  private ralloc = new Uint8Array(0);
  private rrefs = new Int32Array(0);
  private version = new Int32Array(0);
  private loadingTransfer = new Int32Array(0);
  // Waiters on a slot: task ids (>= 0) or forwards to a node (-(node + 1)) on home slots.
  private waitHead = new Int32Array(0);
  private readonly waitValue = new IntList(256);
  private readonly waitNext = new IntList(256);
  private waitFree = -1;

  // Memory.
  private readonly used: Float64Array;
  private readonly freeing: Float64Array;
  private readonly capacity: Float64Array;
  private readonly reqTask: IntQueue[];
  private readonly reqAccess: IntQueue[];
  private readonly nodeDirty: Uint8Array;
  private anyNodeDirty = false;
  private dispatchNeeded = false;
  private inFlight = 0;
  private started = false;
  private finished = false;

  constructor(options: EngineOptions) {
    this.graph = options.graph;
    this.platform = options.platform;
    this.scheduler = options.scheduler;
    this.eviction = options.scheduler.evictionPolicy?.() ?? options.eviction;
    this.model = options.model;
    this.rng = new Rng(options.seed ?? 1);
    const p = this.platform;
    this.nNodes = p.nodes.length;
    this.home = p.homeNode;
    const nw = p.workers.length;
    this.depth = new Int32Array(nw);
    this.workerNode = new Int32Array(nw);
    this.kindMask = new Uint8Array(nw);
    for (let w = 0; w < nw; w++) {
      const worker = p.workers[w]!;
      const d = worker.kind === 'gpu' ? (options.gpuPipeline ?? 2) : (options.cpuPipeline ?? 1);
      if (!Number.isInteger(d) || d < 1)
        throw new LocusError(`pipeline depth must be a positive integer (got ${d})`);
      this.depth[w] = d;
      this.workerNode[w] = worker.node;
      this.kindMask[w] = worker.kind === 'cpu' ? 1 : 2;
    }
    this.maxDepth = Math.max(1, ...this.depth);
    const ahead = options.gpuLookahead ?? options.scheduler.lookahead ?? 4;
    if (!Number.isInteger(ahead) || ahead < 0)
      throw new LocusError(`lookahead must be a non-negative integer (got ${ahead})`);
    this.lookahead = new Int32Array(p.workers.map((w) => (w.kind === 'gpu' ? ahead : 0)));
    this.buffer = p.workers.map(() => new IntQueue());
    this.anyLookahead = this.lookahead.some((x) => x > 0);
    this.pipe = new Int32Array(nw * this.maxDepth);
    this.pipeHead = new Int32Array(nw);
    this.pipeLen = new Int32Array(nw);
    this.issued = new Int32Array(nw);
    this.issueAhead = options.issueAhead ?? false;
    this.calibrate = options.calibrate ?? false;
    const c = options.coherence;
    this.coherence =
      c && (c.writeThrough || (c.freeAfterTask ?? 'none') !== 'none' || c.alienCacheLines !== undefined)
        ? c
        : undefined;
    if (
      c?.alienCacheLines !== undefined &&
      !(Number.isInteger(c.alienCacheLines) && c.alienCacheLines >= 0)
    ) {
      throw new LocusError(`cache lines must be a non-negative integer (got ${c.alienCacheLines})`);
    }
    this.flushAtEnd = options.flushAtEnd ?? true;
    this.alienLru = p.nodes.map(() => []);
    this.used = new Float64Array(this.nNodes);
    this.freeing = new Float64Array(this.nNodes);
    this.capacity = new Float64Array(p.nodes.map((n) => n.capacity));
    this.reqTask = p.nodes.map(() => new IntQueue());
    this.reqAccess = p.nodes.map(() => new IntQueue());
    this.nodeDirty = new Uint8Array(this.nNodes);
  }

  /** Registers an observer. */
  observe(observer: EngineObserver): this {
    this.observers.push(observer);
    return this;
  }

  // ---------------------------------------------------------------- events

  /**
   * Runs the whole graph as it stands: open, submit every task, close (the full-graph mode of
   * the simulator and of `locus run`). Throws LocusError on a cycle or a task that fits nowhere.
   */
  start(now: number): void {
    this.open(now);
    this.submitted(now);
    this.close(now);
  }

  /**
   * Opens the engine at time `now`: checks the platform and initialises the policies, whose
   * tables are sized to what the graph holds now (more may be submitted later). With `from`,
   * the graph's tasks before it are taken as ended (an earlier engine ran them and wrote every
   * datum home): this engine takes tasks from `from` on.
   */
  open(now: number, from = 0): void {
    if (this.started) throw new Error('engine already started');
    const p = this.platform;
    for (let n = 0; n < this.nNodes; n++) {
      if (n !== this.home && (!routeOf(p, n, this.home) || !routeOf(p, this.home, n))) {
        throw new LocusError(
          `platform ${p.name}: node ${p.nodes[n]!.name} has no route to and from host memory`,
        );
      }
    }
    this.started = true;
    this.nowS = now;
    this.eventId++;
    this.growTables(Math.max(16, this.graph.taskCount), Math.max(16, this.graph.handleCount));
    // Policies may read canRun and estimates of the tasks already in the graph at init.
    this.syncCodelets();
    this.computeFootprints(0, this.graph.taskCount);
    if (from > 0) {
      const g = this.graph;
      this.taskState.fill(TASK_DONE, 0, from);
      this.knownTasks = from;
      this.tasksEnded = from;
      let e = 0;
      while (e < g.edgeCount && g.edgeTarget.data[e]! < from) e++;
      this.knownEdges = e;
    }
    this.eviction.init(this);
    this.scheduler.init(this);
  }

  /**
   * The application saw the failures of tasks below `upTo` (a wait() reported them): tasks
   * submitted from now on that depend on them run instead of being cancelled (the data they
   * wrote hold whatever the failed kernel left, as the application was told).
   */
  acknowledgeFailures(upTo: number): void {
    const n = Math.min(upTo, this.knownTasks);
    for (let t = 0; t < n; t++) {
      const s = this.taskState[t];
      if (s === TASK_FAILED || s === TASK_CANCELLED) this.taskState[t] = TASK_DONE;
    }
  }

  /**
   * The application dropped `handle` (unregister, after an acquire brought it home): frees
   * its unpinned replicas off its home node. Its home copy stays; no task may use it again.
   */
  dropReplicas(handle: number, now: number): void {
    this.nowS = now;
    this.eventId++;
    const nn = this.nNodes;
    for (let n = 0; n < nn; n++) {
      const slot = handle * nn + n;
      if (n === this.home || this.ralloc[slot] !== 1 || this.rrefs[slot] !== 0) continue;
      if (this.rstate[slot] === Replica.SHARED || this.rstate[slot] === Replica.INVALID) {
        this.freeReplica(handle, n, 'evict');
      }
    }
  }

  /**
   * Takes the tasks (and handles and codelets) submitted to the graph since the last call, up
   * to task `upTo` (default: all): their dependencies on earlier tasks count only while those
   * have not ended; tasks whose predecessors all ended are pushed to the scheduler; a task
   * depending on a failed or cancelled task is cancelled. Everything is checked before any
   * state changes, so a LocusError leaves the engine as it was.
   */
  submitted(now: number, upTo?: number): void {
    if (!this.started) throw new Error('engine not open');
    if (this.closed) throw new LocusError('tasks submitted after the run was closed');
    const g = this.graph;
    const to = upTo ?? g.taskCount;
    const from = this.knownTasks;
    if (to < from || to > g.taskCount) throw new Error(`cannot submit up to task ${to}`);
    if (to === from && g.handleCount === this.knownHandles) return;
    this.nowS = now;
    this.eventId++;
    if (this.tookTasks && (this.scheduler.dynamic !== true || this.eviction.dynamic !== true)) {
      const who =
        this.scheduler.dynamic !== true
          ? `scheduler ${this.scheduler.name}`
          : `eviction policy ${this.eviction.name}`;
      throw new LocusError(
        `${who} does not take tasks submitted while the engine runs: submit the whole graph before running, or use another policy`,
      );
    }
    if (to < g.taskCount && g.mayHaveCycles) {
      throw new LocusError('a submission window needs a graph without backward explicit dependencies');
    }
    // Check first, change after.
    let newBytes = 0;
    for (let h = this.knownHandles; h < g.handleCount; h++) newBytes += g.handleSize.data[h]!;
    if (this.used[this.home]! + newBytes > this.capacity[this.home]!) {
      throw new LocusError(
        `the data (${fmtBytes(this.used[this.home]! + newBytes)}) do not fit in host memory ${this.platform.nodes[this.home]!.name} (${fmtBytes(this.capacity[this.home]!)}): use a platform with more memory or a smaller workload`,
      );
    }
    if (from === 0 && to === g.taskCount) g.checkAcyclic();
    this.syncCodelets();
    // Growing changes no state the tasks could see: grow, then check the footprints (written
    // into the grown table), then take handles, tasks and edges.
    let tc = this.taskCap;
    while (tc < to) tc *= 2;
    let hc = this.handleCap;
    while (hc < g.handleCount) hc *= 2;
    if (tc !== this.taskCap || hc !== this.handleCap) this.growTables(tc, hc);
    this.computeFootprints(from, to);
    this.validateTasks(from, to);
    const nn = this.nNodes;
    for (let h = this.knownHandles; h < g.handleCount; h++) {
      const slot = h * nn + this.home;
      this.rstate[slot] = Replica.SHARED;
      this.ralloc[slot] = 1;
    }
    this.used[this.home]! += newBytes;
    this.knownHandles = g.handleCount;
    for (let t = from; t < to; t++) {
      this.taskState[t] = TASK_PENDING;
      this.predLeft[t] = 0;
      this.taskWorker[t] = -1;
    }
    this.knownTasks = to;
    if (to > from) this.tookTasks = true;
    this.idleSent = false;
    let e = this.knownEdges;
    const edges = g.edgeCount;
    let cancelAny = false;
    for (; e < edges; e++) {
      const target = g.edgeTarget.data[e]!;
      if (target >= to) break;
      if (target < from)
        throw new LocusError(`a dependency was added to task ${g.taskLabel(target)}, already submitted`);
      const st = this.taskState[g.edgeSource.data[e]!]!;
      if (st === TASK_DONE) continue;
      // An acquire still gets its data after a failure (it sees whatever the data hold).
      if ((st === TASK_FAILED || st === TASK_CANCELLED) && g.taskApp.data[target] === 1) continue;
      if (st === TASK_FAILED || st === TASK_CANCELLED) {
        this.taskState[target] = TASK_CANCELLED;
        cancelAny = true;
        continue;
      }
      this.predLeft[target]!++;
    }
    this.knownEdges = e;
    this.scheduler.submitted?.(from, to);
    if (cancelAny) {
      for (let t = from; t < to; t++) {
        if (this.taskState[t] === TASK_CANCELLED) {
          this.taskState[t] = TASK_PENDING;
          this.cancel(t);
        }
      }
    }
    for (let t = from; t < to; t++) {
      if (this.taskState[t] === TASK_PENDING && this.predLeft[t] === 0) this.makeReady(t);
    }
    this.settle();
    this.checkIdle();
  }

  /** The application submits nothing more: the run finishes once every task has ended. */
  close(now: number): void {
    if (!this.started) throw new Error('engine not open');
    if (this.closed) return;
    this.nowS = now;
    this.eventId++;
    this.closed = true;
    this.endIfDone();
  }

  /** The driver reports that `task` finished at time `now`. */
  taskFinished(task: number, now: number): void {
    this.taskEnded(task, now, false);
  }

  /**
   * The driver reports that `task` failed at time `now` (its kernel threw, its thread died):
   * it ends like a finished task, and every task that depends on it, transitively, is
   * cancelled (CANCELLED commands); the others go on.
   */
  taskFailed(task: number, now: number): void {
    this.taskEnded(task, now, true);
  }

  /** The application releases application task `task` (an acquire): its data are free again. */
  release(task: number, now: number): void {
    if (this.taskState[task] !== TASK_HELD || this.graph.taskApp.data[task] !== 1) {
      throw new LocusError(`task ${this.graph.taskLabel(task)} is not an acquire being held`);
    }
    this.nowS = now;
    this.eventId++;
    this.taskState[task] = TASK_DONE;
    this.tasksEnded++;
    const g = this.graph;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      const slot = g.accessHandle.data[a]! * this.nNodes + this.home;
      if (g.accessMode.data[a]! & AccessMode.W) this.rflags[slot]! &= ~F_WRITING;
      this.unpin(slot, 'evict');
    }
    this.releaseSuccessors(task);
    this.dispatchNeeded = true;
    this.markDirty(this.home);
    this.settle();
    this.checkIdle();
    this.endIfDone();
  }

  private taskEnded(task: number, now: number, failed: boolean): void {
    this.nowS = now;
    this.eventId++;
    if (this.taskState[task] !== TASK_RUNNING) throw new Error(`task ${task} finished but was not running`);
    const g = this.graph;
    const w = this.taskWorker[task]!;
    if (this.pipe[w * this.maxDepth + this.pipeHead[w]!] !== task)
      throw new Error(`task ${task} finished out of order on worker ${w}`);
    this.eventWorker = w;
    const n = this.workerNode[w]!;
    this.taskState[task] = failed ? TASK_FAILED : TASK_DONE;
    this.tasksEnded++;
    this.issued[w]!--;
    this.pipeHead[w] = (this.pipeHead[w]! + 1) % this.maxDepth;
    this.pipeLen[w]!--;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      const h = g.accessHandle.data[a]!;
      const slot = h * this.nNodes + n;
      if (g.accessMode.data[a]! & AccessMode.W) this.rflags[slot]! &= ~F_WRITING;
      if (g.accessMode.data[a]! & AccessMode.W && g.handleDiscard.data[h] === 1) {
        // A scratch output: drop its content instead of keeping it for a write-back; the
        // home copy stands for it ("nothing to keep").
        this.rstate[slot] = n === this.home ? Replica.SHARED : Replica.INVALID;
        this.rstate[h * this.nNodes + this.home] = Replica.SHARED;
        this.version[h]!++;
        this.unpin(slot, 'discard');
      } else {
        this.unpin(slot, 'evict');
      }
    }
    for (let i = 0; i < this.observers.length; i++) this.observers[i]!.taskFinished?.(task, w, now);
    if (failed) for (let i = 0; i < this.observers.length; i++) this.observers[i]!.taskFailed?.(task, w, now);
    this.scheduler.taskFinished?.(task, w);
    if (this.coherence && n !== this.home) this.afterTaskCoherence(task, n);
    if (failed) this.cancelSuccessors(task);
    else this.releaseSuccessors(task);
    this.dispatchNeeded = true;
    this.markDirty(n);
    this.tryStart(w);
    this.settle();
    this.eventWorker = -1;
    this.checkIdle();
    this.endIfDone();
  }

  /** Decrements the successors' counts of unfinished predecessors; pushes those now ready. */
  private releaseSuccessors(task: number): void {
    const g = this.graph;
    const known = this.knownEdges;
    for (let e = g.succHead.data[task]!; e >= 0; e = g.edgeNext.data[e]!) {
      // An edge not read yet counts nothing: its target sees this task ended when it is read.
      if (e >= known) continue;
      const s = g.edgeTarget.data[e]!;
      if (--this.predLeft[s]! === 0 && this.taskState[s] === TASK_PENDING) this.makeReady(s);
    }
  }

  /** Cancels the successors of a failed or cancelled task, transitively. */
  private cancelSuccessors(task: number): void {
    const g = this.graph;
    const known = this.knownEdges;
    for (let e = g.succHead.data[task]!; e >= 0; e = g.edgeNext.data[e]!) {
      if (e >= known) continue;
      const s = g.edgeTarget.data[e]!;
      if (this.taskState[s] !== TASK_PENDING) continue;
      if (g.taskApp.data[s] === 1) this.satisfyApp(s);
      else this.cancel(s);
    }
  }

  /** An acquire's predecessor ended without running (failed, cancelled): it waits no more for it. */
  private satisfyApp(task: number): void {
    if (--this.predLeft[task]! === 0) this.makeReady(task);
  }

  /** Cancels a pending task and its pending descendants (iteratively: chains may be long). */
  private cancel(root: number): void {
    const g = this.graph;
    const known = this.knownEdges;
    const stack = [root];
    this.taskState[root] = TASK_CANCELLED;
    while (stack.length > 0) {
      const t = stack.pop()!;
      this.tasksEnded++;
      this.emit(Cmd.CANCELLED, t, 0);
      for (let i = 0; i < this.observers.length; i++) this.observers[i]!.taskCancelled?.(t, this.nowS);
      for (let e = g.succHead.data[t]!; e >= 0; e = g.edgeNext.data[e]!) {
        if (e >= known) continue;
        const s = g.edgeTarget.data[e]!;
        if (this.taskState[s] !== TASK_PENDING) continue;
        if (g.taskApp.data[s] === 1) {
          this.satisfyApp(s);
          continue;
        }
        this.taskState[s] = TASK_CANCELLED;
        stack.push(s);
      }
    }
  }

  /** Emits IDLE once every known task has ended (while the run is open). */
  private checkIdle(): void {
    if (!this.idleSent && !this.closed && this.tasksEnded === this.knownTasks) {
      this.idleSent = true;
      this.emit(Cmd.IDLE, this.knownTasks, 0);
    }
  }

  /** Once closed and every task ended: writes modified data home, then FINISHED. */
  private endIfDone(): void {
    if (!this.closed || this.finished || this.tasksEnded !== this.knownTasks) return;
    if (!this.flushStarted) {
      this.flushStarted = true;
      if (this.flushAtEnd) {
        this.flushAll();
        return;
      }
    }
    this.finish();
  }

  /**
   * Seed 004's policies after a task on device node n: write-through of what it wrote, then
   * the operands it must not keep (all, or the aliens), then the alien cache's line limit.
   */
  private afterTaskCoherence(task: number, n: number): void {
    const c = this.coherence!;
    const g = this.graph;
    const nn = this.nNodes;
    const free = c.freeAfterTask ?? 'none';
    const lru = this.alienLru[n]!;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      const h = g.accessHandle.data[a]!;
      const slot = h * nn + n;
      if (this.ralloc[slot] !== 1) continue;
      if (c.writeThrough && g.accessMode.data[a]! & AccessMode.W && this.rstate[slot] === Replica.MODIFIED) {
        if ((this.rflags[slot]! & F_WRITEBACK) === 0) {
          this.rflags[slot]! |= F_WRITEBACK;
          this.issue(h, n, this.home, TransferKind.WRITETHROUGH);
        } else {
          this.rflags[slot]! |= F_AGAIN; // the copy in flight is stale: another follows it
        }
      }
      const owned = c.owners !== undefined && c.owners[h] === n;
      if (free === 'all' || (free === 'aliens' && !owned)) {
        if ((this.rflags[slot]! & F_WRITEBACK) !== 0) {
          this.rflags[slot]! |= F_DROP; // freed when its copy home completes
        } else if (this.rrefs[slot] === 0 && this.rstate[slot] !== Replica.MODIFIED) {
          this.freeReplica(h, n, 'evict');
        }
      } else if (!owned && c.alienCacheLines !== undefined) {
        const i = lru.indexOf(h);
        if (i >= 0) lru.splice(i, 1);
        lru.push(h);
      }
    }
    if (c.alienCacheLines === undefined) return;
    // Drop entries freed meanwhile (invalidated, evicted), then evict beyond the line count.
    for (let i = lru.length - 1; i >= 0; i--) if (this.ralloc[lru[i]! * nn + n] !== 1) lru.splice(i, 1);
    let i = 0;
    while (lru.length > c.alienCacheLines && i < lru.length) {
      const h = lru[i]!;
      const slot = h * nn + n;
      if (
        this.rrefs[slot] === 0 &&
        this.rstate[slot] !== Replica.MODIFIED &&
        this.rstate[slot] !== Replica.LOADING
      ) {
        lru.splice(i, 1);
        this.freeReplica(h, n, 'evict');
      } else {
        i++;
      }
    }
  }

  /** The driver reports that transfer `id` finished at time `now`. */
  transferFinished(id: number, now: number): void {
    this.nowS = now;
    this.eventId++;
    const h = this.trHandle.data[id]!;
    const src = this.trSrc.data[id]!;
    const dst = this.trDst.data[id]!;
    const kind = this.trKind.data[id]!;
    const nn = this.nNodes;
    const srcSlot = h * nn + src;
    const dstSlot = h * nn + dst;
    const current = this.trVersion.data[id] === this.version[h];
    this.inFlight--;
    if (this.loadingTransfer[dstSlot] === id) this.loadingTransfer[dstSlot] = -1;
    for (let i = 0; i < this.observers.length; i++) this.observers[i]!.transferFinished?.(id, now, current);
    if (
      kind === TransferKind.WRITEBACK ||
      kind === TransferKind.FLUSH ||
      kind === TransferKind.STAGE ||
      kind === TransferKind.WRITETHROUGH
    ) {
      this.rflags[srcSlot]! &= ~F_WRITEBACK;
      if (kind === TransferKind.WRITEBACK) this.freeing[src]! -= this.graph.handleSize.data[h]!;
    }
    const evicting =
      (this.rflags[srcSlot]! & F_EVICTING) !== 0 && (this.rflags[srcSlot]! & F_WRITEBACK) === 0;
    if (evicting) this.rflags[srcSlot]! &= ~F_EVICTING;
    if (current) {
      this.rstate[dstSlot] = Replica.SHARED;
      // A modified source stays the owner (home is still stale) unless it was copied home.
      if (dst === this.home && this.rstate[srcSlot] === Replica.MODIFIED)
        this.rstate[srcSlot] = Replica.SHARED;
      this.scheduler.dataLoaded?.(h, dst);
      this.unpin(srcSlot, 'evict');
      if (evicting && this.rrefs[srcSlot] === 0 && this.ralloc[srcSlot] === 1)
        this.freeReplica(h, src, 'evict');
      this.wakeWaiters(dstSlot);
    } else {
      // The content went stale in flight (a writer started elsewhere meanwhile).
      this.unpin(srcSlot, 'evict');
      if (this.rstate[dstSlot] !== Replica.LOADING) {
        // A writer took the slot over meanwhile (a write-only access at home): leave it.
      } else if (this.waitHead[dstSlot]! >= 0) {
        this.rstate[dstSlot] = Replica.LOADING; // someone needs the new version: fetch it
        this.fetch(h, dst, TransferKind.FETCH);
      } else if (dst === this.home) {
        this.rstate[dstSlot] = Replica.INVALID;
      } else {
        this.freeReplica(h, dst, 'invalidate');
      }
    }
    if (
      (this.rflags[srcSlot]! & (F_WRITEBACK | F_WRITING)) === 0 &&
      this.rstate[srcSlot] === Replica.MODIFIED &&
      dst === this.home
    ) {
      // The only valid copy is still on src and no copy of it is on its way home.
      if ((this.rflags[srcSlot]! & F_AGAIN) !== 0 || (!current && this.flushStarted && this.flushAtEnd)) {
        this.rflags[srcSlot]! |= F_WRITEBACK;
        this.issue(h, src, this.home, this.flushStarted ? TransferKind.FLUSH : TransferKind.WRITETHROUGH);
      }
    }
    this.rflags[srcSlot]! &= ~F_AGAIN;
    if ((this.rflags[srcSlot]! & F_DROP) !== 0 && (this.rflags[srcSlot]! & F_WRITEBACK) === 0) {
      this.rflags[srcSlot]! &= ~F_DROP;
      if (this.rrefs[srcSlot] === 0 && this.ralloc[srcSlot] === 1) this.freeReplica(h, src, 'evict');
    }
    this.markDirty(src);
    this.markDirty(dst);
    // A policy may have declined to hand out work until some data arrived: ask again.
    this.dispatchNeeded = true;
    this.settle();
    this.endIfDone();
  }

  // ---------------------------------------------------------------- commands

  /** Number of commands waiting to be drained. */
  get commandCount(): number {
    return this.cmdOp.length;
  }

  /** Forgets the drained commands (call after executing them). */
  clearCommands(): void {
    this.cmdOp.length = 0;
    this.cmdA.length = 0;
    this.cmdB.length = 0;
    this.cmdCause.length = 0;
  }

  private emit(op: number, a: number, b: number): void {
    this.cmdOp.push(op);
    this.cmdA.push(a);
    this.cmdB.push(b);
    this.cmdCause.push(this.eventId);
  }

  /** True once every task finished and every modified replica is home. */
  get isFinished(): boolean {
    return this.finished;
  }

  /** Number of tasks ended so far (finished, failed or cancelled). */
  get finishedTasks(): number {
    return this.tasksEnded;
  }

  /** Number of tasks the engine has taken from the graph. */
  get submittedTasks(): number {
    return this.knownTasks;
  }

  /** Number of handles the engine has taken from the graph. */
  get knownHandleCount(): number {
    return this.knownHandles;
  }

  /** True once the application closed the run (no more submissions). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** True when `task` ended by failing. */
  isFailed(task: number): boolean {
    return this.taskState[task] === TASK_FAILED;
  }

  /** True when `task` was cancelled (a task it depends on failed or was cancelled). */
  isCancelled(task: number): boolean {
    return this.taskState[task] === TASK_CANCELLED;
  }

  /** Per-task table capacity (policies size per-task tables to it; see Scheduler.grow). */
  get taskCapacity(): number {
    return this.taskCap;
  }

  /** Per-handle table capacity. */
  get handleCapacity(): number {
    return this.handleCap;
  }

  // ---------------------------------------------------------------- context for policies

  now(): number {
    return this.nowS;
  }

  canRun(task: number, worker: number): boolean {
    const c = this.graph.taskCodelet.data[task]!;
    return (
      (this.codeletKinds[c]! & this.kindMask[worker]!) !== 0 &&
      this.footprint[task]! <= this.capacity[this.workerNode[worker]!]!
    );
  }

  isValidOn(handle: number, node: number): boolean {
    const s = this.rstate[handle * this.nNodes + node]!;
    return s === Replica.SHARED || s === Replica.MODIFIED;
  }

  isValidOrLoading(handle: number, node: number): boolean {
    const s = this.rstate[handle * this.nNodes + node]!;
    return s === Replica.SHARED || s === Replica.MODIFIED || s === Replica.LOADING;
  }

  /** The replica state of `handle` on `node` (see Replica). */
  replicaState(handle: number, node: number): number {
    return this.rstate[handle * this.nNodes + node]!;
  }

  /** Number of pins (running tasks, queued tasks, transfers) on the replica. */
  replicaPins(handle: number, node: number): number {
    return this.rrefs[handle * this.nNodes + node]!;
  }

  /** True when the replica of `handle` on `node` holds memory. */
  isAllocated(handle: number, node: number): boolean {
    return this.ralloc[handle * this.nNodes + node] === 1;
  }

  memoryUsed(node: number): number {
    return this.used[node]!;
  }

  memoryCapacity(node: number): number {
    return this.capacity[node]!;
  }

  taskDuration(task: number, worker: number): number {
    return this.model.taskDuration(this.graph, task, worker);
  }

  needsCalibration(task: number, worker: number): boolean {
    return this.model.needsCalibration?.(this.graph, task, worker, this.calibrate) === true;
  }

  transferTime(handle: number, node: number): number {
    if (this.isValidOrLoading(handle, node)) return 0;
    const bytes = this.graph.handleSize.data[handle]!;
    let best = Number.POSITIVE_INFINITY;
    for (let m = 0; m < this.nNodes; m++) {
      if (m === node || !this.isValidOn(handle, m)) continue;
      const direct = this.model.transferTime(m, node, bytes);
      const t = Number.isFinite(direct)
        ? direct
        : this.model.transferTime(m, this.home, bytes) + this.model.transferTime(this.home, node, bytes);
      if (t < best) best = t;
    }
    return Number.isFinite(best) ? best : 0;
  }

  prefetch(handle: number, node: number, mayEvict = false, allow?: (handle: number) => boolean): boolean {
    const slot = handle * this.nNodes + node;
    const s = this.rstate[slot]!;
    if (s === Replica.SHARED || s === Replica.MODIFIED || s === Replica.LOADING) return true;
    if (this.ralloc[slot] === 1 || this.reqTask[node]!.length > 0) return false;
    const bytes = this.graph.handleSize.data[handle]!;
    if (this.used[node]! + bytes > this.capacity[node]!) {
      if (!mayEvict || !this.makeSpace(node, bytes, allow)) return false;
    }
    this.allocate(handle, node, Replica.LOADING);
    this.fetch(handle, node, TransferKind.PREFETCH);
    return true;
  }

  random(n: number): number {
    return this.rng.int(n);
  }

  currentWorker(): number {
    return this.eventWorker;
  }

  pipeline(worker: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.pipeLen[worker]!; i++) {
      out.push(this.pipe[worker * this.maxDepth + ((this.pipeHead[worker]! + i) % this.maxDepth)]!);
    }
    const b = this.buffer[worker]!;
    for (let i = 0; i < b.length; i++) out.push(b.at(i));
    return out;
  }

  isEvictable(handle: number, node: number): boolean {
    const slot = handle * this.nNodes + node;
    const s = this.rstate[slot]!;
    return (
      node !== this.home &&
      (s === Replica.SHARED || s === Replica.MODIFIED) &&
      this.rrefs[slot] === 0 &&
      (this.rflags[slot]! & F_WRITEBACK) === 0
    );
  }

  // ---------------------------------------------------------------- setup

  private growTables(taskCap: number, handleCap: number): void {
    const nn = this.nNodes;
    const slots = handleCap * nn;
    this.taskState = growU8(this.taskState, taskCap);
    this.predLeft = growI32(this.predLeft, taskCap);
    this.taskWorker = growI32(this.taskWorker, taskCap, -1);
    this.waitCount = growI32(this.waitCount, taskCap);
    this.footprint = growF64(this.footprint, taskCap);
    this.bufNeed = growI32(this.bufNeed, slots);
    this.rstate = growU8(this.rstate, slots);
    this.rflags = growU8(this.rflags, slots);
    this.ralloc = growU8(this.ralloc, slots);
    this.rrefs = growI32(this.rrefs, slots);
    this.version = growI32(this.version, handleCap);
    this.waitHead = growI32(this.waitHead, slots, -1);
    this.loadingTransfer = growI32(this.loadingTransfer, slots, -1);
    const grewBefore = this.taskCap > 0;
    this.taskCap = taskCap;
    this.handleCap = handleCap;
    if (grewBefore) {
      this.scheduler.grow?.(taskCap, handleCap);
      this.eviction.grow?.(taskCap, handleCap);
    }
    for (let i = 0; i < this.observers.length; i++) this.observers[i]!.grow?.(taskCap, handleCap);
  }

  /** Bytes of data each task of [from, to) accesses (those not computed yet). */
  private computeFootprints(from: number, to: number): void {
    const g = this.graph;
    for (let t = Math.max(from, this.footprintsDone); t < to; t++) {
      let bytes = 0;
      for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
        bytes += g.handleSize.data[g.accessHandle.data[a]!]!;
      }
      this.footprint[t] = bytes;
    }
    if (to > this.footprintsDone) this.footprintsDone = to;
  }

  /** Reads the codelets registered since the last submission. */
  private syncCodelets(): void {
    const g = this.graph;
    if (g.codelets.length === this.knownCodelets) return;
    this.codeletKinds = growU8(this.codeletKinds, g.codelets.length);
    for (let c = this.knownCodelets; c < g.codelets.length; c++) {
      const k = g.codelets[c]!.kinds;
      this.codeletKinds[c] = (k.includes('cpu') ? 1 : 0) | (k.includes('gpu') ? 2 : 0);
    }
    this.knownCodelets = g.codelets.length;
  }

  /**
   * Checks that each task of [from, to) fits in the memory of some worker able to run it
   * (application tasks run at home and are not checked); reads the computed footprints.
   */
  private validateTasks(from: number, to: number): void {
    const g = this.graph;
    const p = this.platform;
    // Per codelet, the largest memory of a worker able to run it: each task checks in O(1).
    const largest = new Float64Array(g.codelets.length).fill(-1);
    for (let c = 0; c < g.codelets.length; c++) {
      for (let i = 0; i < p.workers.length; i++) {
        if (this.codeletKinds[c]! & this.kindMask[i]!)
          largest[c] = Math.max(largest[c]!, this.capacity[p.workers[i]!.node]!);
      }
    }
    for (let t = from; t < to; t++) {
      const bytes = this.footprint[t]!;
      if (g.taskApp.data[t] === 1) continue;
      const c = g.taskCodelet.data[t]!;
      if (bytes <= largest[c]!) continue;
      const codelet = g.codelets[c]!;
      if (largest[c]! < 0) {
        throw new LocusError(
          `task ${g.taskLabel(t)} (codelet ${codelet.name}) runs on ${codelet.kinds.join('/')} but platform ${p.name} has no such worker: add one (e.g. --cpus 1) or pick another platform`,
        );
      }
      throw new LocusError(
        `task ${g.taskLabel(t)} needs ${fmtBytes(bytes)} of data at once but the largest memory of a worker able to run ${codelet.name} holds ${fmtBytes(largest[c]!)}: raise --gpu-mem or use smaller tiles`,
      );
    }
  }

  // ---------------------------------------------------------------- task flow

  private makeReady(task: number): void {
    if (this.graph.taskApp.data[task] === 1) {
      this.queueAcquire(task);
      return;
    }
    this.taskState[task] = TASK_READY;
    this.scheduler.push(task);
    this.dispatchNeeded = true;
  }

  /**
   * An application task (acquire) is ready: its accesses wait in the home node's request
   * FIFO like a CPU task's, then ACQUIRED tells the application its data are valid at home.
   */
  private queueAcquire(task: number): void {
    const g = this.graph;
    const aStart = g.accessStart.data[task]!;
    const aEnd = g.accessStart.data[task + 1]!;
    this.taskState[task] = TASK_QUEUED;
    this.taskWorker[task] = -1;
    this.waitCount[task] = aEnd - aStart;
    const tq = this.reqTask[this.home]!;
    const aq = this.reqAccess[this.home]!;
    for (let a = aStart; a < aEnd; a++) {
      tq.push(task);
      aq.push(a);
    }
    if (aEnd === aStart) this.acquired(task);
    this.markDirty(this.home);
  }

  /** Every access of application task `task` is valid at home: the application holds it. */
  private acquired(task: number): void {
    this.taskState[task] = TASK_HELD;
    this.emit(Cmd.ACQUIRED, task, 0);
    this.applyWrites(task, this.home);
  }

  /**
   * Pops tasks for every worker with room in its pipeline, serves the node queues, then fills
   * the lookahead buffers (whose prefetches only use memory the queues do not wait for).
   */
  private settle(): void {
    do {
      if (this.dispatchNeeded) {
        this.dispatchNeeded = false;
        this.bufferNeeded = this.anyLookahead;
        const nw = this.platform.workers.length;
        for (let w = 0; w < nw; w++) {
          const buffer = this.buffer[w]!;
          while (this.pipeLen[w]! < this.depth[w]!) {
            const t = buffer.length > 0 ? buffer.shift() : this.scheduler.pop(w);
            if (t < 0) break;
            this.accept(t, w);
          }
        }
      }
      while (this.anyNodeDirty) {
        this.anyNodeDirty = false;
        for (let n = 0; n < this.nNodes; n++) {
          if (this.nodeDirty[n] === 1) {
            this.nodeDirty[n] = 0;
            this.serveQueue(n);
          }
        }
        if (this.anyLookahead) this.bufferNeeded = true;
      }
      if (this.bufferNeeded) {
        this.bufferNeeded = false;
        this.fillBuffers();
      }
    } while (this.dispatchNeeded || this.anyNodeDirty);
  }

  /**
   * What a lookahead prefetch on node n may evict: not data another buffered task of the node
   * reads (two buffered tasks would otherwise take each other's inputs back and forth), and
   * only what the scheduler's filter allows. Built once per node, at the first use.
   */
  private bufferFilter(n: number): (handle: number) => boolean {
    let f = this.bufferFilters[n];
    if (f === undefined) {
      const sched = this.scheduler.evictionFilter?.(n);
      const nn = this.nNodes;
      f = sched ? (h) => this.bufNeed[h * nn + n] === 0 && sched(h) : (h) => this.bufNeed[h * nn + n] === 0;
      this.bufferFilters[n] = f;
    }
    return f;
  }

  /** Tops up every worker's lookahead buffer and retries the prefetches it still lacks. */
  private fillBuffers(): void {
    const g = this.graph;
    const nw = this.platform.workers.length;
    for (let w = 0; w < nw; w++) {
      const buffer = this.buffer[w]!;
      const n = this.workerNode[w]!;
      const allow = buffer.length > 0 ? this.bufferFilter(n) : undefined;
      for (let i = 0; i < buffer.length && this.reqTask[n]!.length === 0; i++) {
        const t = buffer.at(i);
        for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
          if (g.accessMode.data[a]! & AccessMode.R) this.prefetch(g.accessHandle.data[a]!, n, true, allow);
        }
      }
      while (buffer.length < this.lookahead[w]!) {
        const t = this.scheduler.pop(w);
        if (t < 0) break;
        this.bufferTask(t, w);
      }
    }
  }

  /** Holds a popped task ahead of the pipeline and prefetches its inputs (unpinned). */
  private bufferTask(task: number, worker: number): void {
    this.checkPopped(task, worker);
    this.taskState[task] = TASK_BUFFERED;
    this.taskWorker[task] = worker;
    this.buffer[worker]!.push(task);
    const g = this.graph;
    const n = this.workerNode[worker]!;
    const nn = this.nNodes;
    // Earlier buffered tasks' inputs are protected first; this task's are counted after.
    const allow = this.bufferFilter(n);
    for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++) {
      if (g.accessMode.data[a]! & AccessMode.R) this.prefetch(g.accessHandle.data[a]!, n, true, allow);
    }
    for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++) {
      if (g.accessMode.data[a]! & AccessMode.R) this.bufNeed[g.accessHandle.data[a]! * nn + n]!++;
    }
  }

  private checkPopped(task: number, worker: number): void {
    if (this.taskState[task] !== TASK_READY) {
      throw new Error(`scheduler ${this.scheduler.name} popped task ${task} which is not ready`);
    }
    if (!this.canRun(task, worker)) {
      throw new Error(
        `scheduler ${this.scheduler.name} gave task ${task} to worker ${worker} which cannot run it`,
      );
    }
  }

  private accept(task: number, worker: number): void {
    const g = this.graph;
    if (this.taskState[task] !== TASK_BUFFERED) {
      this.checkPopped(task, worker);
    } else {
      const n = this.workerNode[worker]!;
      for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++) {
        if (g.accessMode.data[a]! & AccessMode.R) this.bufNeed[g.accessHandle.data[a]! * this.nNodes + n]!--;
      }
    }
    this.taskState[task] = TASK_QUEUED;
    this.taskWorker[task] = worker;
    const slot = (this.pipeHead[worker]! + this.pipeLen[worker]!) % this.maxDepth;
    this.pipe[worker * this.maxDepth + slot] = task;
    this.pipeLen[worker]!++;
    const n = this.workerNode[worker]!;
    const aStart = g.accessStart.data[task]!;
    const aEnd = g.accessStart.data[task + 1]!;
    this.waitCount[task] = aEnd - aStart;
    const tq = this.reqTask[n]!;
    const aq = this.reqAccess[n]!;
    for (let a = aStart; a < aEnd; a++) {
      tq.push(task);
      aq.push(a);
    }
    if (aEnd === aStart) this.tryStart(worker); // no data to wait for
    this.markDirty(n);
  }

  /** Grants queued requests of node n in order, stopping at the first that must wait. */
  private serveQueue(n: number): void {
    const tq = this.reqTask[n]!;
    const aq = this.reqAccess[n]!;
    while (tq.length > 0) {
      if (!this.grant(tq.peek(), aq.peek(), n)) return;
      tq.shift();
      aq.shift();
    }
  }

  /** Makes the access usable on node n for its task; false if memory must be freed first. */
  private grant(task: number, access: number, n: number): boolean {
    const g = this.graph;
    const h = g.accessHandle.data[access]!;
    const mode = g.accessMode.data[access]!;
    const slot = h * this.nNodes + n;
    // Freed after its task by a coherence policy, once its copy home ends: wait, then reload.
    if ((this.rflags[slot]! & F_DROP) !== 0) return false;
    const s = this.rstate[slot]!;
    if (
      s === Replica.SHARED ||
      s === Replica.MODIFIED ||
      (s === Replica.ALLOCATED && mode === AccessMode.W)
    ) {
      this.rrefs[slot]!++;
      this.eviction.used(h, n);
      this.satisfied(task);
      return true;
    }
    if (s === Replica.LOADING) {
      this.rrefs[slot]!++;
      this.eviction.used(h, n);
      this.addWaiter(slot, task);
      const id = this.loadingTransfer[slot]!;
      if (id >= 0 && this.trUrgent.data[id] === 0) {
        this.trUrgent.data[id] = 1;
        this.emit(Cmd.URGENT, id, 0);
      }
      return true;
    }
    if (this.ralloc[slot] === 1) {
      // An invalidated replica still pinned as a transfer's source: wait until it is freed,
      // except at home, whose buffer is permanent.
      if (n !== this.home) return false;
      this.rstate[slot] = mode === AccessMode.W ? Replica.ALLOCATED : Replica.LOADING;
      if (mode !== AccessMode.W) this.scheduler.dataRequested?.(h, n);
    } else {
      const bytes = g.handleSize.data[h]!;
      if (this.used[n]! + bytes > this.capacity[n]! && !this.makeSpace(n, bytes)) return false;
      this.allocate(h, n, mode === AccessMode.W ? Replica.ALLOCATED : Replica.LOADING);
    }
    this.rrefs[slot]!++;
    this.eviction.used(h, n);
    if (mode === AccessMode.W) {
      this.satisfied(task);
    } else {
      this.addWaiter(slot, task);
      this.fetch(h, n, TransferKind.FETCH);
    }
    return true;
  }

  private satisfied(task: number): void {
    if (--this.waitCount[task]! === 0) {
      const w = this.taskWorker[task]!;
      if (w >= 0) this.tryStart(w);
      else this.acquired(task);
    }
  }

  /**
   * Starts worker w's pipeline head if its inputs are all in place (and, with issueAhead, the
   * tasks after it in order, up to the first that still waits).
   */
  private tryStart(w: number): void {
    const limit = this.issueAhead ? this.pipeLen[w]! : Math.min(1, this.pipeLen[w]!);
    while (this.issued[w]! < limit) {
      const task = this.pipe[w * this.maxDepth + ((this.pipeHead[w]! + this.issued[w]!) % this.maxDepth)]!;
      if (this.waitCount[task]! > 0) return;
      this.issued[w]!++;
      this.startTask(task, w);
    }
  }

  /** Emits RUN for `task` on `w` and applies its writes' coherence (the task now runs). */
  private startTask(task: number, w: number): void {
    this.taskState[task] = TASK_RUNNING;
    this.emit(Cmd.RUN, task, w);
    for (let i = 0; i < this.observers.length; i++) this.observers[i]!.taskStarted?.(task, w, this.nowS);
    this.applyWrites(task, this.workerNode[w]!);
    this.scheduler.taskStarted?.(task, w);
  }

  /** Written handles: the replica on node n becomes the owner, every other copy is invalidated. */
  private applyWrites(task: number, n: number): void {
    const g = this.graph;
    const nn = this.nNodes;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      if (!(g.accessMode.data[a]! & AccessMode.W)) continue;
      const h = g.accessHandle.data[a]!;
      this.version[h]!++;
      this.rstate[h * nn + n] = Replica.MODIFIED;
      this.rflags[h * nn + n]! |= F_WRITING;
      for (let m = 0; m < nn; m++) {
        if (m === n) continue;
        const slot = h * nn + m;
        const s = this.rstate[slot]!;
        if (s === Replica.INVALID || s === Replica.LOADING) continue; // a late copy is dropped on arrival
        this.rstate[slot] = Replica.INVALID;
        if (m !== this.home && this.rrefs[slot] === 0) this.freeReplica(h, m, 'invalidate');
      }
    }
  }

  // ---------------------------------------------------------------- memory

  private allocate(h: number, n: number, state: number): void {
    const slot = h * this.nNodes + n;
    this.ralloc[slot] = 1;
    this.rstate[slot] = state;
    this.used[n]! += this.graph.handleSize.data[h]!;
    this.eviction.added(h, n);
    if (state === Replica.LOADING) this.scheduler.dataRequested?.(h, n);
    for (let i = 0; i < this.observers.length; i++) this.observers[i]!.replicaAllocated?.(h, n, this.nowS);
  }

  private freeReplica(h: number, n: number, reason: FreeReason): void {
    const slot = h * this.nNodes + n;
    this.ralloc[slot] = 0;
    this.rstate[slot] = Replica.INVALID;
    this.rflags[slot] = 0;
    this.used[n]! -= this.graph.handleSize.data[h]!;
    this.eviction.removed(h, n);
    this.emit(Cmd.FREE, h, n);
    for (let i = 0; i < this.observers.length; i++)
      this.observers[i]!.replicaFreed?.(h, n, reason, this.nowS);
    this.scheduler.dataRemoved?.(h, n, reason);
    this.markDirty(n);
  }

  private unpin(slot: number, reason: FreeReason): void {
    if (--this.rrefs[slot]! > 0) return;
    const n = slot % this.nNodes;
    if (n !== this.home && this.ralloc[slot] === 1 && this.rstate[slot] === Replica.INVALID) {
      this.freeReplica((slot - n) / this.nNodes, n, reason === 'discard' ? 'discard' : 'invalidate');
    } else {
      this.markDirty(n);
    }
  }

  /**
   * Evicts replicas of node n chosen by the eviction policy until `bytes` more fit. A
   * modified victim is written back home first (its memory is freed when that completes).
   * Returns true when the bytes fit now; false when they must wait.
   */
  private makeSpace(n: number, bytes: number, allow?: (handle: number) => boolean): boolean {
    const cap = this.capacity[n]!;
    while (this.used[n]! - this.freeing[n]! + bytes > cap) {
      const v = this.eviction.victim(n, allow);
      if (v < 0) return false;
      if (!this.isEvictable(v, n)) {
        throw new Error(
          `eviction policy ${this.eviction.name} chose ${v} on node ${n}, which is not evictable`,
        );
      }
      const slot = v * this.nNodes + n;
      if (this.rstate[v * this.nNodes + this.home] === Replica.ALLOCATED) {
        // A ready task will overwrite the home copy (write-only access): the value is dead.
        this.freeReplica(v, n, 'evict');
      } else if (this.rstate[slot] === Replica.MODIFIED) {
        this.rflags[slot]! |= F_WRITEBACK | F_EVICTING;
        this.freeing[n]! += this.graph.handleSize.data[v]!;
        this.issue(v, n, this.home, TransferKind.WRITEBACK);
      } else {
        this.freeReplica(v, n, 'evict');
      }
    }
    return this.used[n]! + bytes <= cap;
  }

  private markDirty(n: number): void {
    this.nodeDirty[n] = 1;
    this.anyNodeDirty = true;
  }

  // ---------------------------------------------------------------- transfers

  /** Brings valid content of h into the LOADING replica on node dst. */
  private fetch(h: number, dst: number, kind: number): void {
    const nn = this.nNodes;
    const bytes = this.graph.handleSize.data[h]!;
    let best = -1;
    let bestTime = Number.POSITIVE_INFINITY;
    let anyValid = -1;
    for (let m = 0; m < nn; m++) {
      if (m === dst) continue;
      const s = this.rstate[h * nn + m]!;
      if (s !== Replica.SHARED && s !== Replica.MODIFIED) continue;
      anyValid = m;
      const t = this.model.transferTime(m, dst, bytes);
      if (t < bestTime) {
        bestTime = t;
        best = m;
      }
    }
    if (best >= 0) {
      this.issue(h, best, dst, kind);
      return;
    }
    const homeSlot = h * nn + this.home;
    if (this.rstate[homeSlot] !== Replica.LOADING) {
      if (anyValid < 0) throw new Error(`no valid replica of handle ${h} anywhere`);
      this.rstate[homeSlot] = Replica.LOADING;
      this.scheduler.dataRequested?.(h, this.home);
      this.rflags[h * nn + anyValid]! |= F_WRITEBACK;
      this.issue(h, anyValid, this.home, TransferKind.STAGE);
    }
    this.addWaiter(homeSlot, -(dst + 1));
  }

  private issue(h: number, src: number, dst: number, kind: number): void {
    const id = this.trHandle.push(h);
    this.trSrc.push(src);
    this.trDst.push(dst);
    this.trKind.push(kind);
    this.trUrgent.push(kind === TransferKind.PREFETCH ? 0 : 1);
    this.loadingTransfer[h * this.nNodes + dst] = id;
    this.trVersion.push(this.version[h]!);
    this.inFlight++;
    this.rrefs[h * this.nNodes + src]!++;
    if (dst === this.home && this.rstate[h * this.nNodes + dst] !== Replica.LOADING) {
      this.rstate[h * this.nNodes + dst] = Replica.LOADING;
      this.scheduler.dataRequested?.(h, dst);
    }
    this.emit(Cmd.TRANSFER, id, 0);
    for (let i = 0; i < this.observers.length; i++) this.observers[i]!.transferStarted?.(id, this.nowS);
  }

  private addWaiter(slot: number, value: number): void {
    let e = this.waitFree;
    if (e >= 0) {
      this.waitFree = this.waitNext.data[e]!;
      this.waitValue.data[e] = value;
      this.waitNext.data[e] = this.waitHead[slot]!;
    } else {
      e = this.waitValue.push(value);
      this.waitNext.push(this.waitHead[slot]!);
    }
    this.waitHead[slot] = e;
  }

  /** Content arrived in `slot`: resume the tasks and the forwards that waited for it. */
  private wakeWaiters(slot: number): void {
    let e = this.waitHead[slot]!;
    if (e < 0) return;
    this.waitHead[slot] = -1;
    // Waiters sit in a list pushed at the head; reverse it to serve them in arrival order.
    let prev = -1;
    while (e >= 0) {
      const next = this.waitNext.data[e]!;
      this.waitNext.data[e] = prev;
      prev = e;
      e = next;
    }
    e = prev;
    const h = (slot - (slot % this.nNodes)) / this.nNodes;
    while (e >= 0) {
      const next = this.waitNext.data[e]!;
      const v = this.waitValue.data[e]!;
      this.waitNext.data[e] = this.waitFree;
      this.waitFree = e;
      if (v < 0) this.issue(h, this.home, -v - 1, TransferKind.FETCH);
      else this.satisfied(v);
      e = next;
    }
  }

  // ---------------------------------------------------------------- end of run

  private flushAll(): void {
    const g = this.graph;
    const nn = this.nNodes;
    for (let h = 0; h < this.knownHandles; h++) {
      if (g.handleDiscard.data[h] === 1) continue;
      for (let n = 0; n < nn; n++) {
        if (n === this.home) continue;
        const slot = h * nn + n;
        if (this.rstate[slot] === Replica.MODIFIED && (this.rflags[slot]! & F_WRITEBACK) === 0) {
          this.rflags[slot]! |= F_WRITEBACK;
          this.issue(h, n, this.home, TransferKind.FLUSH);
        }
      }
    }
    this.finish();
  }

  /** Ends the run once every task is done and no transfer is in flight. */
  private finish(): void {
    if (this.finished || this.inFlight > 0) return;
    this.finished = true;
    this.emit(Cmd.FINISHED, 0, 0);
    for (let i = 0; i < this.observers.length; i++) this.observers[i]!.runFinished?.(this.nowS);
  }
}

function fmtBytes(n: number): string {
  if (!Number.isFinite(n)) return 'unlimited';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i === 0 ? 0 : 2)} ${units[i]}`;
}
