/**
 * Run statistics, gathered as an engine observer: bytes moved per direction and per link,
 * loads and evictions per node, busy time and task count per worker.
 */
import { type Engine, type EngineObserver, type FreeReason, TransferKind } from '../core/engine.ts';
import { routeOf } from '../core/platform.ts';

/** Counters of one run. */
export class RunStats implements EngineObserver {
  /** Bytes copied from host memory into device memories. */
  bytesToDevices = 0;
  /** Bytes copied from device memories to host memory. */
  bytesFromDevices = 0;
  /** Bytes copied directly between device memories (peer-to-peer). */
  bytesDeviceToDevice = 0;
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
  /** Bytes of scratch outputs discarded instead of written back. */
  discardedBytes = 0;
  /** Finished transfers by kind (see TransferKind). */
  readonly transfersByKind = new Float64Array(5);
  /** Seconds each worker spent running tasks. */
  readonly busy: Float64Array;
  /** Tasks each worker ran. */
  readonly tasksRun: Float64Array;
  /** Flops each worker executed. */
  readonly flopsRun: Float64Array;
  /** Highest memory use seen on each node (bytes). */
  readonly peakMemory: Float64Array;
  private readonly startedAt: Float64Array;

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
  }

  taskStarted(_task: number, worker: number, now: number): void {
    this.startedAt[worker] = now;
  }

  taskFinished(task: number, worker: number, now: number): void {
    this.busy[worker]! += now - this.startedAt[worker]!;
    this.tasksRun[worker]!++;
    this.flopsRun[worker]! += this.engine.graph.taskFlops.data[task]!;
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
    if (srcHost && !dstHost) this.bytesToDevices += bytes;
    else if (!srcHost && dstHost) this.bytesFromDevices += bytes;
    else this.bytesDeviceToDevice += bytes;
    for (const l of routeOf(p, src, dst) ?? []) this.linkBytes[l]! += bytes;
    if (kind === TransferKind.FETCH || kind === TransferKind.PREFETCH) {
      this.loads[dst]!++;
      this.loadBytes[dst]! += bytes;
    }
    if (kind === TransferKind.WRITEBACK || kind === TransferKind.FLUSH) this.writebacks[src]!++;
  }

  replicaAllocated(_handle: number, node: number): void {
    const used = this.engine.memoryUsed(node);
    if (used > this.peakMemory[node]!) this.peakMemory[node] = used;
  }

  replicaFreed(handle: number, node: number, reason: FreeReason): void {
    if (reason === 'evict') this.evictions[node]!++;
    else if (reason === 'discard') this.discardedBytes += this.engine.graph.handleSize.data[handle]!;
  }

  /** Total loads into device memories. */
  get totalLoads(): number {
    let s = 0;
    this.engine.platform.nodes.forEach((n, i) => {
      if (n.kind !== 'host') s += this.loads[i]!;
    });
    return s;
  }

  /** Total evictions from device memories. */
  get totalEvictions(): number {
    let s = 0;
    for (const v of this.evictions) s += v;
    return s;
  }
}
