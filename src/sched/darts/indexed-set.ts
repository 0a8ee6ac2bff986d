/**
 * A set of integers in [0, capacity) with O(1) add, delete, membership and uniform access by
 * position (for random choice): a dense array plus each member's position in it. The
 * capacity grows on demand (tasks submitted while the engine runs).
 */
import { growI32 } from '../../core/growable.ts';

/** Integers in a dense array plus each one's position there. */
export class IndexedSet {
  private items: Int32Array<ArrayBuffer>;
  private pos: Int32Array<ArrayBuffer>;
  /** Number of members. */
  size = 0;

  constructor(capacity: number) {
    this.items = new Int32Array(capacity);
    this.pos = new Int32Array(capacity).fill(-1);
  }

  /** Makes room for integers below `capacity`. */
  grow(capacity: number): void {
    this.items = growI32(this.items, capacity);
    this.pos = growI32(this.pos, capacity, -1);
  }

  /**
   * Every member is at least k and shifts down by k (the engine recycled tasks [0, k)); the
   * members keep their order. O(size + capacity).
   */
  rebase(k: number): void {
    for (let i = 0; i < this.size; i++) this.items[i]! -= k;
    this.pos.copyWithin(0, k);
    this.pos.fill(-1, this.pos.length - k);
  }

  /** Adds x (no-op if present). */
  add(x: number): void {
    if (x >= this.pos.length) this.grow(Math.max(x + 1, 2 * this.pos.length));
    if (this.pos[x]! >= 0) return;
    this.pos[x] = this.size;
    this.items[this.size++] = x;
  }

  /** Removes x (no-op if absent); the last member takes its place. */
  delete(x: number): void {
    const i = this.pos[x] ?? -1;
    if (i < 0) return;
    const last = this.items[--this.size]!;
    this.items[i] = last;
    this.pos[last] = i;
    this.pos[x] = -1;
  }

  /** True when x is a member. */
  has(x: number): boolean {
    return (this.pos[x] ?? -1) >= 0;
  }

  /** The member at position i (0 <= i < size). */
  at(i: number): number {
    return this.items[i]!;
  }

  /** The members (a snapshot-free view: do not modify the set while iterating). */
  *values(): IterableIterator<number> {
    for (let i = 0; i < this.size; i++) yield this.items[i]!;
  }
}
