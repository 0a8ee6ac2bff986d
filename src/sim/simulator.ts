/**
 * The simulated driver: owns a virtual clock, an event heap of task completions and flow
 * starts, and the fair-sharing network; feeds the engine its events and executes its
 * commands in virtual time. Task durations come from the duration model. Copies between a
 * pair of nodes go through that pair's stream (one at a time by default, those a task waits
 * for first); a copy first pays the latencies of its route's links, then flows at its fair
 * share of their bandwidth.
 * Deterministic: same graph, platform, policies and seed give the same event sequence
 * (except with chargeScheduling, whose charges are measured wall-clock times).
 */
import { Cmd, Engine, type EngineOptions } from '../core/engine.ts';
import { Rng } from '../core/rng.ts';
import { LocusError } from '../core/types.ts';
import { chargingScheduler, SchedulingDebt } from './charging.ts';
import { EventHeap } from './event-heap.ts';
import { checkDuration, ProgressGuard } from './guard.ts';
import { Network } from './network.ts';

const EV_TASK_END = 0;
const EV_FLOW_START = 1;

/** Options of a simulated run beyond the engine's. */
export interface SimOptions extends EngineOptions {
  /** Called every `progressEvery` finished tasks with (finished, total). */
  onProgress?: (finished: number, total: number) => void;
  /** Task count between progress calls (default 10,000). */
  progressEvery?: number;
  /** Relative spread of task durations around the model (see simulate()). */
  noise?: number;
  /** Charge scheduling decisions' wall-clock cost to the workers (see simulate()). */
  chargeScheduling?: boolean;
  /**
   * Idle policy ea1 (seed 002): threads with no ready task block and pay `wakeLatency`
   * (seconds) when work arrives: a task that starts after an idle gap on its worker starts
   * that much later.
   */
  wakeLatency?: number;
  /**
   * Copies in flight at once between a given pair of nodes (default 1: StarPU issues a
   * device's transfers on one CUDA stream per direction, so they run one after the other;
   * Infinity lets every copy start at once and share bandwidth).
   */
  streams?: number;
}

/** What a simulated run returns beyond what observers recorded. */
export interface SimResult {
  /** Virtual time at which the last task finished (seconds). */
  makespanS: number;
  /** Virtual time at which the run ended, final write-backs included (seconds). */
  endS: number;
  /** Events the simulator processed. */
  events: number;
  /** Wall-clock seconds spent in scheduler calls (measured only with chargeScheduling, else 0). */
  schedulingS: number;
}

/** Drives an Engine in virtual time. */
export class Simulator {
  /** The engine being driven (attach observers before run()). */
  readonly engine: Engine;
  private readonly heap = new EventHeap();
  private readonly net: Network;
  private readonly options: SimOptions;
  private now = 0;
  private makespan = 0;
  private events = 0;
  private readonly noise: number;
  private readonly noiseRng: Rng;
  /** Scheduling cost owed by each worker (with chargeScheduling). */
  readonly debt: SchedulingDebt | undefined;
  private readonly nodes: number;
  private readonly latency: Float64Array;
  private readonly streams: number;
  private readonly active: Int32Array;
  private readonly waiting: number[][];
  private readonly wakeLatency: number;
  /** End of each worker's last task (for ea1's wake-ups). */
  private readonly lastEnd: Float64Array;

  constructor(options: SimOptions) {
    this.options = options;
    const noise = options.noise ?? 0;
    if (!(noise >= 0 && noise < 1)) throw new LocusError(`--noise must be in [0, 1) (got ${noise})`);
    this.noise = noise;
    this.noiseRng = new Rng((options.seed ?? 1) ^ 0x5eed);
    if (options.chargeScheduling) {
      this.debt = new SchedulingDebt(options.platform.workers.length);
      options = { ...options, scheduler: chargingScheduler(options.scheduler, this.debt) };
    }
    this.engine = new Engine(options);
    this.net = new Network(options.platform);
    const p = options.platform;
    this.nodes = p.nodes.length;
    // Latency of each direct route (sum over its links), -1 where there is none.
    this.latency = new Float64Array(this.nodes * this.nodes).fill(-1);
    this.streams = options.streams ?? 1;
    this.wakeLatency = options.wakeLatency ?? 0;
    if (!(this.wakeLatency >= 0)) throw new LocusError(`wake latency must be >= 0 (got ${this.wakeLatency})`);
    this.lastEnd = new Float64Array(options.platform.workers.length).fill(-1);
    if (!(this.streams >= 1)) throw new LocusError(`streams must be at least 1 (got ${this.streams})`);
    this.active = new Int32Array(this.nodes * this.nodes);
    this.waiting = Array.from({ length: this.nodes * this.nodes }, () => []);
    for (let r = 0; r < this.nodes * this.nodes; r++) {
      const route = p.routes[r];
      if (route) this.latency[r] = route.reduce((s, l) => s + p.links[l]!.latency, 0);
    }
  }

