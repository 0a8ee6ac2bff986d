/**
 * Append-only typed arrays that double their capacity, so per-task and per-edge tables
 * stay flat (no object per task) while the graph grows.
 */

/** A growable Int32Array. `data` may be replaced on growth: read it after pushing. */
export class IntList {
  /** Backing store; valid entries are data[0 .. length-1]. */
  data: Int32Array;
  /** Number of valid entries. */
  length = 0;

  constructor(capacity = 16) {
    this.data = new Int32Array(Math.max(capacity, 4));
  }

  /** Appends a value and returns its index. */
  push(value: number): number {
    if (this.length === this.data.length) this.grow(this.length * 2);
    this.data[this.length] = value;
    return this.length++;
  }

  /** Ensures room for `n` entries in total, filling new slots with `fill`. */
  ensure(n: number, fill = 0): void {
    if (n > this.data.length) this.grow(Math.max(n, this.data.length * 2), fill);
    if (n > this.length) {
      if (fill !== 0) this.data.fill(fill, this.length, n);
      this.length = n;
    }
  }

  private grow(capacity: number, fill = 0): void {
    const next = new Int32Array(capacity);
    next.set(this.data.subarray(0, this.length));
    if (fill !== 0) next.fill(fill, this.length);
    this.data = next;
  }
}

/** A growable Float64Array with the same contract as IntList. */
export class FloatList {
  /** Backing store; valid entries are data[0 .. length-1]. */
  data: Float64Array;
  /** Number of valid entries. */
  length = 0;

  constructor(capacity = 16) {
    this.data = new Float64Array(Math.max(capacity, 4));
  }

  /** Appends a value and returns its index. */
  push(value: number): number {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length] = value;
    return this.length++;
  }
}
