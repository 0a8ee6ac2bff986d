/**
 * The received copies of a simulated cluster and the host memory they take (seed 001's LU
 * exchanged panels through temporary buffers; StarPU-MPI's cache drops a received copy once it
 * is invalidated or flushed). A copy takes its bytes in the receiver's host memory from the
 * moment its message is posted (the receive buffer must exist when the data start landing)
 * until its last reader on that node has ended; it is then dropped (Engine.dropReplicas frees
 * its device replicas; it is clean, so nothing is written back). Every node holds its kept
 * data (the data it owns and those its own tasks write) for the whole run.
 *
 * Checked as the run goes: a node whose host memory would overflow fails with one line, and a
 * task that starts while a copy it reads is not there (not yet posted, or already dropped) is
 * a bug of the simulator (an Error). Allocation-free on the per-task path.
 */
import { fmtBytes } from '../../core/format-bytes.ts';
import { LocusError } from '../../core/types.ts';

/** What the builder knows of the copies before the run (see ClusterGraphBuilder.copyPlan). */
export interface CopyPlan {
  /** Per message: whether its copy is dropped after its last reader (false: a kept datum). */
  droppable: Uint8Array;
  /** Per message: the receiver's local handle of the datum. */
  local: Int32Array;
  /** Per message: its readers on the receiving node (tasks that read that version there). */
  readers: Int32Array;
  /** Per node: CSR of the messages each of its tasks reads (start per task, then message ids). */
  readStart: Int32Array[];
  readMessage: Int32Array[];
  /** Per node: bytes of the data it keeps for the whole run (owned, or written by its tasks). */
  keptBytes: Float64Array;
  /** Per node: bytes of the distinct data it only receives (what keeping every copy costs). */
  receivedOnlyBytes: Float64Array;
}

/** Where a copy stands. */
enum CopyState {
  WAITING = 0,
  LIVE = 1,
  DROPPED = 2,
}

/** Tracks the copies' lifetimes and every node's host memory during a run. */
export class CopyLifetimes {
  /** Per node: bytes in host memory now (kept data and live copies). */
  readonly used: Float64Array;
  /** Per node: the most bytes its host memory held at once. */
  readonly peak: Float64Array;
  /** Per node: copies dropped. */
  readonly dropped: Int32Array;
  /** Per message: when its copy was dropped (-1: not dropped). */
  readonly droppedAt: Float64Array;
  private readonly state: Uint8Array;
  private readonly left: Int32Array;

  /**
   * Copies of `plan`'s messages (`bytes` and receiver `to` of each) on nodes named `names`
   * whose host memories hold `capacity` bytes; with `keep`, every received copy stays for the
   * whole run (allocated from the start, as a datum registered there), none is dropped.
   */
  constructor(
    private readonly plan: CopyPlan,
    private readonly bytes: Float64Array,
    private readonly to: Int32Array,
    private readonly names: readonly string[],
    private readonly capacity: readonly number[],
    readonly keep: boolean,
  ) {
    const n = names.length;
    this.used = new Float64Array(n);
    for (let r = 0; r < n; r++) {
      this.used[r] = plan.keptBytes[r]! + (keep ? plan.receivedOnlyBytes[r]! : 0);
    }
    this.peak = this.used.slice();
    this.dropped = new Int32Array(n);
    this.droppedAt = new Float64Array(bytes.length).fill(-1);
    this.state = new Uint8Array(bytes.length);
    this.left = plan.readers.slice();
  }

  /**
   * Throws the one-line "does not fit" error for the first node whose data held at the start
   * exceed its host memory.
   */
  checkStart(): void {
    for (let r = 0; r < this.names.length; r++) {
      if (this.used[r]! > this.capacity[r]!) {
        const what = this.keep
          ? 'the data it owns and every copy it receives (--keep-received)'
          : 'the data it owns';
        throw new LocusError(
          'LOCUS_HOST_MEMORY_TOO_SMALL',
          `node ${this.names[r]} of ${this.names.length}: ${what} (${fmtBytes(this.used[r]!)}) do not fit in its host memory (${fmtBytes(this.capacity[r]!)}): use a platform with more memory, a smaller workload, or more nodes`,
        );
      }
    }
  }

  /** Message `i` was posted at time `now`: its copy takes its bytes on the receiver. */
  posted(i: number, now: number): void {
    this.state[i] = CopyState.LIVE;
    if (this.keep || this.plan.droppable[i] === 0) return;
    const r = this.to[i]!;
    const used = this.used[r]! + this.bytes[i]!;
    if (used > this.capacity[r]!) {
      throw new LocusError(
        'LOCUS_HOST_MEMORY_TOO_SMALL',
        `node ${this.names[r]} of ${this.names.length}: at ${now.toPrecision(6)} s a received copy of ${fmtBytes(this.bytes[i]!)} would bring its host memory to ${used} bytes (the data it owns and the copies still needed), over its ${this.capacity[r]} bytes (${fmtBytes(this.capacity[r]!)}): use a platform with more memory, a smaller workload, or more nodes`,
      );
    }
    this.used[r] = used;
    if (used > this.peak[r]!) this.peak[r] = used;
  }

  /** Task `task` of node `r` starts: every copy it reads must be live (an Error otherwise). */
  started(r: number, task: number): void {
    const start = this.plan.readStart[r]!;
    const msg = this.plan.readMessage[r]!;
    if (task + 1 >= start.length) return;
    for (let k = start[task]!; k < start[task + 1]!; k++) {
      const i = msg[k]!;
      if (this.state[i] !== CopyState.LIVE) {
        throw new Error(
          `simulated cluster: task ${task} of node ${this.names[r]} starts while the copy of message ${i} it reads is ${this.state[i] === CopyState.DROPPED ? 'dropped' : 'not received'}`,
        );
      }
    }
  }

  /**
   * Task `task` of node `r` ended at `now`: the copies it was the last reader of are dropped,
   * `drop` is called with each one's local handle (unless copies are kept).
   */
  ended(r: number, task: number, now: number, drop: (local: number) => void): void {
    const start = this.plan.readStart[r]!;
    const msg = this.plan.readMessage[r]!;
    if (task + 1 >= start.length) return;
    for (let k = start[task]!; k < start[task + 1]!; k++) {
      const i = msg[k]!;
      if (--this.left[i]! > 0 || this.keep || this.plan.droppable[i] === 0) continue;
      this.state[i] = CopyState.DROPPED;
      this.droppedAt[i] = now;
      this.used[r]! -= this.bytes[i]!;
      this.dropped[r]!++;
      drop(this.plan.local[i]!);
    }
  }
}
