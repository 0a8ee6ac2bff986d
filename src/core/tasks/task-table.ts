/**
 * The task table and dependency release: per task its state, the count of predecessors that
 * have not ended, the worker it went to, the accesses it still waits for, and its footprint.
 * Tasks enter when the application submits them (their edges to earlier tasks count only
 * while those have not ended), become ready when their last predecessor ends, and a failed
 * or cancelled task cancels its pending descendants, transitively; an acquire (application
 * task) is never cancelled: it gets its data whatever they hold.
 *
 * Task states: PENDING (predecessors left) -> READY (pushed to the scheduler) -> BUFFERED
 * (popped into a GPU's lookahead buffer, inputs prefetched) -> QUEUED (in a pipeline, inputs
 * requested) -> RUNNING (RUN emitted) -> DONE or FAILED; a PENDING task whose predecessor
 * failed or was cancelled becomes CANCELLED. An application task (acquire) goes PENDING ->
 * QUEUED (its accesses requested at their homes) -> HELD (ACQUIRED emitted) -> DONE on release.
 */

import { applyWrites } from '../data/msi.ts';
import type { Engine } from '../engine.ts';
import { growF64, growI32, growU8 } from '../growable.ts';
import { Cmd } from '../protocol.ts';
import { LocusError } from '../types.ts';

/** Task states (see the file's comment). */
export const TaskState = {
  PENDING: 0,
  READY: 1,
  QUEUED: 2,
  RUNNING: 3,
  DONE: 4,
  BUFFERED: 5,
  FAILED: 6,
  CANCELLED: 7,
  /** An application task holding its data (acquired, not released yet). */
  HELD: 8,
} as const;

const { PENDING, READY, QUEUED, DONE, FAILED, CANCELLED, HELD } = TaskState;

/** Per-task state and the dependency release. */
export class TaskTable {
  /** State of each task (TaskState). */
  state = new Uint8Array(0);
  /** Predecessors of each task that have not ended. */
  predLeft = new Int32Array(0);
  /** Worker each task was given to (-1: none, or an acquire). */
  worker = new Int32Array(0);
  /** Accesses each queued task still waits for. */
  waitCount = new Int32Array(0);
  /** Bytes of data each task accesses. */
  footprint = new Float64Array(0);
  /** Tasks finished, failed or cancelled. */
  ended = 0;
  /** Tasks the engine has taken from the graph (ids 0 .. known - 1). */
  known = 0;
  /** Dependency edges read from the graph (a prefix of its edge list). */
  knownEdges = 0;
  /** Table capacity. */
  capacity = 0;
  private footprintsDone = 0;
  /** No task below it is live (see firstLive). */
  private live = 0;
  private readonly e: Engine;

  constructor(engine: Engine) {
    this.e = engine;
  }

  /** Sizes the tables for `cap` tasks. */
  grow(cap: number): void {
    this.state = growU8(this.state, cap);
    this.predLeft = growI32(this.predLeft, cap);
    this.worker = growI32(this.worker, cap, -1);
    this.waitCount = growI32(this.waitCount, cap);
    this.footprint = growF64(this.footprint, cap);
    this.capacity = cap;
  }

  /** Takes tasks before `from` as ended (an earlier engine ran them). */
  skip(from: number): void {
    const g = this.e.graph;
    this.state.fill(DONE, 0, from);
    this.known = from;
    this.ended = from;
    let e = 0;
    while (e < g.edgeCount && g.edgeTarget.data[e]! < from) e++;
    this.knownEdges = e;
  }

