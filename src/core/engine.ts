/**
 * The sans-IO engine (DESIGN.md): a state machine that takes events (open, tasks submitted,
 * task finished or failed, transfer finished, release of an acquire, close) with the driver's
 * current time and answers with commands (run task T on worker W, copy handle H from node A
 * to node B, free H on node B, task cancelled, data acquired, idle, finished) that the driver
 * executes (src/core/protocol.ts). Tasks and data may be submitted while earlier tasks run:
 * every table grows, and policies are told (Scheduler.grow / submitted).
 *
 * This file dispatches events to the engine's parts, split along the lines of StarPU's
 * datawizard, and answers the policies' queries:
 * - tasks/task-table.ts: task states and dependency release, failure and cancellation;
 * - tasks/workers.ts: worker pipelines and lookahead buffers;
 * - data/replicas.ts: replicas and MSI coherence (the state diagram), each handle's home;
 * - data/msi.ts: the transitions a task causes (write-invalidate, releasing its accesses);
 * - data/memory.ts: the memory manager (capacity, pins, eviction through the policy);
 * - data/requests.ts: per-node request queues;
 * - data/transfers.ts: transfers, routing, staging through the home, write-back;
 * - src/coherence/: seed 004's coherence policies and runtime versions.
 *
 * Over 500 lines because every event handler, the submission intake (checks before any state
 * changes), the compaction of recycled records and the policies' context must see all the
 * parts at once; each is short and the algorithms live in the parts.
 */
import { CoherencePolicies } from '../coherence/after-task.ts';
import { coherenceActive } from '../coherence/options.ts';
import { MemoryManager } from './data/memory.ts';
import { releaseAccesses } from './data/msi.ts';
import { Replica, ReplicaTable } from './data/replicas.ts';
import { RequestQueues } from './data/requests.ts';
import { Transfers } from './data/transfers.ts';
import type { EngineOptions } from './engine-options.ts';
import { fmtBytes } from './format-bytes.ts';
import type { TaskGraph } from './graph.ts';
import { IntList } from './growable.ts';
import type { DurationModel } from './model.ts';
import { type EngineObserver, ObserverHooks } from './observer.ts';
import type { Platform } from './platform.ts';
import { routeOf } from './platform.ts';
import type { EvictionContext, EvictionPolicy, RankedEviction, SchedContext, Scheduler } from './policy.ts';
import { Cmd, TransferKind } from './protocol.ts';
import { Rng } from './rng.ts';
import { RunCounters } from './run-counters.ts';
import { HintWaits } from './tasks/hint-waits.ts';
import { TaskState, TaskTable } from './tasks/task-table.ts';
import { WorkerPipelines } from './tasks/workers.ts';
import { LocusError } from './types.ts';

export type { CoherenceOptions } from '../coherence/options.ts';
export { type FreeReason, Replica } from './data/replicas.ts';
export type { EngineOptions } from './engine-options.ts';
export type { EngineObserver } from './observer.ts';
export { Cmd, TRANSFER_KIND_NAMES, TransferKind } from './protocol.ts';

