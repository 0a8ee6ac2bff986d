/**
 * Locus's library API: build a task graph, pick a platform and policies, simulate, read the
 * report. See docs/guide.md for a complete example.
 */

export * from './cluster/index.ts';
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
export type { DiskSpec, Link, MemoryNode, Platform, Worker } from './core/platform.ts';
export type {
  EvictionContext,
  EvictionPolicy,
  RankedEviction,
  SchedContext,
  Scheduler,
} from './core/policy.ts';
export { CMD_NAMES, type Command, decode, formatCommand } from './core/protocol.ts';
export {
  AccessMode,
  LOCUS_ERROR_CODES,
  LocusError,
  type LocusErrorCode,
  type WorkerKind,
} from './core/types.ts';
export type { Backend, CopyStartObserver, EventSink } from './drive/backend.ts';
export { Driver, type DriverHooks, type TaskFailure } from './drive/driver.ts';
export { createEviction, EVICTION_POLICIES } from './evict/index.ts';
export { TiledMatrix, type TypedMatrix } from './exec/matrix.ts';
export type { DType, Kernel, KernelRef } from './exec/protocol.ts';
export {
  REAL_WORKLOAD_NAMES,
  type RealRunOptions,
  type RealRunResult,
  runWorkload,
} from './exec/run-workload.ts';
export {
  type Codelet as RuntimeCodelet,
  type CodeletSpec,
  type Data,
  type DataArray,
  type DataOptions,
  type GpuImplementation,
  type Mode,
  Runtime,
  type RuntimeOptions,
  type SubmitOptions,
  Task,
  TaskCancelledError,
  TaskFailedError,
} from './exec/runtime.ts';
export { RuntimeSubmitter } from './exec/runtime-submitter.ts';
export { SequentialSubmitter } from './exec/sequential-submitter.ts';
export { type HistoryEntry, HistoryModel, type Sample } from './perf/history.ts';
export { type BusPair, CalibratedModel } from './perf/model.ts';
export { fitLinear, fitPowerLaw } from './perf/regression.ts';
export { ModelStore, machineDir } from './perf/store.ts';
export { attachDisk, DISK_PRESETS, resolveDisk, withHostMemory } from './platform/disk.ts';
export { describePlatform, PRESETS, resolvePlatform } from './platform/presets.ts';
export { parsePlatformFile, platformToJson } from './platform/schema.ts';
export { createScheduler, SCHEDULERS, type SchedulerOptions } from './sched/index.ts';
export { SimBackend } from './sim/backend.ts';
export { type SimulateOptions, type SimulateResult, simulate } from './sim/simulate.ts';
export { Simulator } from './sim/simulator.ts';
export { ChromeTrace } from './trace/chrome.ts';
export type { RunReport } from './trace/report.ts';
export { RunStats } from './trace/stats.ts';
export { defineWorkload } from './workloads/define.ts';
export { GraphSubmitter } from './workloads/graph-submitter.ts';
export { generateWorkload, WORKLOADS } from './workloads/index.ts';
export type {
  DataSpec,
  ElementType,
  KernelName,
  SubmitAccess,
  Submitter,
  TaskSpec,
} from './workloads/submitter.ts';
export type { Workload, WorkloadGenerator, WorkloadInstance, WorkloadParams } from './workloads/types.ts';