  /** Runs to completion and returns the timing. */
  run(): SimResult {
    const engine = this.engine;
    const heap = this.heap;
    const net = this.net;
    const done: number[] = [];
    const total = this.options.graph.taskCount;
    const every = this.options.progressEvery ?? 10_000;
    const progress = this.options.onProgress;
    let nextProgress = every;
    const guard = new ProgressGuard();
    let copies = 0;
    engine.start(0);
    this.drain();
    while (!engine.isFinished) {
      const tHeap = heap.peekTime();
      const tNet = net.nextCompletion();
      if (tHeap === Number.POSITIVE_INFINITY && tNet === Number.POSITIVE_INFINITY) {
        throw new Error(
          `simulation stalled at ${this.now}s with ${total - engine.finishedTasks} of ${total} tasks not finished (scheduler ${engine.scheduler.name} returned no task and nothing is in flight)`,
        );
      }
      this.events++;
      guard.step(Math.min(tNet, tHeap), engine.finishedTasks + copies, engine, net.active);
      if (tNet < tHeap) {
        this.now = tNet;
        done.length = 0;
        net.complete(tNet, done);
        copies += done.length;
        for (const id of done) {
          this.channelDone(id);
          engine.transferFinished(id, tNet);
          this.drain();
        }
        continue;
      }
      this.now = tHeap;
      const kind = heap.peekKind();
      const payload = heap.peekPayload();
      heap.pop();
      if (kind === EV_TASK_END) {
        this.makespan = tHeap;
        engine.taskFinished(payload, tHeap);
        if (progress && engine.finishedTasks >= nextProgress) {
          progress(engine.finishedTasks, total);
          nextProgress += every;
        }
      } else {
        const bytes = this.options.graph.handleSize.data[engine.trHandle.data[payload]!]!;
        const urgent = engine.trUrgent.data[payload] === 1;
        net.add(payload, bytes, engine.trSrc.data[payload]!, engine.trDst.data[payload]!, urgent, tHeap);
      }
      this.drain();
    }
    progress?.(engine.finishedTasks, total);
    return {
      makespanS: this.makespan,
      endS: this.now,
      events: this.events,
      schedulingS: this.debt?.total ?? 0,
    };
  }

  /** Starts copy `id` on its node pair's stream: latency first, then the flow. */
  private startCopy(id: number, pair: number): void {
    this.active[pair]!++;
    this.heap.push(this.now + this.latency[pair]!, EV_FLOW_START, id);
  }

  /** Copy `id` ended: its stream takes the next waiting copy, those a task waits for first. */
  private channelDone(id: number): void {
    const e = this.engine;
    const pair = e.trSrc.data[id]! * this.nodes + e.trDst.data[id]!;
    this.active[pair]!--;
    const queue = this.waiting[pair]!;
    if (queue.length === 0) return;
    let pick = queue.findIndex((t) => e.trUrgent.data[t] === 1);
    if (pick < 0) pick = 0;
    const next = queue[pick]!;
    queue.splice(pick, 1);
    this.startCopy(next, pair);
  }

  /** Executes the engine's pending commands at the current virtual time. */
  private drain(): void {
    const e = this.engine;
    const n = e.commandCount;
    if (n === 0) return;
    const ops = e.cmdOp.data;
    const as = e.cmdA.data;
    const bs = e.cmdB.data;
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      if (op === Cmd.RUN) {
        const task = as[i]!;
        const w = bs[i]!;
        let d = this.options.model.taskDuration(this.options.graph, task, w);
        if (this.noise > 0) d *= 1 + this.noise * (2 * (this.noiseRng.int(1 << 30) / (1 << 30)) - 1);
        if (this.debt) d += this.debt.take(w);
        // ea1: the worker blocked while it had nothing to do; waking it up takes a while.
        if (this.wakeLatency > 0 && this.now > this.lastEnd[w]!) d += this.wakeLatency;
        checkDuration(d, this.now, this.options.graph, this.options.platform, task, w);
        this.lastEnd[w] = this.now + d;
        this.heap.push(this.now + d, EV_TASK_END, task);
      } else if (op === Cmd.TRANSFER) {
        const id = as[i]!;
        const pair = e.trSrc.data[id]! * this.nodes + e.trDst.data[id]!;
        if (!(this.latency[pair]! >= 0))
          throw new Error(`engine issued transfer ${id} between nodes without a route`);
        if (this.active[pair]! < this.streams) this.startCopy(id, pair);
        else this.waiting[pair]!.push(id);
      } else if (op === Cmd.URGENT) this.net.promote(as[i]!, this.now);
      // FREE needs nothing in virtual time; FINISHED ends the loop through isFinished.
    }
    e.clearCommands();
  }
}
