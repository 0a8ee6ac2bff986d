/**
 * The run report: one plain object with the totals the CLI prints and `--json` emits
 * (tasks, makespanS, gflops, bytesToDevices, bytesFromDevices, loads, evictions, ...) and
 * the per-node, per-worker and per-link detail, built from RunStats after a run.
 */
import type { Engine } from '../core/engine.ts';
import type { PhaseBytes } from './phase-bytes.ts';
import type { RunStats } from './stats.ts';

/** Per-memory-node figures. */
export interface NodeReport {
  name: string;
  kind: 'host' | 'gpu' | 'disk';
  capacityBytes: number | null;
  peakBytes: number;
  loads: number;
  loadBytes: number;
  evictions: number;
  writebacks: number;
}

/** Per-worker figures. */
export interface WorkerReport {
  name: string;
  kind: string;
  tasks: number;
  busyS: number;
  idleS: number;
  utilization: number;
  gflops: number;
}

/** Per-link figures. */
export interface LinkReport {
  name: string;
  bytes: number;
  bandwidth: number;
  /** Fraction of the run (until the last write-back) the link would need to move its bytes alone. */
  utilization: number;
}

/** Everything a run reports. */
export interface RunReport {
  mode: 'simulated' | 'real';
  /**
   * The WebGPU adapter that ran the GPU tasks (a Runtime on the webgpu backend, `locus run
   * --backend webgpu`), so that a software adapter's figures are never taken for a GPU's.
   */
  adapter?: {
    vendor: string;
    architecture: string;
    device: string;
    description: string;
    software: boolean;
  };
  platform: string;
  workload: string;
  scheduler: string;
  eviction: string;
  seed: number;
  tasks: number;
  makespanS: number;
  /** Time at which the final write-backs were home. */
  endS: number;
  totalFlops: number;
  gflops: number;
  bytesToDevices: number;
  bytesFromDevices: number;
  bytesDeviceToDevice: number;
  /** Block copies from host memory to device memories (seed 004's "writes"). */
  transfersToDevices: number;
  /** Block copies from device memories to host memory (seed 004's "reads"). */
  transfersFromDevices: number;
  /** Block copies between device memories. */
  transfersDeviceToDevice: number;
  discardedBytes: number;
  transfers: number;
  loads: number;
  evictions: number;
  writebacks: number;
  /** Bytes of those write-backs. */
  writebackBytes: number;
  /**
   * Out of core (a disk node attached, src/platform/disk.ts): bytes written to the disk and
   * read from it, and those copies. Absent without a disk. Copies to and from the disk are
   * not counted in bytesToDevices, bytesFromDevices or bytesDeviceToDevice.
   */
  bytesToDisk?: number;
  bytesFromDisk?: number;
  transfersToDisk?: number;
  transfersFromDisk?: number;
  nodes: NodeReport[];
  workers: WorkerReport[];
  links: LinkReport[];
  /** Wall-clock seconds the run took (for a simulation: the simulator's own cost). */
  wallS: number;
  /** Wall-clock seconds spent deciding (scheduler calls), when measured (--charge-scheduling). */
  schedulingS: number;
  /**
   * For iterated workloads (tasks with block and iteration hints): the fraction of blocks that
   * stay on the same worker from one iteration to the next (seed 001's stencil); else null.
   */
  placementStability: number | null;
  /** Energy in joules (seed 002's model; simulated runs on platforms with power figures), else null. */
  energyJ: number | null;
  /** Average power in watts, else null. */
  averagePowerW: number | null;
  /** Energy-delay product in joule-seconds, else null. */
  edpJs: number | null;
  /** The idle policy the energy assumes: poll, ea1, ea2 or ea1+ea2 (null without energy). */
  idlePolicy: string | null;
  /**
   * Only when tasks carry phases (iterated workloads): bytes moved per phase, index = phase,
   * each transfer attributed as src/trace/phase-bytes.ts explains (the end-of-run flush in none).
   */
  iterations?: PhaseBytes[];
}

