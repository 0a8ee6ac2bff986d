/**
 * A hierarchical bitset over non-negative integers (a 32-ary summary tree): set, clear and
 * "smallest member" in O(log32 n) word operations, about 4 for a million members. The
 * dmdar ordering keeps one per worker and non-ready count, over queue positions.
 */

/** A growable set of small integers with a fast smallest-member query. */
export class HierBitset {
  // levels[0] holds one bit per member; bit j of levels[k + 1] says word j of levels[k] is non-zero.
  private levels: Uint32Array[] = [];
  private capacity = 0;

  constructor(capacity = 1024) {
    this.grow(capacity);
  }

  /** Adds i. */
  set(i: number): void {
    if (i >= this.capacity) this.grow(i + 1);
    const levels = this.levels;
    for (let k = 0; k < levels.length; k++) {
      const words = levels[k]!;
      const w = i >>> 5;
      const was = words[w]!;
      words[w] = was | (1 << (i & 31));
      if (was !== 0) return; // the summaries above already say this word is non-zero
      i = w;
    }
  }

  /** Removes i (no-op when absent). */
  clear(i: number): void {
    if (i >= this.capacity) return;
    const levels = this.levels;
    for (let k = 0; k < levels.length; k++) {
      const words = levels[k]!;
      const w = i >>> 5;
      const now = words[w]! & ~(1 << (i & 31));
      words[w] = now;
      if (now !== 0) return;
      i = w;
    }
  }

  /** Removes every member, keeping the capacity (no allocation). O(capacity / 32). */
  reset(): void {
    for (const words of this.levels) words.fill(0);
  }

  /** True when i is a member. */
  has(i: number): boolean {
    return i < this.capacity && (this.levels[0]![i >>> 5]! & (1 << (i & 31))) !== 0;
  }

  /** The smallest member, or -1 when empty. */
  first(): number {
    const levels = this.levels;
    let i = 0;
    for (let k = levels.length - 1; k >= 0; k--) {
      const word = levels[k]![i]!;
      if (word === 0) return -1;
      i = (i << 5) | (31 - Math.clz32(word & -word));
    }
    return i;
  }

  /** The members in increasing order (scans the bottom level: for tools, not hot paths). */
  *members(): Generator<number> {
    const words = this.levels[0]!;
    for (let w = 0; w < words.length; w++) {
      let word = words[w]!;
      while (word !== 0) {
        const low = word & -word;
        yield (w << 5) | (31 - Math.clz32(low));
        word ^= low;
      }
    }
  }

  private grow(n: number): void {
    let capacity = 1024;
    while (capacity < n) capacity *= 2;
    const old = this.levels[0];
    this.levels = [];
    for (let words = capacity >>> 5; ; words = Math.ceil(words / 32)) {
      this.levels.push(new Uint32Array(words));
      if (words === 1) break;
    }
    this.capacity = capacity;
    if (old) {
      for (let w = 0; w < old.length; w++) {
        let word = old[w]!;
        while (word !== 0) {
          const low = word & -word;
          this.set((w << 5) | (31 - Math.clz32(low)));
          word ^= low;
        }
      }
    }
  }
}
