/**
 * Run statistics: bytes moved per direction and per link, loads and evictions per node, busy
 * time and task count per worker (read from the engine's RunCounters), and, for tasks with
 * phases (iterations), bytes moved per phase (PhaseTransfers, an observer).
 */
import { type Engine, type EngineObserver, TRANSFER_KIND_NAMES, TransferKind } from '../core/engine.ts';
import { routeOf } from '../core/platform.ts';
import type { RunCounters } from '../core/run-counters.ts';
import { PhaseTransfers } from './phase-bytes.ts';

/** The transfer figures of a run, derived from the engine's copy counts (RunStats.copyTotals). */
interface CopyTotals {
  bytesToDevices: number;
  bytesFromDevices: number;
  bytesDeviceToDevice: number;
  transfersToDevices: number;
  transfersFromDevices: number;
  transfersDeviceToDevice: number;
  bytesToDisk: number;
  bytesFromDisk: number;
  transfersToDisk: number;
  transfersFromDisk: number;
  transfers: number;
  linkBytes: Float64Array;
  loads: Float64Array;
  loadBytes: Float64Array;
  writebacks: Float64Array;
  writebackBytes: number;
  transfersByKind: Float64Array;
}

/**
 * The counters of one run, read from the engine's RunCounters when asked for (the engine
 * counts copies, evictions, peak memory and worker time where they happen: no call per
 * event). Every figure is current at the moment it is read; each read costs
 * O(kinds x nodes^2 x route length). An engine observer only for bytes moved per phase
 * (PhaseTransfers), which it attaches when the first task with a phase is submitted.
 */
export class RunStats implements EngineObserver {
  /** The disk node's index, -1 when none is attached. */
  readonly diskNode: number;
  /** Bytes moved per phase of the tasks (the report's `iterations`). */
  readonly phaseTransfers: PhaseTransfers;
  private readonly counters: RunCounters;
  private totals: CopyTotals | undefined;
  /** copiesCounted when `totals` was summed. */
  private totalsAt = -1;

  constructor(private readonly engine: Engine) {
    const p = engine.platform;
    this.counters = engine.counters;
    this.phaseTransfers = new PhaseTransfers(engine);
    this.diskNode = p.nodes.findIndex((n) => n.kind === 'disk');
    engine.whenPhased(() => engine.observe(this.phaseTransfers));
  }

  /** No per-task state: recycled tasks change nothing (the engine's tables shift themselves). */
  rebase(_k: number): void {}

  /** Bytes copied from host memory into device memories. */
  get bytesToDevices(): number {
    return this.copyTotals().bytesToDevices;
  }
  /** Bytes copied from device memories to host memory. */
  get bytesFromDevices(): number {
    return this.copyTotals().bytesFromDevices;
  }
  /** Bytes copied directly between device memories (peer-to-peer). */
  get bytesDeviceToDevice(): number {
    return this.copyTotals().bytesDeviceToDevice;
  }
  /** Copies from host memory into device memories (seed 004's "writes"). */
  get transfersToDevices(): number {
    return this.copyTotals().transfersToDevices;
  }
  /** Copies from device memories to host memory (seed 004's "reads"). */
  get transfersFromDevices(): number {
    return this.copyTotals().transfersFromDevices;
  }
  /** Copies directly between device memories. */
  get transfersDeviceToDevice(): number {
    return this.copyTotals().transfersDeviceToDevice;
  }
  /** Bytes copied to the disk node (out of core), when one is attached. */
  get bytesToDisk(): number {
    return this.copyTotals().bytesToDisk;
  }
  /** Bytes copied from the disk node. */
  get bytesFromDisk(): number {
    return this.copyTotals().bytesFromDisk;
  }
  /** Copies to the disk node. */
  get transfersToDisk(): number {
    return this.copyTotals().transfersToDisk;
  }
  /** Copies from the disk node. */
  get transfersFromDisk(): number {
    return this.copyTotals().transfersFromDisk;
  }
  /** Number of transfers that finished. */
  get transfers(): number {
    return this.copyTotals().transfers;
  }
  /** Bytes that crossed each link. */
  get linkBytes(): Float64Array {
    return this.copyTotals().linkBytes;
  }
  /** Replicas loaded into each node (transfers finished there, fetches and prefetches). */
  get loads(): Float64Array {
    return this.copyTotals().loads;
  }
  /** Bytes loaded into each node. */
  get loadBytes(): Float64Array {
    return this.copyTotals().loadBytes;
  }
  /** Replicas of each node written back home before eviction or at the end. */
  get writebacks(): Float64Array {
    return this.copyTotals().writebacks;
  }
  /** Bytes written back home (the write-backs counted in `writebacks`), all nodes. */
  get writebackBytes(): number {
    return this.copyTotals().writebackBytes;
  }
  /** Finished transfers by kind (see TransferKind). */
  get transfersByKind(): Float64Array {
    return this.copyTotals().transfersByKind;
  }
  /** Replicas evicted from each node to make room. */
  get evictions(): Float64Array {
    return this.counters.evictions;
  }
  /** Bytes of scratch outputs discarded instead of written back. */
  get discardedBytes(): number {
    return this.counters.discardedBytes;
  }
  /** Highest memory use seen on each node (bytes). */
  get peakMemory(): Float64Array {
    return this.counters.peakMemory;
  }
  /** Seconds each worker spent running tasks. */
  get busy(): Float64Array {
    return this.counters.busy;
  }
  /** Tasks each worker ran. */
  get tasksRun(): Float64Array {
    return this.counters.tasksRun;
  }
  /** Flops each worker executed. */
  get flopsRun(): Float64Array {
    return this.counters.flopsRun;
  }
  /** The worker each task went to (-1 for a task not given to one), by the engine's task id. */
  get taskWorker(): Int32Array {
    return this.engine.tasks.worker;
  }

