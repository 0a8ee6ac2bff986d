/**
 * One engine of a Runtime and what drives it (a session): the engine with the runtime's
 * policies and duration model, the statistics and sample recorder, the backend (from the
 * registry, src/drive/registry.ts: worker threads in real mode, the simulator otherwise) and
 * the driver loop with the runtime's hooks.
 * A runtime keeps one session for its whole life, or one per batch under a policy that cannot
 * take tasks while it runs.
 */
import { Engine, type EngineObserver } from '../core/engine.ts';
import type { TaskGraph } from '../core/graph.ts';
import type { DurationModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import type { Backend } from '../drive/backend.ts';
import { Driver, type DriverHooks } from '../drive/driver.ts';
import { type BackendSetup, backendEntry } from '../drive/registry.ts';
import { createEviction } from '../evict/index.ts';
import { SampleRecorder } from '../perf/recorder.ts';
import { createScheduler } from '../sched/index.ts';
import type { ChromeTrace } from '../trace/chrome.ts';
import { RunStats } from '../trace/stats.ts';
import type { BufferStore } from './buffers.ts';
import type { WorkerPool } from './pool.ts';
import type { RuntimeOptions } from './runtime-options.ts';
import { withoutTaskEvents } from './task-events.ts';
import type { TaskPayloads } from './thread-backend.ts';

/** One engine and its backend: the runtime's life, or one batch under a static policy. */
export interface Session {
  engine: Engine;
  driver: Driver;
  backend: Backend;
  stats: RunStats;
  recorder: SampleRecorder | undefined;
  /** The policies take tasks while they run (else the session is one batch). */
  dynamic: boolean;
  wall0: number;
}

/** What a session is made from. */
export interface SessionSetup {
  graph: TaskGraph;
  platform: Platform;
  options: RuntimeOptions;
  model: DurationModel;
  /** Record measured task times for the performance models. */
  recordSamples: boolean;
  payloads: TaskPayloads;
  /** The worker threads (real mode). */
  pool: WorkerPool | undefined;
  store: BufferStore;
  /** The runtime's Chrome trace, created on the first engine when asked for. */
  trace: (engine: Engine) => ChromeTrace | undefined;
  /** Tasks before it ran on earlier engines. */
  from: number;
  /** Real GPUs (the webgpu backend): see BackendSetup.gpu. */
  gpu?: BackendSetup['gpu'];
  hooks: DriverHooks;
}

/** Opens a session: the engine takes the graph's tasks from `setup.from` on. */
export function openSession(setup: SessionSetup): Session {
  const { graph, platform, options, model } = setup;
  const s = options.scheduler;
  const scheduler = typeof s === 'object' ? s : createScheduler(s ?? 'eager', options.schedulerOptions);
  const eviction = createEviction(options.eviction ?? 'lru');
  if (options.priorities === 'bottom-level') graph.setBottomLevelPriorities();
  const real = (options.mode ?? 'real') === 'real';
  const engine = new Engine({
    graph,
    platform,
    scheduler,
    eviction,
    model,
    seed: options.seed ?? 1,
    cpuPipeline: options.pipeline ?? (real ? 4 : undefined),
    gpuPipeline: options.pipeline ?? (real ? 4 : undefined),
    gpuLookahead: options.lookahead,
    cleanFirst: options.cleanFirst,
    minClean: options.minClean,
    targetClean: options.targetClean,
    issueAhead: real,
    calibrate: options.calibrate,
  });
  const stats = new RunStats(engine);
  const recorder = setup.recordSamples
    ? new SampleRecorder(graph, platform, (t) => setup.payloads.kernel.data[t]! >= 0)
    : undefined;
  const trace = setup.trace(engine);
  const observers: EngineObserver[] = [stats];
  if (recorder) observers.push(recorder);
  if (trace) observers.push(trace);
  const backend = backendEntry(real ? (setup.gpu ? 'webgpu' : 'threads') : 'simulated').create({
    graph,
    platform,
    model,
    seed: options.seed ?? 1,
    payloads: setup.payloads,
    store: setup.store,
    pool: setup.pool,
    throttle: options.throttle ?? false,
    checkAccesses: options.checkAccesses ?? false,
    ...(setup.gpu ? { gpu: setup.gpu } : {}),
  });
  // A real backend's driver reports task times itself (the engine hands tasks out ahead).
  for (const ob of observers) engine.observe(real ? withoutTaskEvents(ob) : ob);
  backend.attach(engine);
  const driver = new Driver(engine, backend, {
    timedObservers: real ? observers : [],
    copyObservers: trace ? [trace] : [],
    progressEvery: real ? 1000 : 10_000,
    hooks: setup.hooks,
  });
  setup.store.useNodes(platform.nodes.length, platform.homeNode);
  engine.open(backend.now(), setup.from);
  backend.start();
  return {
    engine,
    driver,
    backend,
    stats,
    recorder,
    dynamic: scheduler.dynamic === true && eviction.dynamic === true,
    wall0: performance.now(),
  };
}
