/**
 * A fixed number of indexed binary min-heaps over replica slots, keyed by a number per slot
 * (an eviction policy's rank): each slot sits in at most one heap, whose id and position it
 * records, so it can be moved, re-keyed or removed without a search. Cost: the top in O(1);
 * insert, remove and re-key in O(log n) for a heap of n slots. Allocates only when a heap or
 * the per-slot tables grow.
 */
import { growF64, growI32 } from '../growable.ts';

/** Indexed min-heaps of slots by key. */
export class RankHeaps {
  /** Heap id of each slot, -1 when in none. */
  private where: Int32Array<ArrayBuffer>;
  /** Position of each slot in its heap. */
  private pos: Int32Array<ArrayBuffer>;
  /** Key each slot was placed with. */
  private keys: Float64Array<ArrayBuffer>;
  private readonly heaps: Int32Array<ArrayBuffer>[];
  private readonly sizes: Int32Array;

  constructor(count: number, slots: number) {
    this.where = new Int32Array(slots).fill(-1);
    this.pos = new Int32Array(slots);
    this.keys = new Float64Array(slots);
    this.heaps = Array.from({ length: count }, () => new Int32Array(16));
    this.sizes = new Int32Array(count);
  }

  /** Per-slot tables now hold `slots` slots. */
  grow(slots: number): void {
    this.where = growI32(this.where, slots, -1);
    this.pos = growI32(this.pos, slots);
    this.keys = growF64(this.keys, slots);
  }

  /** The heap holding `slot`, or -1. */
  heapOf(slot: number): number {
    return this.where[slot]!;
  }

  /** The key `slot` was placed with (meaningful while it is in a heap). */
  keyOf(slot: number): number {
    return this.keys[slot]!;
  }

  /** The slot of least key in heap `id`, or -1 when it is empty. */
  top(id: number): number {
    return this.sizes[id]! > 0 ? this.heaps[id]![0]! : -1;
  }

  /** Puts `slot` in heap `id` with `key`, moving or re-keying it as needed. */
  place(slot: number, id: number, key: number): void {
    const at = this.where[slot]!;
    if (at === id) {
      const old = this.keys[slot]!;
      if (old === key) return;
      this.keys[slot] = key;
      if (key < old) this.up(id, this.pos[slot]!);
      else this.down(id, this.pos[slot]!);
      return;
    }
    if (at >= 0) this.remove(slot);
    let heap = this.heaps[id]!;
    const n = this.sizes[id]!;
    if (n === heap.length) {
      heap = growI32(heap, n * 2);
      this.heaps[id] = heap;
    }
    heap[n] = slot;
    this.sizes[id] = n + 1;
    this.where[slot] = id;
    this.pos[slot] = n;
    this.keys[slot] = key;
    this.up(id, n);
  }

  /** Takes `slot` out of its heap (no-op when in none). */
  remove(slot: number): void {
    const id = this.where[slot]!;
    if (id < 0) return;
    const heap = this.heaps[id]!;
    const i = this.pos[slot]!;
    const last = this.sizes[id]! - 1;
    this.sizes[id] = last;
    this.where[slot] = -1;
    if (i === last) return;
    const moved = heap[last]!;
    heap[i] = moved;
    this.pos[moved] = i;
    this.up(id, i);
    this.down(id, this.pos[moved]!);
  }

  private up(id: number, i: number): void {
    const heap = this.heaps[id]!;
    const keys = this.keys;
    const s = heap[i]!;
    const k = keys[s]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const ps = heap[p]!;
      if (keys[ps]! <= k) break;
      heap[i] = ps;
      this.pos[ps] = i;
      i = p;
    }
    heap[i] = s;
    this.pos[s] = i;
  }

  private down(id: number, i: number): void {
    const heap = this.heaps[id]!;
    const keys = this.keys;
    const n = this.sizes[id]!;
    const s = heap[i]!;
    const k = keys[s]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && keys[heap[c + 1]!]! < keys[heap[c]!]!) c++;
      const cs = heap[c]!;
      if (keys[cs]! >= k) break;
      heap[i] = cs;
      this.pos[cs] = i;
      i = c;
    }
    heap[i] = s;
    this.pos[s] = i;
  }
}