/** A percentage option in [0, 100] (0 when absent); a LocusError names it otherwise. */
function checkPercent(name: string, v: number | undefined): number {
  if (v === undefined) return 0;
  if (!(Number.isFinite(v) && v >= 0 && v <= 100)) {
    throw new LocusError('LOCUS_OPTION_INVALID', `${name} must be a percentage in [0, 100] (got ${v})`);
  }
  return v;
}

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
  /** @internal The observers' hot hooks, bound (see ObserverHooks). */
  readonly hooks = new ObserverHooks();
  /** Duration and transfer-time estimates. */
  readonly model: DurationModel;
  /** What the run did so far, counted where it happens (RunStats reads it). */
  readonly counters: RunCounters;

  // Commands produced by the last event, drained by the driver.
  /** Opcode of each pending command (see Cmd). */
  readonly cmdOp = new IntList(64);
  /** First argument of each pending command. */
  readonly cmdA = new IntList(64);
  /** Second argument of each pending command. */
  readonly cmdB = new IntList(64);
  /** Id of the event that caused each pending command. */
  readonly cmdCause = new IntList(64);

  /** @internal Replica tables. */
  readonly replicas: ReplicaTable;
  /** @internal Memory manager. */
  readonly memory: MemoryManager;
  /** @internal Request queues. */
  readonly requests: RequestQueues;
  /** @internal Transfers. */
  readonly transfers: Transfers;
  /** @internal Task table. */
  readonly tasks: TaskTable;
  /** @internal Worker pipelines. */
  readonly workers: WorkerPipelines;

  // Transfers, indexed by transfer id (the transfer layer's tables).
  /** Handle of each transfer. */
  readonly trHandle: IntList;
  /** Source node of each transfer. */
  readonly trSrc: IntList;
  /** Destination node of each transfer. */
  readonly trDst: IntList;
  /** Kind of each transfer (TransferKind). */
  readonly trKind: IntList;
  /**
   * 1 when a task waits for the transfer (every kind but prefetch, and prefetches a task
   * came to need): drivers serve these before prefetches, as StarPU orders its requests.
   */
  readonly trUrgent: IntList;

  /** @internal The current event's time. */
  nowS = 0;
  /** @internal The scheduler must be asked for work (a task became ready, a worker freed). */
  dispatchNeeded = false;
  /** @internal The final write-back has been issued. */
  flushStarted = false;
  private readonly flushAtEnd: boolean;
  private readonly recycle: boolean;
  /** Flops of the tasks recycled by compact() (the report adds them to the graph's). */
  retiredFlops = 0;
  private readonly calibrate: boolean;
  private readonly onWarning: ((message: string) => void) | undefined;
  private readonly warned = new Set<string>();
  private readonly coherence: CoherencePolicies | undefined;
  private readonly rng: Rng;
  private readonly nNodes: number;
  private readonly defaultHome: number;
  /** The disk node (out of core, src/platform/disk.ts), -1 without one. */
  private readonly diskNode: number;
  private eventId = 0;
  private eventWorker = -1;
  private knownHandles = 0;
  /** wontUse hints taken from the graph so far. */
  private knownHints = 0;
  /** Hints (graph indices) waiting for tasks to end, and how many tasks each still waits for. */
  private readonly hintWaits = new HintWaits();
  /** The hints a task's end made due (reused). */
  private readonly dueHints = new IntList(8);
  /** Called once, when the first task with a phase is taken (see whenPhased). */
  private phaseWatchers: (() => void)[] = [];
  private taskCap = 0;
  private handleCap = 0;
  private closed = false;
  private idleSent = false;
  private tookTasks = false;
  private started = false;
  private finished = false;

  constructor(options: EngineOptions) {
    this.graph = options.graph;
    this.platform = options.platform;
    this.scheduler = options.scheduler;
    this.eviction = options.scheduler.evictionPolicy?.() ?? options.eviction;
    this.model = options.model;
    this.counters = new RunCounters(this.platform);
    this.rng = new Rng(options.seed ?? 1);
    this.nNodes = this.platform.nodes.length;
    // Out of core (src/platform/disk.ts): with a disk node attached, the disk is every
    // handle's home and host memory caches it under its capacity, as a GPU memory does.
    this.diskNode = this.platform.nodes.findIndex((n) => n.kind === 'disk');
    this.defaultHome = this.diskNode >= 0 ? this.diskNode : this.platform.homeNode;
    this.calibrate = options.calibrate ?? false;
    this.onWarning = options.onWarning;
    this.flushAtEnd = options.flushAtEnd ?? true;
    this.recycle = options.recycle ?? false;
    this.coherence = coherenceActive(options.coherence)
      ? new CoherencePolicies(options.coherence, this.nNodes)
      : undefined;
    this.replicas = new ReplicaTable(this.nNodes);
    this.tasks = new TaskTable(this);
    this.memory = new MemoryManager(
      this,
      options.cleanFirst ?? true,
      checkPercent('minClean', options.minClean),
      checkPercent('targetClean', options.targetClean ?? options.minClean),
      options.lazyWritebacks ?? false,
    );
    if (this.memory.targetClean < this.memory.minClean) {
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `targetClean (${this.memory.targetClean}) is below minClean (${this.memory.minClean}): give a target of at least the minimum`,
      );
    }
    this.requests = new RequestQueues(this);
    this.transfers = new Transfers(this);
    this.workers = new WorkerPipelines(this, options);
    this.trHandle = this.transfers.handle;
    this.trSrc = this.transfers.src;
    this.trDst = this.transfers.dst;
    this.trKind = this.transfers.kind;
    this.trUrgent = this.transfers.urgent;
    this.transfers.recycle = this.recycle;
  }

  /** Registers an observer. */
  observe(observer: EngineObserver): this {
    this.observers.push(observer);
    this.hooks.add(observer);
    return this;
  }

  /**
   * Calls `f` once, before the first task with a phase (TaskOptions.phase) is taken, so that
   * per-phase accounting (PhaseTransfers) observes runs whose tasks have phases and costs
   * the others nothing. Register before the tasks are submitted: tasks taken earlier are not
   * looked at again.
   */
  whenPhased(f: () => void): void {
    this.phaseWatchers.push(f);
  }

  /** Calls the phase watchers if a task of [from, to) has a phase. O(to - from). */
  private watchPhases(from: number, to: number): void {
    const phase = this.graph.taskPhase.data;
    for (let t = from; t < to; t++) {
      if (phase[t]! < 0) continue;
      const watchers = this.phaseWatchers;
      this.phaseWatchers = [];
      for (const f of watchers) f();
      return;
    }
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
   * Opens the engine at time `now`: initialises the policies, whose tables are sized to what
   * the graph holds now (more may be submitted later). With `from`, the graph's tasks before
   * it are taken as ended (an earlier engine ran them and wrote every datum home): this
   * engine takes tasks from `from` on.
   */
  open(now: number, from = 0): void {
    if (this.started) throw new Error('engine already started');
    this.checkRoutes(this.defaultHome);
    this.started = true;
    this.nowS = now;
    this.eventId++;
    this.growTables(Math.max(16, this.graph.taskCount), Math.max(16, this.graph.handleCount));
    // Policies may read canRun and estimates of the tasks already in the graph at init.
    this.workers.syncCodelets();
    this.tasks.computeFootprints(0, this.graph.taskCount);
    if (from > 0) this.tasks.skip(from);
    this.eviction.init(this);
    this.scheduler.init(this);
    const sched = this.scheduler;
    if (sched.notifiesEvictionFilter === true && sched.evictionFilter) {
      this.memory.index.trackHeld(this.platform.nodes.map((_, n) => sched.evictionFilter!(n)));
    }
  }

  /** Every node must reach `home` and be reached from it (write-backs, staging). */
  private checkRoutes(home: number): void {
    const p = this.platform;
    for (let n = 0; n < this.nNodes; n++) {
      if (n !== home && (!routeOf(p, n, home) || !routeOf(p, home, n))) {
        throw new LocusError(
          'LOCUS_PLATFORM_INVALID',
          `platform ${p.name}: node ${p.nodes[n]!.name} has no route to and from ${home === this.defaultHome ? 'host memory' : `node ${p.nodes[home]!.name}, a handle's home`}`,
        );
      }
    }
  }

  /**
   * The application saw the failures of tasks below `upTo` (a wait() reported them): tasks
   * submitted from now on that depend on them run instead of being cancelled (the data they
   * wrote hold whatever the failed kernel left, as the application was told).
   */
  acknowledgeFailures(upTo: number): void {
    this.tasks.acknowledgeFailures(upTo);
  }

  /**
   * The application dropped `handle` (unregister, after an acquire brought it home): frees
   * its unpinned replicas off its home node. Its home copy stays; no task may use it again.
   */
  dropReplicas(handle: number, now: number): void {
    this.nowS = now;
    this.eventId++;
    const r = this.replicas;
    const nn = this.nNodes;
    for (let n = 0; n < nn; n++) {
      const slot = handle * nn + n;
      if (n === r.home[handle] || r.alloc[slot] !== 1 || r.pins[slot] !== 0) continue;
      if (r.state[slot] === Replica.SHARED || r.state[slot] === Replica.INVALID) {
        this.memory.free(handle, n, 'evict');
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
    if (this.closed) throw new LocusError('LOCUS_STATE_INVALID', 'tasks submitted after the run was closed');
    const g = this.graph;
    const to = upTo ?? g.taskCount;
    const from = this.tasks.known;
    if (to < from || to > g.taskCount) throw new Error(`cannot submit up to task ${to}`);
    if (to === from && g.handleCount === this.knownHandles && !this.hintsDue(to)) return;
    this.nowS = now;
    this.eventId++;
    if (this.tookTasks && (this.scheduler.dynamic !== true || this.eviction.dynamic !== true)) {
      const who =
        this.scheduler.dynamic !== true
          ? `scheduler ${this.scheduler.name}`
          : `eviction policy ${this.eviction.name}`;
      throw new LocusError(
        'LOCUS_POLICY_INCOMPATIBLE',
        `${who} does not take tasks submitted while the engine runs: submit the whole graph before running, or use another policy`,
      );
    }
    if (to < g.taskCount && g.mayHaveCycles) {
      throw new LocusError(
        'LOCUS_OPTION_CONFLICT',
        'a submission window needs a graph without backward explicit dependencies',
      );
    }
    this.checkNewHandles();
    if (from === 0 && to === g.taskCount) g.checkAcyclic();
    this.workers.syncCodelets();
    // Growing changes no state the tasks could see: grow, then check the footprints (written
    // into the grown table), then take handles, tasks and edges.
    let tc = this.taskCap;
    while (tc < to) tc *= 2;
    let hc = this.handleCap;
    while (hc < g.handleCount) hc *= 2;
    if (tc !== this.taskCap || hc !== this.handleCap) this.growTables(tc, hc);
    this.tasks.computeFootprints(from, to);
    this.workers.validate(from, to);
    this.takeHandles();
    if (to > from) this.tookTasks = true;
    this.idleSent = false;
    if (this.phaseWatchers.length > 0) this.watchPhases(from, to);
    this.tasks.take(from, to);
    this.takeHints(to);
    this.settle();
    this.checkIdle();
  }

  /** True when the graph holds hints the engine has not taken and may take with tasks up to `to`. */
  private hintsDue(to: number): boolean {
    const g = this.graph;
    return this.knownHints < g.hintCount && g.hintAt.data[this.knownHints]! <= to;
  }

  /**
   * Takes the graph's wontUse hints given once tasks up to `to` were submitted: each applies
   * now if the tasks it waits for (graph.hintWaitStart) have ended, else when the last of them
   * ends.
   */
  private takeHints(to: number): void {
    const g = this.graph;
    const starts = g.hintWaitStart.data;
    const waitTask = g.hintWaitTask.data;
    while (this.hintsDue(to)) {
      const i = this.knownHints++;
      let pending = 0;
      for (let j = starts[i]!; j < starts[i + 1]!; j++) {
        const t = waitTask[j]!;
        if (t < 0 || this.tasks.firstLive() > t || this.hasEnded(t)) continue;
        this.hintWaits.add(t, i);
        pending++;
      }
      if (pending === 0) this.memory.hint(g.hintHandle.data[i]!);
      else this.hintWaits.setPending(i, pending);
    }
  }

  /** True when `task` ended (finished, failed or cancelled). */
  private hasEnded(task: number): boolean {
    const s = this.tasks.state[task]!;
    return s === TaskState.DONE || s === TaskState.FAILED || s === TaskState.CANCELLED;
  }

  /** `task` ended: the hints that waited for it and for no other task apply. */
  private applyHints(task: number): void {
    if (!this.hintWaits.waitsFor(task)) return;
    const due = this.dueHints;
    due.length = 0;
    this.hintWaits.ended(task, due);
    for (let k = 0; k < due.length; k++) this.memory.hint(this.graph.hintHandle.data[due.data[k]!]!);
  }

  /** Checks the handles submitted since the last call: a valid home each, room there. */
  private checkNewHandles(): void {
    const g = this.graph;
    const p = this.platform;
    const extra = new Map<number, number>();
    for (let h = this.knownHandles; h < g.handleCount; h++) {
      const home = this.homeOf(h);
      if (!Number.isInteger(home) || home < 0 || home >= this.nNodes) {
        throw new LocusError(
          'LOCUS_DATA_INVALID',
          `data ${g.handleLabel(h)}: home node ${home} does not exist on platform ${p.name} (it has nodes 0 to ${this.nNodes - 1})`,
        );
      }
      extra.set(home, (extra.get(home) ?? 0) + g.handleSize.data[h]!);
    }
    const mem = this.memory;
    for (const [home, bytes] of extra) {
      if (home !== this.defaultHome) this.checkRoutes(home);
      if (mem.used[home]! + bytes > mem.capacity[home]!) {
        const kind = p.nodes[home]!.kind;
        const where = kind === 'disk' ? 'disk' : home === this.defaultHome ? 'host memory' : 'home node';
        throw new LocusError(
          'LOCUS_HOST_MEMORY_TOO_SMALL',
          `the data (${fmtBytes(mem.used[home]! + bytes)}) do not fit in ${where} ${p.nodes[home]!.name} (${fmtBytes(mem.capacity[home]!)}): use ${kind === 'disk' ? 'a larger disk' : 'a platform with more memory, a disk below it (out of core),'} or a smaller workload`,
        );
      }
    }
  }

  /** The home node the graph gives handle `h` (the platform's host memory by default). */
  private homeOf(h: number): number {
    const home = this.graph.handleHome.data[h]!;
    return home < 0 ? this.defaultHome : home;
  }

  /** Takes the handles submitted since the last call: each valid at its home. */
  private takeHandles(): void {
    const g = this.graph;
    const r = this.replicas;
    const nn = this.nNodes;
    for (let h = this.knownHandles; h < g.handleCount; h++) {
      const home = this.homeOf(h);
      const slot = h * nn + home;
      r.home[h] = home;
      r.state[slot] = Replica.SHARED;
      r.alloc[slot] = 1;
      this.memory.used[home]! += g.handleSize.data[h]!;
      this.memory.count[home]!++;
    }
    this.knownHandles = g.handleCount;
  }

  /**
   * Recycles the records of finished tasks (with the `recycle` option): once the oldest task
   * that has not ended is at least `minimum` in and past half of what the engine holds, the
   * tasks before it are dropped from the graph (TaskGraph.dropPrefix) and every table, and
   * every task id shifts down by their count, in the engine, the policies and the observers.
   * Amortised O(1) per task. Returns the shift (0: nothing recycled): the caller shifts the
   * task ids it holds (its backend's, its own). Nothing happens unless the scheduler, the
   * eviction policy and every observer implement `rebase`, or while explicit dependencies
   * may point backwards.
   */
  compact(minimum = 4096): number {
    if (!this.recycle || this.graph.mayHaveCycles) return 0;
    const k = this.tasks.firstLive();
    if (k < minimum || k < this.tasks.known - k) return 0;
    if (this.scheduler.rebase === undefined || this.eviction.rebase === undefined) return 0;
    if (this.scheduler.canRebase?.() === false) return 0;
    for (let i = 0; i < this.observers.length; i++) if (this.observers[i]!.rebase === undefined) return 0;
    const g = this.graph;
    for (let t = 0; t < k; t++) this.retiredFlops += g.taskFlops.data[t]!;
    const accesses = g.accessStart.data[k]!;
    const edges = g.dropPrefix(k, this.tasks.knownEdges);
    this.tasks.rebase(k, edges);
    this.workers.rebase(k);
    this.requests.rebase(k, accesses);
    this.replicas.rebaseWaiters(k, this.knownHandles);
    this.hintWaits.rebase(k);
    this.scheduler.rebase(k, accesses);
    this.eviction.rebase(k);
    for (let i = 0; i < this.observers.length; i++) this.observers[i]!.rebase!(k);
    return k;
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
    if (this.tasks.state[task] !== TaskState.HELD || this.graph.taskApp.data[task] !== 1) {
      throw new LocusError(
        'LOCUS_STATE_INVALID',
        `task ${this.graph.taskLabel(task)} is not an acquire being held`,
      );
    }
    this.nowS = now;
    this.eventId++;
    this.tasks.markEnded(task, false);
    releaseAccesses(this, task, -1, false);
    if (this.hintWaits.size > 0) this.applyHints(task);
    this.tasks.releaseOrCancel(task, false);
    this.dispatchNeeded = true;
    this.settle();
    this.checkIdle();
    this.endIfDone();
  }

  private taskEnded(task: number, now: number, failed: boolean): void {
    this.nowS = now;
    this.eventId++;
    const tasks = this.tasks;
    if (tasks.state[task] !== TaskState.RUNNING) throw new Error(`task ${task} finished but was not running`);
    const w = tasks.worker[task]!;
    this.workers.retire(task, w);
    this.eventWorker = w;
    const n = this.workers.node[w]!;
    tasks.markEnded(task, failed);
    releaseAccesses(this, task, n, true);
    const c = this.counters;
    if (!c.measuredTaskTimes) c.taskRan(w, c.startedAt[w]!, now, this.graph.taskFlops.data[task]!);
    const fin = this.hooks.taskFinished;
    for (let i = 0; i < fin.length; i++) fin[i]!(task, w, now);
    // After the observers saw the task end: the hints' copies carry what it wrote.
    if (this.hintWaits.size > 0) this.applyHints(task);
    if (failed) for (let i = 0; i < this.observers.length; i++) this.observers[i]!.taskFailed?.(task, w, now);
    this.scheduler.taskFinished?.(task, w);
    if (this.coherence && n !== this.defaultHome) this.coherence.afterTask(this, task, n);
    tasks.releaseOrCancel(task, failed);
    this.dispatchNeeded = true;
    this.requests.markDirty(n);
    this.workers.tryStart(w);
    this.settle();
    this.eventWorker = -1;
    this.checkIdle();
    this.endIfDone();
  }

  /** The driver reports that transfer `id` finished at time `now`. */
  transferFinished(id: number, now: number): void {
    this.nowS = now;
    this.eventId++;
    this.transfers.finished(id);
    // A policy may have declined to hand out work until some data arrived: ask again.
    this.dispatchNeeded = true;
    this.settle();
    this.endIfDone();
  }

  /**
   * Pops tasks for every worker with room in its pipeline, serves the node queues, then fills
   * the lookahead buffers (whose prefetches only use memory the queues do not wait for).
   */
  private settle(): void {
    const workers = this.workers;
    const requests = this.requests;
    do {
      if (this.dispatchNeeded) {
        this.dispatchNeeded = false;
        workers.bufferNeeded = workers.anyLookahead;
        workers.dispatch();
      }
      if (requests.anyDirty) {
        requests.serveDirty();
        if (workers.anyLookahead) workers.bufferNeeded = true;
      }
      if (workers.bufferNeeded) {
        workers.bufferNeeded = false;
        workers.fillBuffers();
      }
    } while (this.dispatchNeeded || requests.anyDirty);
    this.memory.tidy();
  }

  /** Emits IDLE once every known task has ended (while the run is open). */
  private checkIdle(): void {
    if (!this.idleSent && !this.closed && this.tasks.ended === this.tasks.known) {
      this.idleSent = true;
      this.emit(Cmd.IDLE, this.tasks.known, 0);
    }
  }

  /** Once closed and every task ended: writes modified data home, then FINISHED. */
  private endIfDone(): void {
    if (!this.closed || this.finished || this.tasks.ended !== this.tasks.known) return;
    if (!this.flushStarted) {
      this.flushStarted = true;
      if (this.flushAtEnd) this.transfers.flushAll(this.knownHandles);
    }
    if (this.finished || this.transfers.inFlight > 0) return;
    this.finished = true;
    this.emit(Cmd.FINISHED, 0, 0);
    for (let i = 0; i < this.observers.length; i++) this.observers[i]!.runFinished?.(this.nowS);
  }

  /** @internal True once the final write-back started and it writes everything home. */
  get flushing(): boolean {
    return this.flushStarted && this.flushAtEnd;
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

  /** @internal Appends a command caused by the current event. */
  emit(op: number, a: number, b: number): void {
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
    return this.tasks.ended;
  }

  /** Number of tasks the engine has taken from the graph. */
  get submittedTasks(): number {
    return this.tasks.known;
  }

  /** Number of the graph's wontUse hints the engine has taken. */
  get knownHintCount(): number {
    return this.knownHints;
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
    return this.tasks.state[task] === TaskState.FAILED;
  }

  /** True when `task` was cancelled (a task it depends on failed or was cancelled). */
  isCancelled(task: number): boolean {
    return this.tasks.state[task] === TaskState.CANCELLED;
  }

  /** Per-task table capacity (policies size per-task tables to it; see Scheduler.grow). */
  get taskCapacity(): number {
    return this.taskCap;
  }

  /** Per-handle table capacity. */
  get handleCapacity(): number {
    return this.handleCap;
  }

  /** The home node of `handle` (where its write-backs go). */
  homeNode(handle: number): number {
    return this.replicas.home[handle]!;
  }

  // ---------------------------------------------------------------- context for policies

  now(): number {
    return this.nowS;
  }

  canRun(task: number, worker: number): boolean {
    return this.workers.canRun(task, worker);
  }

  isValidOn(handle: number, node: number): boolean {
    return this.replicas.isValid(handle, node);
  }

  isValidOrLoading(handle: number, node: number): boolean {
    return this.replicas.isValidOrLoading(handle, node);
  }

  /** The replica state of `handle` on `node` (see Replica). */
  replicaState(handle: number, node: number): number {
    return this.replicas.state[handle * this.nNodes + node]!;
  }

  /** Number of pins (running tasks, queued tasks, transfers) on the replica. */
  replicaPins(handle: number, node: number): number {
    return this.replicas.pins[handle * this.nNodes + node]!;
  }

  /** True when the replica of `handle` on `node` holds memory. */
  isAllocated(handle: number, node: number): boolean {
    return this.replicas.alloc[handle * this.nNodes + node] === 1;
  }

  memoryUsed(node: number): number {
    return this.memory.used[node]!;
  }

  memoryCapacity(node: number): number {
    return this.memory.capacity[node]!;
  }

  taskDuration(task: number, worker: number): number {
    return this.model.taskDuration(this.graph, task, worker);
  }

  needsCalibration(task: number, worker: number): boolean {
    return this.model.needsCalibration?.(this.graph, task, worker, this.calibrate) === true;
  }

  transferTime(handle: number, node: number): number {
    const r = this.replicas;
    if (r.isValidOrLoading(handle, node)) return 0;
    const bytes = this.graph.handleSize.data[handle]!;
    const home = r.home[handle]!;
    // Out of core, copies off the disk to a device and staged copies go through host memory
    // (Transfers.stageInHost): two copies, priced as two.
    const host = this.platform.homeNode;
    const relay = home === this.diskNode ? host : home;
    let best = Number.POSITIVE_INFINITY;
    for (let m = 0; m < this.nNodes; m++) {
      if (m === node || !r.isValid(handle, m)) continue;
      const direct =
        m === this.diskNode && node !== host
          ? Number.POSITIVE_INFINITY
          : this.model.transferTime(m, node, bytes);
      const t = Number.isFinite(direct)
        ? direct
        : this.model.transferTime(m, relay, bytes) + this.model.transferTime(relay, node, bytes);
      if (t < best) best = t;
    }
    return Number.isFinite(best) ? best : 0;
  }

  /**
   * `waiting`: bytes of earlier prefetches into `node` that wait for memory being freed (the
   * lookahead's, with EngineOptions.parallelEvictions): this prefetch evicts beyond them.
   */
  prefetch(
    handle: number,
    node: number,
    mayEvict = false,
    allow?: (handle: number) => boolean,
    waiting = 0,
  ): boolean {
    const r = this.replicas;
    const slot = handle * this.nNodes + node;
    const s = r.state[slot]!;
    if (s === Replica.SHARED || s === Replica.MODIFIED || s === Replica.LOADING) return true;
    if (r.alloc[slot] === 1 || this.requests.pending(node) > 0) return false;
    const bytes = this.graph.handleSize.data[handle]!;
    const mem = this.memory;
    if (mem.used[node]! + bytes > mem.capacity[node]!) {
      if (!mayEvict || !mem.makeSpace(node, bytes, allow, true, waiting)) return false;
    }
    mem.allocate(handle, node, Replica.LOADING);
    this.transfers.fetch(handle, node, TransferKind.PREFETCH);
    return true;
  }

  wontUse(handle: number): void {
    if (!(handle >= 0 && handle < this.knownHandles)) {
      throw new Error(
        `scheduler ${this.scheduler.name}: wontUse of handle ${handle}, which the engine does not hold`,
      );
    }
    this.memory.hint(handle);
  }

  random(n: number): number {
    return this.rng.int(n);
  }

  warn(message: string): void {
    if (this.onWarning === undefined || this.warned.has(message)) return;
    this.warned.add(message);
    this.onWarning(message);
  }

  currentWorker(): number {
    return this.eventWorker;
  }

  pipeline(worker: number): number[] {
    return this.workers.pipeline(worker);
  }

  isEvictable(handle: number, node: number): boolean {
    return this.memory.isEvictable(handle, node);
  }

  rankedVictim(node: number, ranked: RankedEviction, allow?: (handle: number) => boolean): number {
    return this.memory.rankedVictim(node, ranked, allow);
  }

  evictionFilterChanged(handle: number, node: number): void {
    this.memory.changed(handle * this.nNodes + node);
  }

  isModified(handle: number, node: number): boolean {
    return this.replicas.state[handle * this.nNodes + node] === Replica.MODIFIED;
  }

  evictionCost(handle: number, node: number): number {
    return this.memory.evictionCost(handle, node);
  }

  // ---------------------------------------------------------------- setup

  private growTables(taskCap: number, handleCap: number): void {
    this.tasks.grow(taskCap);
    this.hintWaits.grow(taskCap);
    this.replicas.grow(handleCap);
    this.memory.grow(handleCap);
    this.workers.grow(handleCap);
    const grewBefore = this.taskCap > 0;
    this.taskCap = taskCap;
    this.handleCap = handleCap;
    if (grewBefore) {
      this.scheduler.grow?.(taskCap, handleCap);
      this.eviction.grow?.(taskCap, handleCap);
    }
    for (let i = 0; i < this.observers.length; i++) this.observers[i]!.grow?.(taskCap, handleCap);
  }
}