  /** Bytes of data each task of [from, to) accesses (those not computed yet). */
  computeFootprints(from: number, to: number): void {
    const g = this.e.graph;
    for (let t = Math.max(from, this.footprintsDone); t < to; t++) {
      let bytes = 0;
      for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
        bytes += g.handleSize.data[g.accessHandle.data[a]!]!;
      }
      this.footprint[t] = bytes;
    }
    if (to > this.footprintsDone) this.footprintsDone = to;
  }

  /**
   * Takes tasks [from, to) and the edges into them (checked by the caller): counts their
   * predecessors still running, tells the scheduler, cancels those depending on a failed or
   * cancelled task, and makes ready those with no predecessor left.
   */
  take(from: number, to: number): void {
    const g = this.e.graph;
    for (let t = from; t < to; t++) {
      this.state[t] = PENDING;
      this.predLeft[t] = 0;
      this.worker[t] = -1;
    }
    this.known = to;
    let e = this.knownEdges;
    const edges = g.edgeCount;
    let cancelAny = false;
    for (; e < edges; e++) {
      const target = g.edgeTarget.data[e]!;
      if (target >= to) break;
      if (target < from)
        throw new LocusError(
          'LOCUS_GRAPH_INVALID',
          `a dependency was added to task ${g.taskLabel(target)}, already submitted`,
        );
      const st = this.state[g.edgeSource.data[e]!]!;
      if (st === DONE) continue;
      // An acquire still gets its data after a failure (it sees whatever the data hold).
      if ((st === FAILED || st === CANCELLED) && g.taskApp.data[target] === 1) continue;
      if (st === FAILED || st === CANCELLED) {
        this.state[target] = CANCELLED;
        cancelAny = true;
        continue;
      }
      this.predLeft[target]!++;
    }
    this.knownEdges = e;
    this.e.scheduler.submitted?.(from, to);
    if (cancelAny) {
      for (let t = from; t < to; t++) {
        if (this.state[t] === CANCELLED) {
          this.state[t] = PENDING;
          this.cancel(t);
        }
      }
    }
    for (let t = from; t < to; t++) {
      if (this.state[t] === PENDING && this.predLeft[t] === 0) this.makeReady(t);
    }
  }

  /**
   * The oldest task that has not ended as DONE (failed and cancelled tasks count as live
   * until acknowledged: later submissions may still depend on them); `known` when none.
   * Amortised O(1): a pointer that only moves forward (until a compaction shifts it).
   */
  firstLive(): number {
    let t = this.live;
    while (t < this.known && this.state[t] === DONE) t++;
    this.live = t;
    return t;
  }

  /** Drops tasks [0, k), all DONE: every table shifts down by k (the engine's compaction). */
  rebase(k: number, knownEdges: number): void {
    const n = this.known;
    this.state.copyWithin(0, k, n);
    this.predLeft.copyWithin(0, k, n);
    this.worker.copyWithin(0, k, n);
    this.waitCount.copyWithin(0, k, n);
    this.footprint.copyWithin(0, k, this.footprintsDone);
    this.known -= k;
    this.ended -= k;
    this.live -= k;
    this.footprintsDone -= k;
    this.knownEdges = knownEdges;
  }

  /** The failures of tasks below `upTo` were reported: later tasks depending on them run. */
  acknowledgeFailures(upTo: number): void {
    const n = Math.min(upTo, this.known);
    for (let t = 0; t < n; t++) {
      const s = this.state[t];
      if (s === FAILED || s === CANCELLED) this.state[t] = DONE;
    }
  }

  /** `task` ended (finished or failed). */
  markEnded(task: number, failed: boolean): void {
    this.state[task] = failed ? FAILED : DONE;
    this.ended++;
  }

  /** After `task` ended: releases its successors, or cancels them when it failed. */
  releaseOrCancel(task: number, failed: boolean): void {
    if (failed) this.cancelSuccessors(task);
    else this.releaseSuccessors(task);
  }

  /** Decrements the successors' counts of unfinished predecessors; pushes those now ready. */
  releaseSuccessors(task: number): void {
    const g = this.e.graph;
    const known = this.knownEdges;
    for (let e = g.succHead.data[task]!; e >= 0; e = g.edgeNext.data[e]!) {
      // An edge not read yet counts nothing: its target sees this task ended when it is read.
      if (e >= known) continue;
      const s = g.edgeTarget.data[e]!;
      if (--this.predLeft[s]! === 0 && this.state[s] === PENDING) this.makeReady(s);
    }
  }

  /** Cancels the successors of a failed or cancelled task, transitively. */
  private cancelSuccessors(task: number): void {
    const g = this.e.graph;
    const known = this.knownEdges;
    for (let e = g.succHead.data[task]!; e >= 0; e = g.edgeNext.data[e]!) {
      if (e >= known) continue;
      const s = g.edgeTarget.data[e]!;
      if (this.state[s] !== PENDING) continue;
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
    const eng = this.e;
    const g = eng.graph;
    const known = this.knownEdges;
    const stack = [root];
    this.state[root] = CANCELLED;
    while (stack.length > 0) {
      const t = stack.pop()!;
      this.ended++;
      eng.emit(Cmd.CANCELLED, t, 0);
      for (let i = 0; i < eng.observers.length; i++) eng.observers[i]!.taskCancelled?.(t, eng.nowS);
      for (let e = g.succHead.data[t]!; e >= 0; e = g.edgeNext.data[e]!) {
        if (e >= known) continue;
        const s = g.edgeTarget.data[e]!;
        if (this.state[s] !== PENDING) continue;
        if (g.taskApp.data[s] === 1) {
          this.satisfyApp(s);
          continue;
        }
        this.state[s] = CANCELLED;
        stack.push(s);
      }
    }
  }

  /** `task`'s predecessors have all ended: to the scheduler, or, for an acquire, to its homes' queues. */
  private makeReady(task: number): void {
    const e = this.e;
    if (e.graph.taskApp.data[task] === 1) {
      this.queueAcquire(task);
      return;
    }
    this.state[task] = READY;
    const hooks = e.hooks.taskReady;
    for (let i = 0; i < hooks.length; i++) hooks[i]!(task, e.nowS);
    e.scheduler.push(task);
    e.dispatchNeeded = true;
  }

  /**
   * An application task (acquire) is ready: each access waits in its handle's home request
   * FIFO like a CPU task's, then ACQUIRED tells the application its data are valid there.
   */
  private queueAcquire(task: number): void {
    const e = this.e;
    const g = e.graph;
    const home = e.replicas.home;
    const aStart = g.accessStart.data[task]!;
    const aEnd = g.accessStart.data[task + 1]!;
    this.state[task] = QUEUED;
    this.worker[task] = -1;
    this.waitCount[task] = aEnd - aStart;
    for (let a = aStart; a < aEnd; a++) e.requests.enqueueOne(task, a, home[g.accessHandle.data[a]!]!);
    if (aEnd === aStart) this.acquired(task);
  }

  /** One access of queued `task` is granted; the last one starts it (or hands an acquire over). */
  satisfied(task: number): void {
    if (--this.waitCount[task]! === 0) {
      const w = this.worker[task]!;
      if (w >= 0) this.e.workers.tryStart(w);
      else this.acquired(task);
    }
  }

  /** Every access of application task `task` is valid at home: the application holds it. */
  private acquired(task: number): void {
    this.state[task] = HELD;
    this.e.emit(Cmd.ACQUIRED, task, 0);
    applyWrites(this.e, task, -1);
  }
}
