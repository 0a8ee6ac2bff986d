/**
 * The planner of distributed task insertion (StarPU-MPI's task insertion): every process
 * submits the same task graph, and this planner, fed the same declarations and tasks in the
 * same order on every rank, decides the same things everywhere without any message:
 * - which rank runs each task: the owner of the first handle it writes (owner computes; the
 *   owner of its first handle when it writes none, rank 0 when it accesses none);
 * - which transfers the task needs before it runs: for each handle it reads whose current
 *   version the executing rank does not hold, one message from the rank that produced that
 *   version (its last writer, the owner before any write) to the executing rank, with a tag
 *   unique per (handle, version);
 * - which ranks hold each version: a received copy stays cached (no further message for later
 *   readers on that rank) until the handle is written, which invalidates it on every rank.
 *
 * It is pure (no MPI, no runtime): the MPI cluster (src/cluster/submitter.ts) posts the
 * transfers of its own rank, and a simulated cluster can replay the same plan.
 */
import { AccessMode, LocusError } from '../core/types.ts';
import type { Distribution, HandleInfo } from './distribution.ts';

/** Tags cycle through 0 .. TAG_MODULUS - 1 (MPI guarantees tags up to 32767). */
export const TAG_MODULUS = 32768;

/** One inserted message: handle `handle`'s current version from rank `from` to rank `to`. */
export interface Transfer {
  /** Handle index (declaration order). */
  handle: number;
  /** Sending rank (the producer of the version). */
  from: number;
  /** Receiving rank (the task's executor, or the gather's root). */
  to: number;
  /** MPI tag: the serial number of the version, modulo TAG_MODULUS. */
  tag: number;
  /** Bytes of the handle. */
  bytes: number;
}

/** The plan of one task: its executing rank and the messages to post before it. */
export interface TaskPlan {
  /** The rank that runs the task. */
  executor: number;
  /** Messages that bring the task's inputs to the executor, in access order. */
  transfers: Transfer[];
}

/** Per-rank counts of a plan. */
export interface RankCounts {
  /** Tasks the rank runs. */
  tasks: number;
  /** Messages it sends, and their bytes. */
  messagesSent: number;
  bytesSent: number;
  /** Messages it receives, and their bytes. */
  messagesReceived: number;
  bytesReceived: number;
}

interface HandleState {
  owner: number;
  bytes: number;
  /** Rank that produced the current version. */
  source: number;
  /** Ranks holding the current version (the source and the ranks that received it). */
  holders: Set<number>;
  /** Serial number of the current version (unique over all handles and versions). */
  serial: number;
}

/** Plans the executors and messages of a task graph submitted in order (identical on every rank). */
export class InsertionPlanner {
  /** Planned counts of every rank (tasks, messages, bytes), gather excluded. */
  readonly counts: RankCounts[];
  private readonly handles: HandleState[] = [];
  private serials = 0;

  /** A planner for `size` ranks whose data `distribution` places. */
  constructor(
    readonly size: number,
    private readonly distribution: Distribution,
  ) {
    this.counts = Array.from({ length: size }, () => ({
      tasks: 0,
      messagesSent: 0,
      bytesSent: 0,
      messagesReceived: 0,
      bytesReceived: 0,
    }));
  }

  /** Declares the next handle (its bytes and block coordinates); returns its index. */
  declare(bytes: number, block?: readonly [number, number]): number {
    const index = this.handles.length;
    const info: HandleInfo = { index, block };
    const owner = this.distribution(info);
    if (!Number.isInteger(owner) || owner < 0 || owner >= this.size) {
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `the data distribution put handle ${index}${block ? ` (block ${block[0]},${block[1]})` : ''} on rank ${owner}: ranks are 0 .. ${this.size - 1}`,
      );
    }
    this.handles.push({ owner, bytes, source: owner, holders: new Set([owner]), serial: this.serials++ });
    return index;
  }

  /** The rank that owns handle `h`. */
  owner(h: number): number {
    return this.handles[h]!.owner;
  }

  /** Number of declared handles. */
  get handleCount(): number {
    return this.handles.length;
  }

  /** The rank holding the latest version of `h` (its last writer, else its owner). */
  source(h: number): number {
    return this.handles[h]!.source;
  }

  /** Whether rank `rank` holds the latest version of `h`. */
  holds(h: number, rank: number): boolean {
    return this.handles[h]!.holders.has(rank);
  }

  /** Plans the next task, given its accesses (handle index, mode) in order. */
  task(accesses: readonly (readonly [handle: number, mode: number])[]): TaskPlan {
    let executor = -1;
    for (const [h, m] of accesses) {
      if (m & AccessMode.W) {
        executor = this.handles[h]!.owner;
        break;
      }
    }
    if (executor < 0) executor = accesses.length > 0 ? this.handles[accesses[0]![0]]!.owner : 0;
    const transfers: Transfer[] = [];
    for (const [h, m] of accesses) {
      if (m & AccessMode.R) {
        const t = this.bring(h, executor);
        if (t) transfers.push(t);
      }
    }
    for (const [h, m] of accesses) {
      if (!(m & AccessMode.W)) continue;
      const s = this.handles[h]!;
      // A new version: every cached copy is invalid from here on.
      s.serial = this.serials++;
      s.source = executor;
      s.holders = new Set([executor]);
    }
    this.counts[executor]!.tasks++;
    return { executor, transfers };
  }

  /**
   * The messages that bring the latest version of every handle to `root` (the final gather),
   * for the handles `root` does not hold; they count in no rank's counts.
   */
  gather(root = 0): Transfer[] {
    const out: Transfer[] = [];
    for (let h = 0; h < this.handles.length; h++) {
      const s = this.handles[h]!;
      if (s.holders.has(root)) continue;
      out.push({ handle: h, from: s.source, to: root, tag: s.serial % TAG_MODULUS, bytes: s.bytes });
      s.holders.add(root);
    }
    return out;
  }

  /** The message bringing `h` to `to`, or none when `to` holds its latest version. */
  private bring(h: number, to: number): Transfer | undefined {
    const s = this.handles[h]!;
    if (s.holders.has(to)) return undefined;
    s.holders.add(to);
    const t = { handle: h, from: s.source, to, tag: s.serial % TAG_MODULUS, bytes: s.bytes };
    const from = this.counts[t.from]!;
    from.messagesSent++;
    from.bytesSent += t.bytes;
    const dest = this.counts[to]!;
    dest.messagesReceived++;
    dest.bytesReceived += t.bytes;
    return t;
  }
}
