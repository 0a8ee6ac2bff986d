/**
 * Locus's library API: build a task graph, pick a platform and policies, simulate, read the
 * report. See docs/guide.md for a complete example.
 */
export {
  Cmd,
  Engine,
  type EngineObserver,
  type EngineOptions,
  Replica,
  TransferKind,
} from './core/engine.ts';
export { type Access, type Codelet, type HandleOptions, TaskGraph, type TaskOptions } from './core/graph.ts';
export { type DurationModel, PlatformModel } from './core/model.ts';
export type { Link, MemoryNode, Platform, Worker } from './core/platform.ts';
export type { EvictionContext, EvictionPolicy, SchedContext, Scheduler } from './core/policy.ts';
export { AccessMode, LocusError, type WorkerKind } from './core/types.ts';
export { createEviction, EVICTION_POLICIES } from './evict/index.ts';
export { describePlatform, PRESETS, resolvePlatform } from './platform/presets.ts';
export { parsePlatformFile, platformToJson } from './platform/schema.ts';
export { createScheduler, SCHEDULERS, type SchedulerOptions } from './sched/index.ts';
export { type SimulateOptions, type SimulateResult, simulate } from './sim/simulate.ts';
export { Simulator } from './sim/simulator.ts';
export { ChromeTrace } from './trace/chrome.ts';
export type { RunReport } from './trace/report.ts';
export { RunStats } from './trace/stats.ts';
export { generateWorkload, WORKLOADS } from './workloads/index.ts';
export type { Workload, WorkloadParams } from './workloads/types.ts';
