/**
 * DARTS's candidates per GPU (the data of dataNotInMem_k that would free at least one task),
 * in buckets by that free count: per GPU k and count c, a doubly linked list over the data,
 * newest first, and the highest count that may be non-empty. Tables grow with the data and
 * with the highest count seen (tasks submitted while the engine runs). Everything is O(1) but
 * `best`, amortised O(1) (it lowers the cached highest count past empty buckets).
 */
import { growI32 } from '../../core/growable.ts';

/** Per-GPU buckets of data by free-task count. */
export class DataBuckets {
  private readonly K: number;
  private counts: number;
  // head[c * K + k]: first datum of bucket c of GPU k; next/prev/of[d * K + k].
  private head: Int32Array<ArrayBuffer>;
  private next: Int32Array<ArrayBuffer>;
  private prev: Int32Array<ArrayBuffer>;
  private of: Int32Array<ArrayBuffer>;
  private readonly top: Int32Array;

  /** Buckets for `gpus` GPUs over `handles` data, counts below `counts` (more as needed). */
  constructor(gpus: number, handles: number, counts: number) {
    this.K = gpus;
    this.counts = Math.max(2, counts);
    this.head = new Int32Array(this.counts * gpus).fill(-1);
    this.next = new Int32Array(handles * gpus).fill(-1);
    this.prev = new Int32Array(handles * gpus).fill(-1);
    this.of = new Int32Array(handles * gpus);
    this.top = new Int32Array(gpus);
  }

  /** Per-datum tables hold `handles` data. */
  grow(handles: number): void {
    const n = handles * this.K;
    this.next = growI32(this.next, n, -1);
    this.prev = growI32(this.prev, n, -1);
    this.of = growI32(this.of, n);
  }

  /** Puts d (in no bucket of k) in k's bucket c >= 1. */
  add(k: number, d: number, c: number): void {
    const K = this.K;
    if (c >= this.counts) {
      this.counts = Math.max(c + 1, 2 * this.counts);
      this.head = growI32(this.head, this.counts * K, -1);
    }
    const dk = d * K + k;
    const slot = c * K + k;
    const first = this.head[slot]!;
    this.next[dk] = first;
    this.prev[dk] = -1;
    if (first >= 0) this.prev[first * K + k] = d;
    this.head[slot] = d;
    this.of[dk] = c;
    if (c > this.top[k]!) this.top[k] = c;
  }

  /** Takes d out of k's buckets (no-op when it is in none). */
  remove(k: number, d: number): void {
    const K = this.K;
    const dk = d * K + k;
    const c = this.of[dk]!;
    if (c === 0) return;
    const p = this.prev[dk]!;
    const n = this.next[dk]!;
    if (p >= 0) this.next[p * K + k] = n;
    else this.head[c * K + k] = n;
    if (n >= 0) this.prev[n * K + k] = p;
    this.of[dk] = 0;
  }

  /** The highest non-empty count of k, 0 when every bucket is empty. */
  best(k: number): number {
    let c = this.top[k]!;
    while (c > 0 && this.head[c * this.K + k] === -1) c--;
    this.top[k] = c;
    return c;
  }

  /** An upper bound of k's highest non-empty count (for scans from the top down). */
  highest(k: number): number {
    return this.top[k]!;
  }

  /** The first datum of k's bucket c, or -1. */
  first(k: number, c: number): number {
    return c < this.counts ? this.head[c * this.K + k]! : -1;
  }

  /** The datum after d in its bucket of k, or -1. */
  after(k: number, d: number): number {
    return this.next[d * this.K + k]!;
  }
}
