/**
 * Sets of element indices as sorted, disjoint, non-adjacent half-open intervals `[lo, hi)`,
 * with exact union, intersection and difference (libsplit's ListInterval, written anew). The
 * partitioner keeps one set per buffer per memory (what is valid there) and instantiates
 * every region of a sub-kernel as one.
 */

/** An immutable set of integers stored as sorted disjoint half-open intervals. */
export class IntervalSet {
  /** Flat bounds: lo0, hi0, lo1, hi1, ...; sorted, disjoint, never touching, never empty. */
  readonly bounds: readonly number[];

  private constructor(bounds: number[]) {
    this.bounds = bounds;
  }

  /** The empty set. */
  static readonly EMPTY = new IntervalSet([]);

  /** `[lo, hi)`, empty when `hi <= lo`. */
  static of(lo: number, hi: number): IntervalSet {
    return hi > lo ? new IntervalSet([lo, hi]) : IntervalSet.EMPTY;
  }

  /** The union of any intervals given as `[lo, hi)` pairs (empty ones ignored). */
  static fromPairs(pairs: readonly (readonly [number, number])[]): IntervalSet {
    const sorted = pairs.filter(([lo, hi]) => hi > lo).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const out: number[] = [];
    for (const [lo, hi] of sorted) {
      const n = out.length;
      if (n > 0 && lo <= out[n - 1]!) out[n - 1] = Math.max(out[n - 1]!, hi);
      else out.push(lo, hi);
    }
    return new IntervalSet(out);
  }

  /** Number of intervals. */
  get count(): number {
    return this.bounds.length / 2;
  }

  /** Number of elements in the set. */
  get size(): number {
    let s = 0;
    for (let i = 0; i < this.bounds.length; i += 2) s += this.bounds[i + 1]! - this.bounds[i]!;
    return s;
  }

  /** True when the set has no element. */
  get isEmpty(): boolean {
    return this.bounds.length === 0;
  }

  /** The intervals as `[lo, hi)` pairs. */
  pairs(): [number, number][] {
    const out: [number, number][] = [];
    for (let i = 0; i < this.bounds.length; i += 2) out.push([this.bounds[i]!, this.bounds[i + 1]!]);
    return out;
  }

  /** True when `x` is in the set. */
  has(x: number): boolean {
    for (let i = 0; i < this.bounds.length; i += 2)
      if (x >= this.bounds[i]! && x < this.bounds[i + 1]!) return true;
    return false;
  }

  /** Elements in this set or in `o`. */
  union(o: IntervalSet): IntervalSet {
    if (o.isEmpty) return this;
    if (this.isEmpty) return o;
    return IntervalSet.fromPairs([...this.pairs(), ...o.pairs()]);
  }

  /** Elements in both sets (a merge of the two sorted lists). */
  intersect(o: IntervalSet): IntervalSet {
    const a = this.bounds;
    const b = o.bounds;
    const out: number[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const lo = Math.max(a[i]!, b[j]!);
      const hi = Math.min(a[i + 1]!, b[j + 1]!);
      if (hi > lo) out.push(lo, hi);
      if (a[i + 1]! < b[j + 1]!) i += 2;
      else j += 2;
    }
    return new IntervalSet(out);
  }

  /** Elements of this set not in `o`. */
  minus(o: IntervalSet): IntervalSet {
    if (o.isEmpty || this.isEmpty) return this;
    const b = o.bounds;
    const out: number[] = [];
    let j = 0;
    for (let i = 0; i < this.bounds.length; i += 2) {
      let lo = this.bounds[i]!;
      const hi = this.bounds[i + 1]!;
      while (j < b.length && b[j + 1]! <= lo) j += 2;
      let k = j;
      while (k < b.length && b[k]! < hi) {
        if (b[k]! > lo) out.push(lo, b[k]!);
        lo = Math.max(lo, b[k + 1]!);
        k += 2;
      }
      if (hi > lo) out.push(lo, hi);
    }
    return new IntervalSet(out);
  }

  /** True when both sets hold the same elements. */
  equals(o: IntervalSet): boolean {
    return this.bounds.length === o.bounds.length && this.bounds.every((v, i) => v === o.bounds[i]);
  }

  /** `[0,3) [5,9)`, for messages and tests. */
  toString(): string {
    return this.isEmpty
      ? '{}'
      : this.pairs()
          .map(([lo, hi]) => `[${lo},${hi})`)
          .join(' ');
  }
}
