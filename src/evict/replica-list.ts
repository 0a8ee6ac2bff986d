/**
 * Per-node doubly linked lists of replicas over flat typed arrays (slot = handle * nodes +
 * node), the ordered structure LRU and FIFO eviction walk. Each replica also gets a rank, a
 * sequence number drawn when it enters the tail, so that list order is rank order (the memory
 * manager's eviction index keeps candidates by rank).
 */
import { growF64, growI32, growU8 } from '../core/growable.ts';
import type { EvictionContext } from '../core/policy.ts';

/** One intrusive list per node; O(1) append, remove and move-to-tail. */
export class ReplicaList {
  private prev: Int32Array<ArrayBuffer>;
  private next: Int32Array<ArrayBuffer>;
  private inList: Uint8Array<ArrayBuffer>;
  private seq: Float64Array<ArrayBuffer>;
  private nextSeq = 0;
  private readonly head: Int32Array;
  private readonly tail: Int32Array;

  constructor(
    handles: number,
    private readonly nodes: number,
  ) {
    const slots = handles * nodes;
    this.prev = new Int32Array(slots).fill(-1);
    this.next = new Int32Array(slots).fill(-1);
    this.inList = new Uint8Array(slots);
    this.seq = new Float64Array(slots);
    this.head = new Int32Array(nodes).fill(-1);
    this.tail = new Int32Array(nodes).fill(-1);
  }

  /** Makes room for `handles` handles (dynamic submission); lists are kept. */
  grow(handles: number): void {
    const slots = handles * this.nodes;
    this.prev = growI32(this.prev, slots, -1);
    this.next = growI32(this.next, slots, -1);
    this.inList = growU8(this.inList, slots);
    this.seq = growF64(this.seq, slots);
  }

  /** The replica's rank: lower is nearer the head (meaningful while it is listed). */
  rank(handle: number, node: number): number {
    return this.seq[handle * this.nodes + node]!;
  }

  /** Appends the replica at the tail of its node's list. */
  append(handle: number, node: number): void {
    const s = handle * this.nodes + node;
    if (this.inList[s]) return;
    this.inList[s] = 1;
    this.seq[s] = this.nextSeq++;
    const t = this.tail[node]!;
    this.prev[s] = t;
    this.next[s] = -1;
    if (t >= 0) this.next[t] = s;
    else this.head[node] = s;
    this.tail[node] = s;
  }

  /** Removes the replica from its node's list (no-op if absent). */
  remove(handle: number, node: number): void {
    const s = handle * this.nodes + node;
    if (!this.inList[s]) return;
    this.inList[s] = 0;
    const p = this.prev[s]!;
    const n = this.next[s]!;
    if (p >= 0) this.next[p] = n;
    else this.head[node] = n;
    if (n >= 0) this.prev[n] = p;
    else this.tail[node] = p;
  }

  /** Moves the replica to the tail (most recent). */
  moveToTail(handle: number, node: number): void {
    const s = handle * this.nodes + node;
    if (!this.inList[s] || this.tail[node] === s) return;
    this.remove(handle, node);
    this.append(handle, node);
  }

  /**
   * The first handle from the head of node's list that the engine says is evictable (and that
   * `allow` accepts, when given), or -1.
   */
  firstMatching(node: number, ctx: EvictionContext, allow?: (handle: number) => boolean): number {
    const s = this.nextCandidate(node, -1, ctx, allow);
    return s < 0 ? -1 : (s - node) / this.nodes;
  }

  /** Replicas the walks (firstMatching, nextCandidate) have looked at so far: their cost. */
  steps = 0;

  /**
   * The next slot (handle * nodes + node) of node's list after `slot` (from the head when
   * `slot` is -1) whose replica the engine says is evictable and `allow` accepts, or -1: a
   * victim search walks its candidates with `for (s = next(n, -1, ..); s >= 0; s = next(n, s,
   * ..))`, with no closure. O(replicas skipped).
   */
  nextCandidate(
    node: number,
    slot: number,
    ctx: EvictionContext,
    allow: ((handle: number) => boolean) | undefined,
  ): number {
    for (let s = slot < 0 ? this.head[node]! : this.next[slot]!; s >= 0; s = this.next[s]!) {
      this.steps++;
      const h = (s - node) / this.nodes;
      if (ctx.isEvictable(h, node) && (allow === undefined || allow(h))) return s;
    }
    return -1;
  }

  /** The handle of a slot of node's list. */
  handleOf(slot: number, node: number): number {
    return (slot - node) / this.nodes;
  }

  /** Calls fn on every handle of node's list, least recent first. */
  forEach(node: number, fn: (handle: number) => void): void {
    for (let s = this.head[node]!; s >= 0; s = this.next[s]!) fn((s - node) / this.nodes);
  }
}
