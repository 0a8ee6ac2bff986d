/** Runs a graph on a test platform under the simulator with the invariant checker attached. */
import type { CoherenceOptions, EngineObserver } from '../../src/core/engine.ts';
import type { TaskGraph } from '../../src/core/graph.ts';
import { PlatformModel } from '../../src/core/model.ts';
import type { Platform } from '../../src/core/platform.ts';
import type { EvictionPolicy, SchedContext, Scheduler } from '../../src/core/policy.ts';
import { createEviction } from '../../src/evict/index.ts';
import { createScheduler } from '../../src/sched/index.ts';
import { Simulator } from '../../src/sim/simulator.ts';
import { RunStats } from '../../src/trace/stats.ts';
import { InvariantChecker } from './checker.ts';

/** A scheduler that runs each task on the worker a table names, in ready order. */
export class FixedScheduler implements Scheduler {
  readonly name = 'fixed';
  readonly dynamic = true;
  private queues: number[][] = [];
  constructor(private readonly placement: (task: number) => number) {}
  init(ctx: SchedContext): void {
    this.queues = ctx.platform.workers.map(() => []);
  }
  push(task: number): void {
    this.queues[this.placement(task)]!.push(task);
  }
  pop(worker: number): number {
    return this.queues[worker]!.shift() ?? -1;
  }
  plannedTasks(worker: number): number[] {
    return this.queues[worker]!;
  }
}

/** Options of a checked simulated run. */
export interface CheckedRunOptions {
  sched?: string | Scheduler;
  eviction?: string | EvictionPolicy;
  seed?: number;
  gpuPipeline?: number;
  cpuPipeline?: number;
  gpuLookahead?: number;
  readyFirst?: boolean;
  prefetchWindow?: number;
  parallelEvictions?: boolean;
  lazyWritebacks?: boolean;
  cleanFirst?: boolean;
  minClean?: number;
  targetClean?: number;
  observers?: EngineObserver[];
  coherence?: CoherenceOptions;
  /** Submit progressively, at most this many tasks not ended at once (SimOptions.submitWindow). */
  submitWindow?: number;
}

/** Simulates and returns the checker, the statistics and the timing. */
export function checkedRun(graph: TaskGraph, platform: Platform, o: CheckedRunOptions = {}) {
  const scheduler = typeof o.sched === 'object' ? o.sched : createScheduler(o.sched ?? 'eager');
  const sim = new Simulator({
    graph,
    platform,
    scheduler,
    eviction: typeof o.eviction === 'object' ? o.eviction : createEviction(o.eviction ?? 'lru'),
    model: new PlatformModel(platform, graph),
    seed: o.seed ?? 1,
    gpuPipeline: o.gpuPipeline,
    cpuPipeline: o.cpuPipeline,
    gpuLookahead: o.gpuLookahead,
    readyFirst: o.readyFirst,
    prefetchWindow: o.prefetchWindow,
    parallelEvictions: o.parallelEvictions,
    lazyWritebacks: o.lazyWritebacks,
    cleanFirst: o.cleanFirst,
    minClean: o.minClean,
    targetClean: o.targetClean,
    coherence: o.coherence,
    submitWindow: o.submitWindow,
  });
  const checker = new InvariantChecker(sim.engine);
  const stats = new RunStats(sim.engine);
  sim.engine.observe(checker).observe(stats);
  for (const extra of o.observers ?? []) sim.engine.observe(extra);
  const result = sim.run();
  return { checker, stats, result, engine: sim.engine };
}
