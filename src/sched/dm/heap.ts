/**
 * A binary min-heap of task ids under an order given by the caller (a `less` predicate over
 * key arrays the caller owns), the building block of the ready and priority orderings.
 * With a position index (one Int32Array over tasks, shared by every heap a task may sit in,
 * since it sits in at most one at a time) a task whose key changed is re-sifted in place and
 * may be removed: O(log n) each. Without one, removal is the caller's lazy business.
 * Storage is a growable Int32Array: no allocation per operation in steady state.
 */

/** A min-heap of task ids; the smallest under `less` is at the top. */
export class TaskHeap {
  private heap = new Int32Array(16);
  /** Number of tasks in the heap. */
  size = 0;

  /**
   * @param less strict order: true when task a must come out before task b.
   * @param pos optional position index (pos[task] = index in this heap, -1 when absent).
   */
  constructor(
    private readonly less: (a: number, b: number) => boolean,
    private pos: Int32Array | null = null,
  ) {}

  /** Replaces the position index (after the caller grew it: same content, more room). */
  setPositions(pos: Int32Array): void {
    this.pos = pos;
  }

  /** The smallest task (undefined behaviour when empty). */
  peek(): number {
    return this.heap[0]!;
  }

  /** Adds a task. O(log n). */
  push(task: number): void {
    if (this.size === this.heap.length) {
      const next = new Int32Array(this.heap.length * 2);
      next.set(this.heap);
      this.heap = next;
    }
    this.heap[this.size] = task;
    if (this.pos) this.pos[task] = this.size;
    this.size++;
    this.up(this.size - 1);
  }

  /** Removes and returns the smallest task, or -1 when empty. O(log n). */
  pop(): number {
    if (this.size === 0) return -1;
    const top = this.heap[0]!;
    this.removeIndex(0);
    return top;
  }

  /** Re-sifts `task` after its key changed (needs the position index). O(log n). */
  update(task: number): void {
    const i = this.pos![task]!;
    if (i < 0) return;
    this.up(i);
    this.down(this.pos![task]!);
  }

  /** Re-sifts `task` after its key decreased (it may only move up). O(log n). */
  decreased(task: number): void {
    const i = this.pos![task]!;
    if (i > 0) this.up(i);
  }

  /** Re-sifts `task` after its key increased (it may only move down). O(log n). */
  increased(task: number): void {
    const i = this.pos![task]!;
    if (i >= 0) this.down(i);
  }

  /** Removes `task` if present (needs the position index). O(log n). */
  remove(task: number): void {
    const i = this.pos![task]!;
    if (i >= 0) this.removeIndex(i);
  }

  /**
   * The engine recycled tasks [0, k): every entry shifts down by k, and entries of recycled
   * tasks (lazily deleted ones: taken elsewhere, since ended) leave. The caller shifts its key
   * tables and position index first. With nothing dropped the structure is kept as is (the
   * order of the keys is unchanged); otherwise it is rebuilt bottom-up. O(n).
   */
  rebase(k: number): void {
    const heap = this.heap;
    let n = 0;
    for (let i = 0; i < this.size; i++) {
      const t = heap[i]! - k;
      if (t >= 0) heap[n++] = t;
    }
    const dropped = n !== this.size;
    this.size = n;
    if (this.pos) for (let i = 0; i < n; i++) this.pos[heap[i]!] = i;
    if (dropped) for (let i = (n >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** The task at heap index i (heap order, not sorted order). */
  at(i: number): number {
    return this.heap[i]!;
  }

  /**
   * The tasks in increasing order without modifying the heap, at most `limit` of them:
   * a frontier heap over the heap's indices, O(k log k) for the first k tasks, so a reader
   * that stops early pays for what it reads. Do not modify the heap while iterating.
   */
  *ordered(limit = Number.POSITIVE_INFINITY): Generator<number> {
    if (this.size === 0 || limit <= 0) return;
    const heap = this.heap;
    const less = this.less;
    const frontier: number[] = [0];
    let yielded = 0;
    while (frontier.length > 0) {
      // Pop the frontier's smallest index.
      const i = frontier[0]!;
      const last = frontier.pop()!;
      if (frontier.length > 0) {
        let k = 0;
        const n = frontier.length;
        for (;;) {
          const l = 2 * k + 1;
          if (l >= n) break;
          const r = l + 1;
          const c = r < n && less(heap[frontier[r]!]!, heap[frontier[l]!]!) ? r : l;
          if (!less(heap[frontier[c]!]!, heap[last]!)) break;
          frontier[k] = frontier[c]!;
          k = c;
        }
        frontier[k] = last;
      }
      yield heap[i]!;
      if (++yielded >= limit) return;
      for (let child = 2 * i + 1; child <= 2 * i + 2 && child < this.size; child++) {
        let k = frontier.length;
        frontier.push(child);
        while (k > 0) {
          const p = (k - 1) >> 1;
          if (!less(heap[child]!, heap[frontier[p]!]!)) break;
          frontier[k] = frontier[p]!;
          k = p;
        }
        frontier[k] = child;
      }
    }
  }

  private removeIndex(i: number): void {
    const heap = this.heap;
    if (this.pos) this.pos[heap[i]!] = -1;
    this.size--;
    if (i === this.size) return;
    const moved = heap[this.size]!;
    heap[i] = moved;
    if (this.pos) this.pos[moved] = i;
    if (i > 0 && this.less(moved, heap[(i - 1) >> 1]!)) this.up(i);
    else this.down(i);
  }

  private up(i: number): void {
    const heap = this.heap;
    const less = this.less;
    const pos = this.pos;
    const x = heap[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const y = heap[p]!;
      if (!less(x, y)) break;
      heap[i] = y;
      if (pos) pos[y] = i;
      i = p;
    }
    heap[i] = x;
    if (pos) pos[x] = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const less = this.less;
    const pos = this.pos;
    const n = this.size;
    const x = heap[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && less(heap[r]!, heap[l]!) ? r : l;
      const y = heap[c]!;
      if (!less(y, x)) break;
      heap[i] = y;
      if (pos) pos[y] = i;
      i = c;
    }
    heap[i] = x;
    if (pos) pos[x] = i;
  }
}
