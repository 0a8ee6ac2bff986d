/**
 * A simulated run: the engine, the simulated backend (backend.ts) and the one command loop
 * (src/drive/driver.ts). By default the whole graph is submitted at start; with
 * `submitWindow` an application thread submits it progressively, as StarPU's
 * STARPU_LIMIT_MAX_SUBMITTED_TASKS makes a submitting thread block: at most `submitWindow`
 * tasks submitted and not ended at once, topped up whenever that count falls to 90% of it.
 * Deterministic: same graph, platform, policies and seed give the same event sequence
 * (except with chargeScheduling, whose charges are measured wall-clock times).
 */
import { Engine, type EngineOptions } from '../core/engine.ts';
import { LocusError } from '../core/types.ts';
import { Driver } from '../drive/driver.ts';
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
}

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

/** Drives an Engine in virtual time. */
export class Simulator {
  /** The engine being driven (attach observers before run()). */
  readonly engine: Engine;
  /** The simulated backend. */
  readonly backend: SimBackend;
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
    this.backend = new SimBackend({
      graph: options.graph,
      platform: options.platform,
      model: options.model,
      seed: options.seed,
      noise: options.noise,
      debt: this.debt,
      wakeLatency: options.wakeLatency,
      streams: options.streams,
    });
    this.engine = new Engine(options);
    this.backend.attach(this.engine);
  }

  /** Runs to completion and returns the timing. */
  run(): SimResult {
    const engine = this.engine;
    const total = this.options.graph.taskCount;
    const progress = this.options.onProgress;
    const window = this.options.submitWindow;
    const driver = new Driver(engine, this.backend, {
      progressEvery: this.options.progressEvery,
      hooks: progress ? { progress: (done) => progress(done, total) } : {},
    });
    if (window === undefined || window >= total) {
      engine.start(0);
      driver.runSync(() => engine.isFinished);
    } else {
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
      driver.runSync(() => {
        if (engine.isFinished) return true;
        topUp();
        return false;
      });
    }
    progress?.(engine.finishedTasks, total);
    return {
      makespanS: driver.makespan,
      endS: this.backend.now(),
      events: driver.events,
      schedulingS: this.debt?.total ?? 0,
    };
  }
}
