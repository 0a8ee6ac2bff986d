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

/** A FIFO of integers over a growable ring buffer (no allocation in steady state). */
export class IntQueue {
  private buf = new Int32Array(16);
  private head = 0;
  /** Number of queued values. */
  length = 0;

  /** Appends a value at the tail. */
  push(value: number): void {
    if (this.length === this.buf.length) {
      const next = new Int32Array(this.buf.length * 2);
      for (let i = 0; i < this.length; i++) next[i] = this.buf[(this.head + i) & (this.buf.length - 1)]!;
      this.buf = next;
      this.head = 0;
    }
    this.buf[(this.head + this.length) & (this.buf.length - 1)] = value;
    this.length++;
  }

  /** The value at the head (undefined behaviour when empty). */
  peek(): number {
    return this.buf[this.head]!;
  }

  /** The i-th value from the head. */
  at(i: number): number {
    return this.buf[(this.head + i) & (this.buf.length - 1)]!;
  }

  /** Removes and returns the head value. */
  shift(): number {
    const v = this.buf[this.head]!;
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.length--;
    return v;
  }

  /** Adds `delta` to every queued value (task ids shifted by the engine's compaction). */
  addToAll(delta: number): void {
    const mask = this.buf.length - 1;
    for (let k = 0; k < this.length; k++) this.buf[(this.head + k) & mask]! += delta;
  }

  /** Removes the i-th value from the head, keeping the others' order. */
  removeAt(i: number): void {
    const mask = this.buf.length - 1;
    for (let k = i; k < this.length - 1; k++) {
      this.buf[(this.head + k) & mask] = this.buf[(this.head + k + 1) & mask]!;
    }
    this.length--;
  }
}

/**
 * A copy of `a` with room for `n` entries (the new ones set to `fill`), or `a` itself when
 * it is long enough: per-task and per-handle tables grow with dynamic submission (amortised
 * O(1) when capacities double).
 */
export function growI32(a: Int32Array<ArrayBuffer>, n: number, fill = 0): Int32Array<ArrayBuffer> {
  if (a.length >= n) return a;
  const b = new Int32Array(n);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}

/** growI32 for a Uint8Array. */
export function growU8(a: Uint8Array<ArrayBuffer>, n: number, fill = 0): Uint8Array<ArrayBuffer> {
  if (a.length >= n) return a;
  const b = new Uint8Array(n);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}

/** growI32 for a Float64Array. */
export function growF64(a: Float64Array<ArrayBuffer>, n: number, fill = 0): Float64Array<ArrayBuffer> {
  if (a.length >= n) return a;
  const b = new Float64Array(n);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}