/** Context of a run that the statistics do not know. */
export interface ReportContext {
  mode: 'simulated' | 'real';
  workload: string;
  seed: number;
  makespanS: number;
  endS: number;
  wallS: number;
  /** Seconds spent in scheduler calls, when measured. */
  schedulingS?: number;
  /** The run's energy, when measured, and the idle policy it assumes. */
  energy?: { energyJ: number; averagePowerW: number; edpJs: number; policy: string };
}

/** Builds the report of a finished run. */
export function buildReport(engine: Engine, stats: RunStats, ctx: ReportContext): RunReport {
  const p = engine.platform;
  const g = engine.graph;
  // Tasks the engine recycled (Engine.compact) count too.
  let totalFlops = engine.retiredFlops;
  for (let t = 0; t < g.taskCount; t++) totalFlops += g.taskFlops.data[t]!;
  const span = ctx.makespanS;
  const nodes: NodeReport[] = p.nodes.map((n, i) => ({
    name: n.name,
    kind: n.kind,
    capacityBytes: Number.isFinite(n.capacity) ? n.capacity : null,
    peakBytes: Math.max(stats.peakMemory[i]!, engine.memoryUsed(i)),
    loads: stats.loads[i]!,
    loadBytes: stats.loadBytes[i]!,
    evictions: stats.evictions[i]!,
    writebacks: stats.writebacks[i]!,
  }));
  const workers: WorkerReport[] = p.workers.map((w, i) => ({
    name: w.name,
    kind: w.kind,
    tasks: stats.tasksRun[i]!,
    busyS: stats.busy[i]!,
    idleS: Math.max(0, span - stats.busy[i]!),
    utilization: span > 0 ? stats.busy[i]! / span : 0,
    gflops: span > 0 ? stats.flopsRun[i]! / span / 1e9 : 0,
  }));
  // Links are busy until the last write-back, so their use is measured over the whole run.
  const runEnd = Math.max(span, ctx.endS);
  const links: LinkReport[] = p.links.map((l, i) => ({
    name: l.name,
    bytes: stats.linkBytes[i]!,
    bandwidth: l.bandwidth,
    utilization: runEnd > 0 ? stats.linkBytes[i]! / l.bandwidth / runEnd : 0,
  }));
  let writebacks = 0;
  for (const w of stats.writebacks) writebacks += w;
  const iterations = stats.phaseTransfers.phases();
  return {
    mode: ctx.mode,
    platform: p.name,
    workload: ctx.workload,
    scheduler: engine.scheduler.name,
    eviction: engine.eviction.name,
    seed: ctx.seed,
    tasks: g.taskCount + g.retired,
    makespanS: span,
    endS: ctx.endS,
    totalFlops,
    gflops: span > 0 ? totalFlops / span / 1e9 : 0,
    bytesToDevices: stats.bytesToDevices,
    bytesFromDevices: stats.bytesFromDevices,
    transfersToDevices: stats.transfersToDevices,
    transfersFromDevices: stats.transfersFromDevices,
    transfersDeviceToDevice: stats.transfersDeviceToDevice,
    bytesDeviceToDevice: stats.bytesDeviceToDevice,
    discardedBytes: stats.discardedBytes,
    transfers: stats.transfers,
    loads: stats.totalLoads,
    evictions: stats.totalEvictions,
    writebacks,
    writebackBytes: stats.writebackBytes,
    ...(stats.diskNode >= 0
      ? {
          bytesToDisk: stats.bytesToDisk,
          bytesFromDisk: stats.bytesFromDisk,
          transfersToDisk: stats.transfersToDisk,
          transfersFromDisk: stats.transfersFromDisk,
        }
      : {}),
    nodes,
    workers,
    links,
    wallS: ctx.wallS,
    schedulingS: ctx.schedulingS ?? 0,
    placementStability: stats.placementStability(),
    energyJ: ctx.energy?.energyJ ?? null,
    averagePowerW: ctx.energy?.averagePowerW ?? null,
    edpJs: ctx.energy?.edpJs ?? null,
    idlePolicy: ctx.energy?.policy ?? null,
    ...(iterations !== null ? { iterations } : {}),
  };
}
