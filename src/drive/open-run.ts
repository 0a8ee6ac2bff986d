/**
 * The one place a run is put together (issue 23): the engine with its policies and duration
 * model, the backend (made by the registry from its name, or by its caller), the run's
 * statistics and observers, and the driver loop. Every caller opens its runs here: the simulator
 * (src/sim/simulator.ts, behind simulate(), the partitioning iterations and each node of the
 * simulated cluster), the Runtime's sessions (src/exec/session.ts: worker threads, WebGPU,
 * the simulated backend; each MPI rank runs a Runtime) and the backend conformance suite.
 * The caller then opens the engine (engine.open / engine.start) and drives it; what differs
 * between callers is only how tasks arrive and what the report says.
 *
 * A real backend times its tasks itself (the engine hands tasks out ahead of their start), so
 * on one the observers are attached without their task callbacks and the driver gives them
 * the measured times; on a simulated backend they observe the engine directly.
 */
import { Engine, type EngineObserver } from '../core/engine.ts';
import type { EngineOptions } from '../core/engine-options.ts';
import type { TaskGraph } from '../core/graph.ts';
import type { DurationModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import type { EvictionPolicy, Scheduler } from '../core/policy.ts';
import { createEviction } from '../evict/index.ts';
import { createScheduler, type SchedulerOptions } from '../sched/index.ts';
import { RunStats } from '../trace/stats.ts';
import type { Backend, CopyStartObserver } from './backend.ts';
import { Driver, type DriverHooks } from './driver.ts';
import { withoutTaskEvents } from './task-events.ts';

/** What opening a run takes. */
export interface OpenRunOptions {
  graph: TaskGraph;
  platform: Platform;
  /**
   * The backend, not attached yet: one the registry made by name (createBackend in
   * src/drive/registry.ts: 'simulated', 'threads', 'webgpu'), or one a caller made itself (the
   * simulator's SimBackend with its noise and streams). openRun does not import the registry,
   * so that a simulation loads no real-driver module.
   */
  backend: Backend;
  /** Scheduler name (src/sched/index.ts) or instance; default 'eager'. */
  scheduler?: string | Scheduler;
  /** Options of a scheduler given by name. */
  schedulerOptions?: SchedulerOptions;
  /** Eviction policy name (src/evict/index.ts) or instance; default 'lru'. */
  eviction?: string | EvictionPolicy;
  /** The duration model the policies (and a simulated backend) read. */
  model: DurationModel;
  /** Seed of the run's random draws; default 1. */
  seed?: number;
  /** The engine's other options (pipelines, lookahead, coherence, clean-first, recycling). */
  engine?: Omit<EngineOptions, 'graph' | 'platform' | 'scheduler' | 'eviction' | 'model' | 'seed'>;
  /** Observers of the engine besides the run's statistics (attached after them, in order). */
  observers?: (engine: Engine) => EngineObserver[];
  /**
   * Observers of the moments copies start moving (default: the observers that have a
   * transferMoved method: on a simulated backend the engine's, as they stand when the first
   * copy completes; on a real one those given in `observers`).
   */
  copyObservers?: CopyStartObserver[];
  /** The caller's hooks into the driver loop. */
  hooks?: DriverHooks;
  /** Ended tasks between progress hooks (default 1,000 on a real backend, 10,000 otherwise). */
  progressEvery?: number;
  /** Wraps the backend before the driver sees it (the conformance suite's contract spy). */
  wrap?: (backend: Backend, engine: Engine) => Backend;
}

/** An opened run: drive it with `driver`, after opening the engine. */
export interface OpenedRun {
  engine: Engine;
  /** The backend the driver drives (the wrapped one, with `wrap`). */
  backend: Backend;
  driver: Driver;
  /** The run's statistics (the first observer of the engine). */
  stats: RunStats;
  /** Whether the backend runs on the wall clock. */
  real: boolean;
}

/**
 * Opens a run: makes the policies, the engine and the backend, attaches the backend and the
 * observers, and makes the driver. The engine is not opened yet (the caller says when its
 * tasks arrive). Throws the engine's LocusError for invalid options.
 */
export function openRun(o: OpenRunOptions): OpenedRun {
  const { graph, platform, model } = o;
  const seed = o.seed ?? 1;
  const scheduler =
    typeof o.scheduler === 'object'
      ? o.scheduler
      : createScheduler(o.scheduler ?? 'eager', o.schedulerOptions);
  const eviction = typeof o.eviction === 'object' ? o.eviction : createEviction(o.eviction ?? 'lru');
  let backend = o.backend;
  const real = backend.mode === 'real';
  const engine = new Engine({ ...o.engine, graph, platform, scheduler, eviction, model, seed });
  engine.counters.measuredTaskTimes = real;
  backend.attach(engine);
  if (o.wrap) backend = o.wrap(backend, engine);
  const stats = new RunStats(engine);
  const observers: EngineObserver[] = [stats, ...(o.observers?.(engine) ?? [])];
  for (const ob of observers) engine.observe(real ? withoutTaskEvents(ob) : ob);
  const copyObservers =
    o.copyObservers ??
    (real
      ? (observers.filter(
          (ob) => typeof (ob as Partial<CopyStartObserver>).transferMoved === 'function',
        ) as unknown as CopyStartObserver[])
      : undefined);
  const driver = new Driver(engine, backend, {
    timedObservers: real ? observers : [],
    ...(copyObservers ? { copyObservers } : {}),
    progressEvery: o.progressEvery ?? (real ? 1000 : 10_000),
    hooks: o.hooks ?? {},
  });
  return { engine, backend, driver, stats, real };
}
