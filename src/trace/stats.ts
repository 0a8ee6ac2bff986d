/**
 * Run statistics, gathered as an engine observer: bytes moved per direction and per link,
 * loads and evictions per node, busy time and task count per worker, and, for tasks with
 * phases (iterations), bytes moved per phase (PhaseTransfers).
 */
import {
  type Engine,
  type EngineObserver,
  type FreeReason,
  TRANSFER_KIND_NAMES,
  TransferKind,
} from '../core/engine.ts';
import { growI32 } from '../core/growable.ts';
import { routeOf } from '../core/platform.ts';
import { PhaseTransfers } from './phase-bytes.ts';

/** Counters of one run. */
export class RunStats implements EngineObserver {
  /** Bytes copied from host memory into device memories. */
  bytesToDevices = 0;
  /** Bytes copied from device memories to host memory. */
  bytesFromDevices = 0;
  /** Bytes copied directly between device memories (peer-to-peer). */
  bytesDeviceToDevice = 0;
  /** Copies from host memory into device memories (seed 004's "writes"). */
  transfersToDevices = 0;
  /** Copies from device memories to host memory (seed 004's "reads"). */
  transfersFromDevices = 0;
  /** Copies directly between device memories. */
  transfersDeviceToDevice = 0;
  /** Bytes copied to the disk node (out of core), when one is attached. */
  bytesToDisk = 0;
  /** Bytes copied from the disk node. */
  bytesFromDisk = 0;
  /** Copies to the disk node. */
  transfersToDisk = 0;
  /** Copies from the disk node. */
  transfersFromDisk = 0;
  /** The disk node's index, -1 when none is attached. */
  readonly diskNode: number;
  /** Number of transfers that finished. */
  transfers = 0;
  /** Bytes that crossed each link. */
  readonly linkBytes: Float64Array;
  /** Replicas loaded into each node (transfers finished there, fetches and prefetches). */
  readonly loads: Float64Array;
  /** Bytes loaded into each node. */
  readonly loadBytes: Float64Array;
  /** Replicas evicted from each node to make room. */
  readonly evictions: Float64Array;
  /** Replicas of each node written back home before eviction or at the end. */
  readonly writebacks: Float64Array;
  /** Bytes written back home (the write-backs counted in `writebacks`), all nodes. */
  writebackBytes = 0;
  /** Bytes of scratch outputs discarded instead of written back. */
  discardedBytes = 0;
  /** Finished transfers by kind (see TransferKind). */
  readonly transfersByKind = new Float64Array(TRANSFER_KIND_NAMES.length);
  /** Seconds each worker spent running tasks. */
  readonly busy: Float64Array;
  /** Tasks each worker ran. */
  readonly tasksRun: Float64Array;
  /** Flops each worker executed. */
  readonly flopsRun: Float64Array;
  /** Highest memory use seen on each node (bytes). */
  readonly peakMemory: Float64Array;
  private readonly startedAt: Float64Array;
  /** The worker each task ran on (-1 until it starts). */
  taskWorker: Int32Array<ArrayBuffer>;
  /** Bytes moved per phase of the tasks (the report's `iterations`). */
  readonly phaseTransfers: PhaseTransfers;

  constructor(private readonly engine: Engine) {
    const p = engine.platform;
    this.linkBytes = new Float64Array(p.links.length);
    this.loads = new Float64Array(p.nodes.length);
    this.loadBytes = new Float64Array(p.nodes.length);
    this.evictions = new Float64Array(p.nodes.length);
    this.writebacks = new Float64Array(p.nodes.length);
    this.peakMemory = new Float64Array(p.nodes.length);
    this.busy = new Float64Array(p.workers.length);
    this.tasksRun = new Float64Array(p.workers.length);
    this.flopsRun = new Float64Array(p.workers.length);
    this.startedAt = new Float64Array(p.workers.length);
    this.taskWorker = new Int32Array(engine.graph.taskCount).fill(-1);
    this.phaseTransfers = new PhaseTransfers(engine);
    this.diskNode = p.nodes.findIndex((n) => n.kind === 'disk');
  }

  grow(tasks: number): void {
    this.taskWorker = growI32(this.taskWorker, tasks, -1);
  }

  /** The engine recycled tasks [0, k): the per-task table shifts down. */
  rebase(k: number): void {
    this.taskWorker.copyWithin(0, k);
  }

  taskStarted(task: number, worker: number, now: number): void {
    if (task >= this.taskWorker.length) this.grow(Math.max(task + 1, 2 * this.taskWorker.length));
    this.startedAt[worker] = now;
    this.taskWorker[task] = worker;
    this.phaseTransfers.taskStarted(task);
  }

  taskFinished(task: number, worker: number, now: number): void {
    this.busy[worker]! += now - this.startedAt[worker]!;
    this.tasksRun[worker]!++;
    this.flopsRun[worker]! += this.engine.graph.taskFlops.data[task]!;
  }

  transferStarted(id: number): void {
    this.phaseTransfers.transferStarted(id);
  }

  transferFinished(id: number): void {
    const e = this.engine;
    const p = e.platform;
    const src = e.trSrc.data[id]!;
    const dst = e.trDst.data[id]!;
    const kind = e.trKind.data[id]!;
    const bytes = e.graph.handleSize.data[e.trHandle.data[id]!]!;
    this.transfers++;
    this.transfersByKind[kind]!++;
    const srcHost = src === p.homeNode;
    const dstHost = dst === p.homeNode;
    if (dst === this.diskNode) {
      this.bytesToDisk += bytes;
      this.transfersToDisk++;
    } else if (src === this.diskNode) {
      this.bytesFromDisk += bytes;
      this.transfersFromDisk++;
    } else if (srcHost && !dstHost) {
      this.bytesToDevices += bytes;
      this.transfersToDevices++;
    } else if (!srcHost && dstHost) {
      this.bytesFromDevices += bytes;
      this.transfersFromDevices++;
    } else {
      this.bytesDeviceToDevice += bytes;
      this.transfersDeviceToDevice++;
    }
    for (const l of routeOf(p, src, dst) ?? []) this.linkBytes[l]! += bytes;
    if (kind === TransferKind.FETCH || kind === TransferKind.PREFETCH) {
      this.loads[dst]!++;
      this.loadBytes[dst]! += bytes;
    }
    if (
      kind === TransferKind.WRITEBACK ||
      kind === TransferKind.FLUSH ||
      kind === TransferKind.WRITETHROUGH ||
      kind === TransferKind.EARLY_WRITEBACK
    ) {
      this.writebacks[src]!++;
      this.writebackBytes += bytes;
    }
  }

  replicaAllocated(_handle: number, node: number): void {
    const used = this.engine.memoryUsed(node);
    if (used > this.peakMemory[node]!) this.peakMemory[node] = used;
  }

  replicaFreed(handle: number, node: number, reason: FreeReason): void {
    if (reason === 'evict') this.evictions[node]!++;
    else if (reason === 'discard') this.discardedBytes += this.engine.graph.handleSize.data[handle]!;
  }

  /** Total loads into device memories (not host memory, not a disk). */
  get totalLoads(): number {
    let s = 0;
    this.engine.platform.nodes.forEach((n, i) => {
      if (n.kind === 'gpu') s += this.loads[i]!;
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
