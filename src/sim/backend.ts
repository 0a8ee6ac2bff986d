/**
 * The simulated backend: a virtual clock, an event heap of task completions and flow starts,
 * and the fair-sharing network. Task durations come from the duration model (with optional
 * noise, charged scheduling cost and ea1 wake-ups). Copies between a pair of nodes go
 * through that pair's stream (one at a time by default, those a task waits for first); a copy
 * first pays the latencies of its route's links, then flows at its fair share of their
 * bandwidth. Deterministic: same graph, platform, policies and seed give the same events
 * (except with charged scheduling, whose charges are measured wall-clock times).
 */
import type { Engine } from '../core/engine.ts';
import type { TaskGraph } from '../core/graph.ts';
import { IntList, IntQueue } from '../core/growable.ts';
import type { DurationModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import { Rng } from '../core/rng.ts';
import { LocusError } from '../core/types.ts';
import type { Backend, EventSink } from '../drive/backend.ts';
import type { SchedulingDebt } from './charging.ts';
import { EventHeap } from './event-heap.ts';
import { checkDuration, ProgressGuard } from './guard.ts';
import { Network } from './network.ts';

const EV_TASK_END = 0;
const EV_FLOW_START = 1;

/** Options of the simulated backend. */
export interface SimBackendOptions {
  graph: TaskGraph;
  platform: Platform;
  /** Durations of the simulated tasks. */
  model: DurationModel;
  /** Seed of the noise draws. */
  seed?: number;
  /** Relative spread of task durations around the model (0 = exact). */
  noise?: number;
  /** Scheduling cost owed by each worker, added to its next task (charged scheduling). */
  debt?: SchedulingDebt;
  /** ea1's wake-up latency (seconds) paid by a task starting after an idle gap. */
  wakeLatency?: number;
  /** Copies in flight at once between a given pair of nodes (default 1). */
  streams?: number;
}

/** Virtual time, events and the network. */
export class SimBackend implements Backend {
  readonly mode = 'simulated' as const;
  private readonly heap = new EventHeap();
  private readonly net: Network;
  private engine!: Engine;
  private clock = 0;
  private readonly noise: number;
  private readonly noiseRng: Rng;
  private readonly nodes: number;
  private readonly latency: Float64Array;
  private readonly streams: number;
  private readonly active: Int32Array;
  /** Per node pair: copies waiting for a stream, in issue order (ring buffers). */
  private readonly waiting: IntQueue[];
  private readonly wakeLatency: number;
  /** End of each worker's last task (for ea1's wake-ups). */
  private readonly lastEnd: Float64Array;
  /** Start time of each running task, by task id (grows). */
  private startOf = new Float64Array(1024);
  /** Time each copy started (left its stream's queue), by transfer id (grows). */
  private copyStart = new Float64Array(1024);
  /** Copies completed by the current event (reused). */
  private readonly done = new IntList(16);
  private readonly guard = new ProgressGuard();
  /** Tasks and copies completed (the guard's measure of progress). */
  private completed = 0;

  constructor(private readonly o: SimBackendOptions) {
    const noise = o.noise ?? 0;
    if (!(noise >= 0 && noise < 1))
      throw new LocusError('LOCUS_OPTION_INVALID', `noise must be in [0, 1) (got ${noise})`);
    this.noise = noise;
    this.noiseRng = new Rng((o.seed ?? 1) ^ 0x5eed);
    const p = o.platform;
    this.net = new Network(p);
    this.nodes = p.nodes.length;
    this.latency = new Float64Array(this.nodes * this.nodes).fill(-1);
    this.streams = o.streams ?? 1;
    if (!(this.streams >= 1))
      throw new LocusError('LOCUS_OPTION_INVALID', `streams must be at least 1 (got ${this.streams})`);
    this.wakeLatency = o.wakeLatency ?? 0;
    if (!(this.wakeLatency >= 0))
      throw new LocusError('LOCUS_OPTION_INVALID', `wake latency must be >= 0 (got ${this.wakeLatency})`);
    this.lastEnd = new Float64Array(p.workers.length).fill(-1);
    this.active = new Int32Array(this.nodes * this.nodes);
    this.waiting = Array.from({ length: this.nodes * this.nodes }, () => new IntQueue());
    for (let r = 0; r < this.nodes * this.nodes; r++) {
      const route = p.routes[r];
      if (route) this.latency[r] = route.reduce((s, l) => s + p.links[l]!.latency, 0);
    }
  }

  /** Gives the backend the engine whose transfer tables its copies read. */
  attach(engine: Engine): void {
    this.engine = engine;
  }
  /** Virtual time needs no start. */
  start(): void {}

  /** A simulation runs no kernel: nothing to load. */
  loadKernels(): Promise<Map<number, string>> {
    return Promise.resolve(new Map());
  }

  /** Nothing waits in virtual time. */
  ring(): void {}

  /** Nothing to stop. */
  stop(): Promise<void> {
    return Promise.resolve();
  }

  now(): number {
    return this.clock;
  }

  run(task: number, worker: number): void {
    let d = this.o.model.taskDuration(this.o.graph, task, worker);
    if (this.noise > 0) d *= 1 + this.noise * (2 * (this.noiseRng.int(1 << 30) / (1 << 30)) - 1);
    if (this.o.debt) d += this.o.debt.take(worker);
    // ea1: the worker blocked while it had nothing to do; waking it up takes a while.
    if (this.wakeLatency > 0 && this.clock > this.lastEnd[worker]!) d += this.wakeLatency;
    checkDuration(d, this.clock, this.o.graph, this.o.platform, task, worker);
    this.lastEnd[worker] = this.clock + d;
    if (task >= this.startOf.length) {
      const next = new Float64Array(Math.max(task + 1, this.startOf.length * 2));
      next.set(this.startOf);
      this.startOf = next;
    }
    this.startOf[task] = this.clock;
    this.heap.push(this.clock + d, EV_TASK_END, task);
  }

  /** The engine recycled tasks [0, k) (Engine.compact): the running tasks' ids shift down. */
  rebase(k: number): void {
    this.heap.shiftPayloads(EV_TASK_END, -k);
    this.startOf.copyWithin(0, k);
  }

  copy(id: number): void {
    const e = this.engine;
    const pair = e.trSrc.data[id]! * this.nodes + e.trDst.data[id]!;
    if (!(this.latency[pair]! >= 0))
      throw new Error(`engine issued transfer ${id} between nodes without a route`);
    if (this.active[pair]! < this.streams) this.startCopy(id, pair);
    else this.waiting[pair]!.push(id);
  }

  urgent(id: number): void {
    this.net.promote(id, this.clock);
  }

  free(): void {
    // Memory is bookkeeping only in virtual time.
  }

  /** Virtual time of the next event (a task end, a copy's start or end), Infinity when none. */
  nextTime(): number {
    return Math.min(this.heap.peekTime(), this.net.nextCompletion());
  }

  /**
   * Moves the clock to `t` (a co-simulation's shared clock: another engine's event, a message):
   * nothing of this backend happens before `t`, so nothing is skipped.
   */
  advance(t: number): void {
    if (t < this.clock || t > this.nextTime()) {
      throw new Error(
        `cannot move the clock from ${this.clock} s to ${t} s (next event at ${this.nextTime()} s)`,
      );
    }
    this.clock = t;
  }

  /**
   * Delivers the next event to `sink`; returns how many were delivered (0: none left, or, with
   * `until`, none at or before that time).
   */
  poll(sink: EventSink, until = Number.POSITIVE_INFINITY): number {
    const heap = this.heap;
    const net = this.net;
    for (;;) {
      const tHeap = heap.peekTime();
      const tNet = net.nextCompletion();
      if (tHeap === Number.POSITIVE_INFINITY && tNet === Number.POSITIVE_INFINITY) return 0;
      if (tHeap > until && tNet > until) return 0;
      this.guard.step(tNet < tHeap ? tNet : tHeap, this.completed, this.engine, net.active);
      if (tNet < tHeap) {
        this.clock = tNet;
        const done = this.done;
        done.length = 0;
        net.complete(tNet, done);
        for (let i = 0; i < done.length; i++) {
          const id = done.data[i]!;
          this.channelDone(id);
          sink.transferFinished(id, this.copyStart[id]!);
        }
        this.completed += done.length;
        return done.length;
      }
      this.clock = tHeap;
      const kind = heap.peekKind();
      const payload = heap.peekPayload();
      heap.pop();
      if (kind === EV_TASK_END) {
        this.completed++;
        sink.taskEnded(payload, -1, this.startOf[payload]!, tHeap, undefined);
        return 1;
      }
      const e = this.engine;
      const bytes = this.o.graph.handleSize.data[e.trHandle.data[payload]!]!;
      const urgent = e.trUrgent.data[payload] === 1;
      net.add(payload, bytes, e.trSrc.data[payload]!, e.trDst.data[payload]!, urgent, tHeap);
    }
  }

  wait(): null {
    return null;
  }

  /** Starts copy `id` on its node pair's stream: latency first, then the flow. */
  private startCopy(id: number, pair: number): void {
    if (id >= this.copyStart.length) {
      const next = new Float64Array(Math.max(id + 1, this.copyStart.length * 2));
      next.set(this.copyStart);
      this.copyStart = next;
    }
    this.copyStart[id] = this.clock;
    this.active[pair]!++;
    this.heap.push(this.clock + this.latency[pair]!, EV_FLOW_START, id);
  }

  /** Copy `id` ended: its stream takes the next waiting copy, those a task waits for first. */
  private channelDone(id: number): void {
    const e = this.engine;
    const pair = e.trSrc.data[id]! * this.nodes + e.trDst.data[id]!;
    this.active[pair]!--;
    const queue = this.waiting[pair]!;
    if (queue.length === 0) return;
    // The first copy a task waits for, else the oldest: a scan of the (short) queue, no allocation.
    const urgent = e.trUrgent.data;
    let pick = 0;
    for (let i = 0; i < queue.length; i++) {
      if (urgent[queue.at(i)] === 1) {
        pick = i;
        break;
      }
    }
    const next = queue.at(pick);
    if (pick === 0) queue.shift();
    else queue.removeAt(pick);
    this.startCopy(next, pair);
  }
}
