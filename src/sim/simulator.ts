/**
 * A simulated run: the engine, the simulated backend (backend.ts) and the one command loop
 * (src/drive/driver.ts), put together by openRun (src/drive/open-run.ts). By default the whole graph is submitted at start; with
 * `submitWindow` an application thread submits it progressively, as StarPU's
 * STARPU_LIMIT_MAX_SUBMITTED_TASKS makes a submitting thread block: at most `submitWindow`
 * tasks submitted and not ended at once, topped up whenever that count falls to 90% of it.
 * Deterministic: same graph, platform, policies and seed give the same event sequence
 * (except with chargeScheduling, whose charges are measured wall-clock times).
 */
import type { Engine, EngineOptions } from '../core/engine.ts';
import type { TaskGraph } from '../core/graph.ts';
import { LocusError } from '../core/types.ts';
import type { Driver, DriverHooks } from '../drive/driver.ts';
import { openRun } from '../drive/open-run.ts';
import type { RunStats } from '../trace/stats.ts';
import { SimBackend } from './backend.ts';
import { chargingScheduler, SchedulingDebt } from './charging.ts';

/** Options of a simulated run beyond the engine's. */
export interface SimOptions extends EngineOptions {
  /** Called every `progressEvery` ended tasks with (ended, total). */
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
  /**
   * Submit the graph progressively: at most this many tasks submitted and not ended
   * (StarPU's STARPU_LIMIT_MAX_SUBMITTED_TASKS); default: the whole graph at start.
   */
  submitWindow?: number;
  /**
   * An application that submits its tasks as it goes (an endless stream, say) instead of a
   * graph built beforehand: see TaskSource. Needs `submitWindow`. The engine recycles the
   * records of finished tasks (EngineOptions.recycle), so memory stays bounded by the window.
   */
  source?: TaskSource;
  /**
   * Hooks into the driver loop besides progress (a simulated cluster's node hears its
   * acquires and task ends); for callers that drive `driver` themselves instead of run().
   */
  hooks?: DriverHooks;
}

/**
 * An application thread that submits tasks progressively: appends up to `max` tasks (and
 * the data and codelets they need) to `graph` and returns how many it appended; fewer than
 * `max` means the stream has ended. Task ids it sees in `graph` shift down as the engine
 * recycles finished tasks (graph.retired counts those dropped).
 */
export type TaskSource = (graph: TaskGraph, max: number) => number;

/** What a simulated run returns beyond what observers recorded. */
export interface SimResult {
  /** Virtual time at which the last task finished (seconds). */
  makespanS: number;
  /** Virtual time at which the run ended, final write-backs included (seconds). */
  endS: number;
  /** Events the backend delivered (task ends and copy completions). */
  events: number;
  /** Wall-clock seconds spent in scheduler calls (measured only with chargeScheduling, else 0). */
  schedulingS: number;
}

/**
 * A window submits a graph built beforehand in order, the engine reading the dependencies in
 * the order the graph recorded them (those inferred from data, and explicit ones, at the time
 * they were added). A dependency recorded after one into a later task M, M beyond the first
 * window, reaches a task that may already be submitted when the engine reads it (the run
 * would stop midway): refused here, before the run. Within the first window the order does
 * not matter (it is submitted at once). O(edges).
 */
function checkEdgeOrder(graph: TaskGraph, window: number): void {
  const target = graph.edgeTarget.data;
  let latest = -1; // the edge into the latest task so far
  for (let e = 0; e < graph.edgeCount; e++) {
    const t = target[e]!;
    if (latest < 0 || t >= target[latest]!) {
      latest = e;
      continue;
    }
    if (target[latest]! < window) continue;
    const from = graph.taskLabel(graph.edgeSource.data[e]!);
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `submitWindow: the dependency ${from} -> ${graph.taskLabel(t)} was added after task ${graph.taskLabel(target[latest]!)} was submitted; a window submits the graph in order, so add each dependency right after submitting its later task, or run without submitWindow`,
    );
  }
}

/** Drives an Engine in virtual time. */
export class Simulator {
  /** The engine being driven (attach observers before run()). */
  readonly engine: Engine;
  /** The simulated backend (src/sim/backend.ts, from the registry). */
  readonly backend: SimBackend;
  /** The command loop (run() drives it; a caller may drive it step by step instead). */
  readonly driver: Driver;
  /** The run's statistics (the engine's first observer). */
  readonly stats: RunStats;
  /** Scheduling cost owed by each worker (with chargeScheduling). */
  readonly debt: SchedulingDebt | undefined;
  private readonly options: SimOptions;

