/**
 * What a run did, counted by the engine where it happens (issue 25: observers off the
 * per-event path): finished copies and their bytes per (kind, source, destination), evictions
 * and discarded bytes per node, peak memory per node, and each worker's busy time, task count
 * and flops. Each event costs a few typed-array increments at the place the engine already
 * handles it, instead of a call per observer; RunStats and the energy meter read these
 * tables when a report is asked for.
 */
import type { Platform } from './platform.ts';
import { TRANSFER_KIND_NAMES } from './protocol.ts';

/** The engine's running counts (read them through RunStats). */
export class RunCounters {
  /** Number of memory nodes (the stride of the copy tables). */
  readonly nodes: number;
  /** Finished copies at (kind * nodes + src) * nodes + dst (stale ones included). */
  readonly copies: Float64Array;
  /** Bytes of the finished copies, same index as `copies`. */
  readonly copyBytes: Float64Array;
  /** Finished copies counted so far (changes whenever the copy tables do). */
  copiesCounted = 0;
  /** Replicas evicted from each node to make room. */
  readonly evictions: Float64Array;
  /** Bytes of scratch outputs discarded instead of written back. */
  discardedBytes = 0;
  /** Highest memory use seen on each node (bytes), updated at each allocation. */
  readonly peakMemory: Float64Array;
  /** Seconds each worker spent running tasks. */
  readonly busy: Float64Array;
  /** Tasks each worker ran (finished or failed). */
  readonly tasksRun: Float64Array;
  /** Flops each worker executed. */
  readonly flopsRun: Float64Array;
  /** Start of each worker's current task (engine time). */
  readonly startedAt: Float64Array;
  /**
   * True when the backend measures task times (a real run): the driver counts each task with
   * the times the backend measured, and the engine does not count them at its own event times.
   */
  measuredTaskTimes = false;

  constructor(platform: Platform) {
    const nn = platform.nodes.length;
    const nw = platform.workers.length;
    this.nodes = nn;
    this.copies = new Float64Array(TRANSFER_KIND_NAMES.length * nn * nn);
    this.copyBytes = new Float64Array(TRANSFER_KIND_NAMES.length * nn * nn);
    this.evictions = new Float64Array(nn);
    this.peakMemory = new Float64Array(nn);
    this.busy = new Float64Array(nw);
    this.tasksRun = new Float64Array(nw);
    this.flopsRun = new Float64Array(nw);
    this.startedAt = new Float64Array(nw);
  }

  /** A copy of `bytes` of `kind` from `src` to `dst` finished. O(1). */
  copied(kind: number, src: number, dst: number, bytes: number): void {
    const i = (kind * this.nodes + src) * this.nodes + dst;
    this.copies[i]!++;
    this.copyBytes[i]! += bytes;
    this.copiesCounted++;
  }

  /** A task that ran from `startS` to `endS` on `worker` with `flops` ended. O(1). */
  taskRan(worker: number, startS: number, endS: number, flops: number): void {
    this.busy[worker]! += endS - startS;
    this.tasksRun[worker]!++;
    this.flopsRun[worker]! += flops;
  }
}
