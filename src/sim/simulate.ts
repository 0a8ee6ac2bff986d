/**
 * One call to simulate a task graph on a platform under named policies and get the run
 * report: the library entry point behind `locus run` (simulated mode).
 */

import type { CoherenceOptions } from '../core/engine.ts';
import type { TaskGraph } from '../core/graph.ts';
import { type DurationModel, PlatformModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import type { EvictionPolicy, Scheduler } from '../core/policy.ts';
import { checkSchedulerOptions } from '../core/scheduler-option-readers.ts';
import { LocusError } from '../core/types.ts';
import { createEviction } from '../evict/index.ts';
import { createScheduler, type SchedulerOptions } from '../sched/index.ts';
import { ChromeTrace } from '../trace/chrome.ts';
import { EnergyMeter, type IdlePolicy } from '../trace/energy.ts';
import { buildReport, type RunReport } from '../trace/report.ts';
import type { RunStats } from '../trace/stats.ts';
import { type SimResult, Simulator, type TaskSource } from './simulator.ts';

/** Options of simulate(). */
/**
 * The settings that a sweep's runs and a simulated cluster's nodes take as one machine's
 * simulation does (see SimulateOptions): one definition for all three.
 */
export type RunSettings = Pick<
  SimulateOptions,
  'schedulerOptions' | 'gpuPipeline' | 'gpuLookahead' | 'streams' | 'cleanFirst' | 'minClean' | 'targetClean'
>;

export interface SimulateOptions {
  /** The task graph (all tasks submitted). */
  graph: TaskGraph;
  /** The machine. */
  platform: Platform;
  /** Scheduler name (see SCHEDULERS) or instance; default 'eager'. */
  scheduler?: string | Scheduler;
  /** Options for a scheduler given by name. */
  schedulerOptions?: SchedulerOptions;
  /**
   * Relative spread of simulated task durations around the model (0 = exact): each duration
   * is drawn uniformly in [d (1 - noise), d (1 + noise)] from the run's seed.
   */
  noise?: number;
  /**
   * Add each scheduling decision's measured wall-clock cost to the deciding worker's virtual
   * time (seed 000 counts the cost of computing the schedule in its GFlop/s).
   */
  chargeScheduling?: boolean;
  /** Copies in flight at once per pair of nodes (default 1, see SimOptions.streams). */
  streams?: number;
  /**
   * Submit the graph progressively, at most this many tasks submitted and not ended (see
   * SimOptions.submitWindow); default: the whole graph at start.
   */
  submitWindow?: number;
  /**
   * An application that appends its tasks to `graph` as the run goes (see TaskSource), with
   * `submitWindow`; finished tasks' records are recycled, so an endless stream runs in bounded
   * memory. `graph` then starts with the data and codelets the source uses (or none).
   */
  source?: TaskSource;
  /**
   * With a `source`, recycle finished tasks' records (default true). false keeps every record,
   * as a run of the whole graph would: the reference a check of the recycling compares with.
   */
  recycle?: boolean;
  /** Eviction policy name (see EVICTION_POLICIES) or instance; default 'lru'. */
  eviction?: string | EvictionPolicy;
  /** Seed of the run's random draws; default 1. */
  seed?: number;
  /** Duration model; default: the platform's figures. */
  model?: DurationModel;
  /** Tasks a GPU worker holds at once (default 2). */
  gpuPipeline?: number;
  /** Tasks a CPU worker holds at once (default 1). */
  cpuPipeline?: number;
  /** Coherence policies (seed 004's runtime versions); default write-back, replicas kept. */
  coherence?: CoherenceOptions;
  /** Seed 002's idle policy (energy model and ea1's wake-ups; default poll). */
  idle?: IdlePolicy;
  /** ea1's wake-up latency in seconds (default 50 us). */
  wakeLatency?: number;
  /** Write modified data home at the end (default true; false stops at the last task). */
  flushAtEnd?: boolean;
  /** Evict clean replicas before modified ones (default true; see EngineOptions.cleanFirst). */
  /** Take ready buffered tasks first (default false; see EngineOptions.readyFirst). */
  readyFirst?: boolean;
  /** Copies in flight into a GPU before its next lookahead prefetch (default 0: no limit; see EngineOptions.prefetchWindow). */
  prefetchWindow?: number;
  /** Each waiting lookahead prefetch evicts for itself (default false; see EngineOptions.parallelEvictions). */
  parallelEvictions?: boolean;
  /** Write-backs no task waits for share the bus as prefetches (default false; see EngineOptions.lazyWritebacks). */
  lazyWritebacks?: boolean;
  cleanFirst?: boolean;
  /** Percent of a GPU's replicas kept clean by early write-backs (default 0: off; see EngineOptions.minClean). */
  minClean?: number;
  /** Percent clean once those write-backs stop (default minClean; see EngineOptions.targetClean). */
  targetClean?: number;
  /** Tasks a GPU worker pops ahead of its pipeline, their inputs prefetched (default 4). */
  gpuLookahead?: number;
  /** Workload label for the report. */
  workload?: string;
  /** Record a Chrome trace (returned as `trace`). */
  trace?: boolean;
  /**
   * Stream the Chrome trace to this file as the run goes (implies `trace`; the returned
   * trace is then complete on disk, not in memory). Needed for runs of millions of tasks.
   */
  traceFile?: string;
  /** Progress callback (finished, total). */
  onProgress?: (finished: number, total: number) => void;
}

/** What simulate() returns. */
export interface SimulateResult {
  /** The run report. */
  report: RunReport;
  /** The Chrome trace, when requested. */
  trace?: ChromeTrace;
}

/** ea1's wake-up latency when none is given: a semaphore post and a thread switch (assumed). */
export const DEFAULT_WAKE_LATENCY = 50e-6;

/** The name of an idle policy: poll, ea1, ea2 or ea1+ea2. */
export function idlePolicyName(p: IdlePolicy): string {
  return p.ea1 && p.ea2 ? 'ea1+ea2' : p.ea1 ? 'ea1' : p.ea2 ? 'ea2' : 'poll';
}

/** Simulates the graph to completion and reports. */
export function simulate(o: SimulateOptions): SimulateResult {
  const run = prepare(o);
  let r: SimResult;
  try {
    r = run.sim.run();
  } catch (e) {
    run.trace?.abort();
    throw e;
  }
  return conclude(o, run, r);
}

/**
 * Simulates as simulate() does, yielding to the event loop every few milliseconds so that
 * `signal` (Ctrl-C) can stop it. Stopped, it completes the streamed trace with what ran
 * (the file then parses) and throws a LOCUS_INTERRUPTED LocusError saying how many tasks
 * ended; a failed run leaves no trace file.
 */
export async function simulateAsync(o: SimulateOptions, signal?: AbortSignal): Promise<SimulateResult> {
  const run = prepare(o);
  let r: SimResult;
  try {
    r = await run.sim.runAsync(signal);
  } catch (e) {
    const engine = run.sim.engine;
    if (e instanceof LocusError && e.code === 'LOCUS_INTERRUPTED') {
      run.trace?.finish();
      throw new LocusError(
        'LOCUS_INTERRUPTED',
        `the simulation stopped after ${engine.finishedTasks} of ${engine.submittedTasks} tasks`,
      );
    }
    run.trace?.abort();
    throw e;
  }
  return conclude(o, run, r);
}

/** A simulation set up: the simulator and the observers whose records make the report. */
interface PreparedRun {
  sim: Simulator;
  stats: RunStats;
  trace: ChromeTrace | undefined;
  meter: EnergyMeter | undefined;
  idle: IdlePolicy;
  seed: number;
  t0: number;
}

/** Builds the simulator and attaches the statistics, trace and energy observers. */
function prepare(o: SimulateOptions): PreparedRun {
  if (typeof o.scheduler !== 'object')
    checkSchedulerOptions(o.scheduler ?? 'eager', o.schedulerOptions ?? {});
  const scheduler =
    typeof o.scheduler === 'object'
      ? o.scheduler
      : createScheduler(o.scheduler ?? 'eager', o.schedulerOptions);
  const eviction = typeof o.eviction === 'object' ? o.eviction : createEviction(o.eviction ?? 'lru');
  const seed = o.seed ?? 1;
  const t0 = performance.now();
  const sim = new Simulator({
    graph: o.graph,
    platform: o.platform,
    scheduler,
    eviction,
    model: o.model ?? new PlatformModel(o.platform, o.graph),
    seed,
    gpuPipeline: o.gpuPipeline,
    cpuPipeline: o.cpuPipeline,
    gpuLookahead: o.gpuLookahead,
    readyFirst: o.readyFirst,
    prefetchWindow: o.prefetchWindow,
    parallelEvictions: o.parallelEvictions,
    lazyWritebacks: o.lazyWritebacks,
    onProgress: o.onProgress,
    noise: o.noise,
    chargeScheduling: o.chargeScheduling,
    streams: o.streams,
    submitWindow: o.submitWindow,
    ...(o.source !== undefined ? { source: o.source } : {}),
    ...(o.recycle !== undefined ? { recycle: o.recycle } : {}),
    coherence: o.coherence,
    flushAtEnd: o.flushAtEnd,
    cleanFirst: o.cleanFirst,
    minClean: o.minClean,
    targetClean: o.targetClean,
    wakeLatency: o.idle?.ea1 ? (o.wakeLatency ?? DEFAULT_WAKE_LATENCY) : 0,
  });
  const stats = sim.stats;
  const trace =
    o.traceFile !== undefined
      ? new ChromeTrace(sim.engine, o.traceFile)
      : o.trace
        ? new ChromeTrace(sim.engine)
        : undefined;
  if (trace) sim.engine.observe(trace);
  const idle = o.idle ?? { ea1: false, ea2: false };
  const meter = EnergyMeter.applies(sim.engine)
    ? new EnergyMeter(sim.engine, idle, trace !== undefined)
    : undefined;
  const changes = meter?.changesObserver();
  if (changes) sim.engine.observe(changes);
  return { sim, stats, trace, meter, idle, seed, t0 };
}

/** The report of a run that ended, the streamed trace completed. */
function conclude(o: SimulateOptions, run: PreparedRun, r: SimResult): SimulateResult {
  const { sim, stats, trace, meter, idle, seed, t0 } = run;
  const energy = meter?.report(Math.max(r.makespanS, r.endS));
  if (trace && meter) trace.addPowerStates(meter.changes);
  const report = buildReport(sim.engine, stats, {
    mode: 'simulated',
    workload: o.workload ?? `${o.graph.taskCount + o.graph.retired} tasks`,
    seed,
    makespanS: r.makespanS,
    endS: r.endS,
    wallS: (performance.now() - t0) / 1000,
    schedulingS: r.schedulingS,
    ...(energy ? { energy: { ...energy, policy: idlePolicyName(idle) } } : {}),
  });
  // The trace carries the report (`locus report` shows it as the summary table).
  trace?.setReport(report);
  trace?.finish();
  return { report, trace };
}