  /**
   * Every transfer figure, summed from the engine's per-(kind, source, destination) counts;
   * kept until another copy finishes (a report reads it once per field and node).
   */
  private copyTotals(): CopyTotals {
    if (this.totals !== undefined && this.totalsAt === this.counters.copiesCounted) return this.totals;
    this.totals = this.sumCopies();
    this.totalsAt = this.counters.copiesCounted;
    return this.totals;
  }

  private sumCopies(): CopyTotals {
    const e = this.engine;
    const p = e.platform;
    const c = this.counters;
    const nn = c.nodes;
    const disk = this.diskNode;
    const t: CopyTotals = {
      bytesToDevices: 0,
      bytesFromDevices: 0,
      bytesDeviceToDevice: 0,
      transfersToDevices: 0,
      transfersFromDevices: 0,
      transfersDeviceToDevice: 0,
      bytesToDisk: 0,
      bytesFromDisk: 0,
      transfersToDisk: 0,
      transfersFromDisk: 0,
      transfers: 0,
      linkBytes: new Float64Array(p.links.length),
      loads: new Float64Array(nn),
      loadBytes: new Float64Array(nn),
      writebacks: new Float64Array(nn),
      writebackBytes: 0,
      transfersByKind: new Float64Array(TRANSFER_KIND_NAMES.length),
    };
    for (let kind = 0; kind < TRANSFER_KIND_NAMES.length; kind++) {
      const load = kind === TransferKind.FETCH || kind === TransferKind.PREFETCH;
      const writeback =
        kind === TransferKind.WRITEBACK ||
        kind === TransferKind.FLUSH ||
        kind === TransferKind.WRITETHROUGH ||
        kind === TransferKind.EARLY_WRITEBACK;
      for (let src = 0; src < nn; src++) {
        for (let dst = 0; dst < nn; dst++) {
          const i = (kind * nn + src) * nn + dst;
          const n = c.copies[i]!;
          if (n === 0) continue;
          const bytes = c.copyBytes[i]!;
          t.transfers += n;
          t.transfersByKind[kind]! += n;
          const srcHost = src === p.homeNode;
          const dstHost = dst === p.homeNode;
          if (dst === disk) {
            t.bytesToDisk += bytes;
            t.transfersToDisk += n;
          } else if (src === disk) {
            t.bytesFromDisk += bytes;
            t.transfersFromDisk += n;
          } else if (srcHost && !dstHost) {
            t.bytesToDevices += bytes;
            t.transfersToDevices += n;
          } else if (!srcHost && dstHost) {
            t.bytesFromDevices += bytes;
            t.transfersFromDevices += n;
          } else {
            t.bytesDeviceToDevice += bytes;
            t.transfersDeviceToDevice += n;
          }
          for (const l of routeOf(p, src, dst) ?? []) t.linkBytes[l]! += bytes;
          if (load) {
            t.loads[dst]! += n;
            t.loadBytes[dst]! += bytes;
          }
          if (writeback) {
            t.writebacks[src]! += n;
            t.writebackBytes += bytes;
          }
        }
      }
    }
    return t;
  }

  /** Total loads into device memories (not host memory, not a disk). */
  get totalLoads(): number {
    const loads = this.loads;
    let s = 0;
    this.engine.platform.nodes.forEach((n, i) => {
      if (n.kind === 'gpu') s += loads[i]!;
    });
    return s;
  }

  /** Total evictions from device memories. */
  get totalEvictions(): number {
    let s = 0;
    for (const v of this.evictions) s += v;
    return s;
  }

  /**
   * How stable placement stays across iterations (seed 001's stencil): for tasks with an
   * affinity (block) and a phase (iteration), the fraction of (block, iteration >= 1) whose
   * first task ran on the same worker as the block's first task of the previous iteration.
   * Null when the graph has no such tasks.
   */
  placementStability(): number | null {
    const g = this.engine.graph;
    const first = new Map<number, number>(); // key: phase * (blocks + 1) + block -> worker
    let maxBlock = -1;
    let maxPhase = -1;
    for (let t = 0; t < g.taskCount; t++) {
      maxBlock = Math.max(maxBlock, g.taskAffinity.data[t]!);
      maxPhase = Math.max(maxPhase, g.taskPhase.data[t]!);
    }
    if (maxBlock < 0 || maxPhase < 1) return null;
    const stride = maxBlock + 1;
    for (let t = 0; t < g.taskCount; t++) {
      const b = g.taskAffinity.data[t]!;
      const ph = g.taskPhase.data[t]!;
      if (b < 0 || ph < 0) continue;
      const key = ph * stride + b;
      if (!first.has(key)) first.set(key, this.taskWorker[t]!);
    }
    let same = 0;
    let total = 0;
    for (const [key, w] of first) {
      if (key < stride) continue;
      const prev = first.get(key - stride);
      if (prev === undefined) continue;
      total++;
      if (prev === w) same++;
    }
    return total > 0 ? same / total : null;
  }
}
