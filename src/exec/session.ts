/**
 * One engine of a Runtime and what drives it (a session): the run openRun puts together
 * (src/drive/open-run.ts: the engine with the runtime's policies and duration model, the
 * backend from the registry — worker threads or WebGPU in real mode, the simulator otherwise —
 * the statistics and the driver loop with the runtime's hooks), plus the sample recorder.
 * A runtime keeps one session for its whole life, or one per batch under a policy that cannot
 * take tasks while it runs.
 */
import { defaultScheduler } from '../core/default-scheduler.ts';
import type { Engine } from '../core/engine.ts';
import type { TaskGraph } from '../core/graph.ts';
import type { DurationModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import type { Backend } from '../drive/backend.ts';
import type { Driver, DriverHooks } from '../drive/driver.ts';
import { openRun } from '../drive/open-run.ts';
import { type BackendSetup, createBackend } from '../drive/registry.ts';
import { SampleRecorder } from '../perf/recorder.ts';
import { createScheduler } from '../sched/index.ts';
import type { ChromeTrace } from '../trace/chrome.ts';
import type { RunStats } from '../trace/stats.ts';
import type { BufferStore } from './buffers.ts';
import type { WorkerPool } from './pool.ts';
import { type ReadAheadStats, withReadAhead } from './read-ahead.ts';
import type { RuntimeOptions } from './runtime-options.ts';
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
  /**
   * Let the engine recycle finished tasks' records (EngineOptions.recycle; default false): the
   * owner then calls engine.compact() and follows the shift.
   */
  recycle?: boolean;
  /** Out of core in real mode: the read-ahead's counts (it runs when options.readAhead is true). */
  readAhead?: ReadAheadStats;
  /** Real GPUs (the webgpu backend): see BackendSetup.gpu. */
  gpu?: BackendSetup['gpu'];
  hooks: DriverHooks;
  /** Where the policies' warnings go (the runtime's onWarning, else stderr). */
  warn: (message: string) => void;
}

/** Opens a session: the engine takes the graph's tasks from `setup.from` on. */
export function openSession(setup: SessionSetup): Session {
  const { graph, platform, options, model } = setup;
  if (options.priorities === 'bottom-level') graph.setBottomLevelPriorities();
  const real = (options.mode ?? 'real') === 'real';
  let recorder: SampleRecorder | undefined;
  let trace: ChromeTrace | undefined;
  const scheduler = options.scheduler ?? defaultScheduler(real ? 'real' : 'simulated');
  // Out of core in real mode: the scheduler reads ahead from the disk (src/exec/read-ahead.ts).
  const readAhead = real && platform.nodes.some((n) => n.kind === 'disk') && options.readAhead === true;
  const run = openRun({
    graph,
    platform,
    backend: createBackend(real ? (setup.gpu ? 'webgpu' : 'threads') : 'simulated', {
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
    }),
    scheduler: readAhead
      ? withReadAhead(
          typeof scheduler === 'object' ? scheduler : createScheduler(scheduler, options.schedulerOptions),
          { stats: setup.readAhead },
        )
      : scheduler,
    ...(options.schedulerOptions ? { schedulerOptions: options.schedulerOptions } : {}),
    eviction: options.eviction ?? 'lru',
    model,
    seed: options.seed ?? 1,
    engine: {
      cpuPipeline: options.pipeline ?? (real ? 4 : undefined),
      gpuPipeline: options.pipeline ?? (real ? 4 : undefined),
      gpuLookahead: options.lookahead,
      cleanFirst: options.cleanFirst,
      minClean: options.minClean,
      targetClean: options.targetClean,
      issueAhead: real,
      calibrate: options.calibrate,
      recycle: setup.recycle ?? false,
      onWarning: setup.warn,
    },
    observers: (engine) => {
      recorder = setup.recordSamples
        ? new SampleRecorder(graph, platform, (t) => setup.payloads.kernel.data[t]! >= 0)
        : undefined;
      trace = setup.trace(engine);
      return [...(recorder ? [recorder] : []), ...(trace ? [trace] : [])];
    },
    hooks: setup.hooks,
  });
  const { engine, backend, driver, stats } = run;
  // Out of core the disk node is every handle's home, as the engine makes it (src/platform/disk.ts).
  const disk = platform.nodes.findIndex((n) => n.kind === 'disk');
  setup.store.useNodes(platform.nodes.length, disk >= 0 ? disk : platform.homeNode, platform.homeNode);
  engine.open(backend.now(), setup.from);
  backend.start();
  return {
    engine,
    driver,
    backend,
    stats,
    recorder,
    dynamic: engine.scheduler.dynamic === true && engine.eviction.dynamic === true,
    wall0: performance.now(),
  };
}