  constructor(options: SimOptions) {
    this.options = options;
    if (options.chargeScheduling) {
      this.debt = new SchedulingDebt(options.platform.workers.length);
      options = { ...options, scheduler: chargingScheduler(options.scheduler, this.debt) };
    }
    const w = options.submitWindow;
    if (w !== undefined && !(Number.isInteger(w) && w >= 1)) {
      throw new LocusError('LOCUS_OPTION_INVALID', `submitWindow must be a positive integer (got ${w})`);
    }
    if (options.source !== undefined && w === undefined) {
      throw new LocusError(
        'LOCUS_OPTION_CONFLICT',
        'a task source needs submitWindow (the tasks submitted and not ended at once)',
      );
    }
    const { graph, platform, scheduler, eviction, model, seed, onProgress } = options;
    if (w !== undefined && options.source === undefined && w < graph.taskCount) checkEdgeOrder(graph, w);
    // A source's total is unknown until it ends (NaN); counts include recycled tasks.
    const total = options.source !== undefined ? Number.NaN : graph.taskCount;
    // The simulated backend with the simulator's own options (noise, charged scheduling, ea1's
    // wake-ups, streams): made here, put together with the rest by openRun.
    this.backend = new SimBackend({
      graph,
      platform,
      model,
      seed,
      noise: options.noise,
      debt: this.debt,
      wakeLatency: options.wakeLatency,
      streams: options.streams,
    });
    const run = openRun({
      graph,
      platform,
      backend: this.backend,
      scheduler,
      eviction,
      model,
      seed,
      engine: options.source !== undefined ? { ...options, recycle: options.recycle ?? true } : options,
      hooks: {
        ...options.hooks,
        ...(onProgress ? { progress: (done: number) => onProgress(done + graph.retired, total) } : {}),
      },
      ...(options.progressEvery !== undefined ? { progressEvery: options.progressEvery } : {}),
    });
    this.engine = run.engine;
    this.driver = run.driver;
    this.stats = run.stats;
  }

  /**
   * The application thread of a task source: whenever the tasks submitted and not ended fall
   * to 90% of the window, it asks the source for enough tasks to fill the window again, then
   * the engine recycles what it can and the backend and driver follow the shift. Returns the
   * driver's stop condition, which tops the window up.
   */
  private sourceThread(driver: Driver, source: TaskSource, window: number): () => boolean {
    const engine = this.engine;
    const graph = this.options.graph;
    const low = Math.max(0, Math.floor(window * 0.9));
    let open = true;
    engine.open(0);
    const topUp = (): void => {
      if (!open || engine.submittedTasks - engine.finishedTasks > low) return;
      const want = engine.finishedTasks + window - graph.taskCount;
      const added = want > 0 ? source(graph, want) : 0;
      if (!(Number.isInteger(added) && added >= 0 && added <= want)) {
        throw new LocusError(
          'LOCUS_STATE_INVALID',
          `the task source returned ${added} for at most ${want} tasks`,
        );
      }
      const now = this.backend.now();
      engine.submitted(now);
      if (added < want) {
        open = false;
        engine.close(now);
      }
      driver.execute();
      const shift = engine.compact();
      if (shift > 0) {
        this.backend.rebase(shift);
        driver.rebase(shift);
      }
    };
    topUp();
    return () => {
      if (engine.isFinished) return true;
      topUp();
      return false;
    };
  }

  /** Runs to completion and returns the timing. */
  run(): SimResult {
    const { driver, done } = this.begin();
    driver.runSync(done);
    return this.result(driver);
  }

  /**
   * Runs as run() does, yielding to the event loop every few milliseconds, so that `signal`
   * (Ctrl-C, say) can stop it: it then throws a LOCUS_INTERRUPTED LocusError and the engine
   * stays as it was, what ended so far recorded by its observers.
   */
  async runAsync(signal?: AbortSignal): Promise<SimResult> {
    const { driver, done } = this.begin();
    await driver.run(done, signal);
    return this.result(driver);
  }

  /** Starts the engine (and the submitting thread) and returns the driver and its stop condition. */
  private begin(): { driver: Driver; done: () => boolean } {
    const engine = this.engine;
    const graph = this.options.graph;
    const total = this.options.source !== undefined ? Number.NaN : graph.taskCount;
    const window = this.options.submitWindow;
    const driver = this.driver;
    if (this.options.source !== undefined) {
      return { driver, done: this.sourceThread(driver, this.options.source, window!) };
    }
    if (window === undefined || window >= total) {
      engine.start(0);
      return { driver, done: () => engine.isFinished };
    }
    // The application thread: top the window up whenever it has drained to 90%.
    const low = Math.max(0, Math.floor(window * 0.9));
    engine.open(0);
    let next = 0;
    const topUp = (): void => {
      if (next >= total || engine.submittedTasks - engine.finishedTasks > low) return;
      next = Math.min(total, engine.finishedTasks + window);
      engine.submitted(this.backend.now(), next);
      if (next === total) engine.close(this.backend.now());
      driver.execute();
    };
    topUp();
    return {
      driver,
      done: () => {
        if (engine.isFinished) return true;
        topUp();
        return false;
      },
    };
  }

  /** The timing of a run that ended (after a last progress call). */
  private result(driver: Driver): SimResult {
    const engine = this.engine;
    const retired = this.options.graph.retired;
    this.options.onProgress?.(engine.finishedTasks + retired, engine.submittedTasks + retired);
    return {
      makespanS: driver.makespan,
      endS: this.backend.now(),
      events: driver.events,
      schedulingS: this.debt?.total ?? 0,
    };
  }
}
