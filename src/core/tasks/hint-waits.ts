/**
 * The wontUse hints waiting for tasks to end (TaskGraph.wontUse, taken by the engine): per
 * task, the hints that wait for it, in the order they were taken (a list per task over flat
 * tables whose entries are reused); per hint, how many of its tasks have not ended. O(1) per
 * wait added or consumed, no allocation in steady state (a Map of arrays per task cost about
 * 8% of an eager Cholesky run, whose every tile gets a hint). Task ids shift down with the
 * engine's compaction (rebase).
 */
import { growI32, IntList } from '../growable.ts';

/** Hints waiting for tasks. */
export class HintWaits {
  /** Per task: its first and last wait entries, -1 for none. */
  private head = new Int32Array(16).fill(-1);
  private tail = new Int32Array(16).fill(-1);
  /** Per entry: the hint, and the next entry of the same task (or of the free list). */
  private readonly entryHint = new IntList(16);
  private readonly entryNext = new IntList(16);
  /** First free entry, -1 for none. */
  private free = -1;
  /** Per hint: its tasks that have not ended. */
  private pending = new Int32Array(16);
  /** Waits not consumed yet (0: no task has a hint waiting for it). */
  size = 0;

  /** Per-task tables now hold `tasks` tasks. */
  grow(tasks: number): void {
    this.head = growI32(this.head, tasks, -1);
    this.tail = growI32(this.tail, tasks, -1);
  }

  /** Hint `hint` waits for `task` (after the hints already waiting for it). */
  add(task: number, hint: number): void {
    let e = this.free;
    if (e >= 0) {
      this.free = this.entryNext.data[e]!;
      this.entryHint.data[e] = hint;
      this.entryNext.data[e] = -1;
    } else {
      e = this.entryHint.push(hint);
      this.entryNext.push(-1);
    }
    const last = this.tail[task]!;
    if (last >= 0) this.entryNext.data[last] = e;
    else this.head[task] = e;
    this.tail[task] = e;
    this.size++;
  }

  /** Hint `hint` waits for `count` tasks. */
  setPending(hint: number, count: number): void {
    if (hint >= this.pending.length)
      this.pending = growI32(this.pending, Math.max(hint + 1, 2 * this.pending.length));
    this.pending[hint] = count;
  }

  /** True when some hint waits for `task`. */
  waitsFor(task: number): boolean {
    return this.head[task]! >= 0;
  }

  /**
   * `task` ended: its waits are consumed, and the hints that waited for it and for no other
   * task left are appended to `due`, in the order they were taken.
   */
  ended(task: number, due: IntList): void {
    let e = this.head[task]!;
    this.head[task] = -1;
    this.tail[task] = -1;
    const hints = this.entryHint.data;
    const next = this.entryNext.data;
    while (e >= 0) {
      const hint = hints[e]!;
      const after = next[e]!;
      next[e] = this.free;
      this.free = e;
      this.size--;
      if (--this.pending[hint]! === 0) due.push(hint);
      e = after;
    }
  }

  /** Task ids shift down by k (tasks [0, k) ended: none has a wait left). */
  rebase(k: number): void {
    this.head.copyWithin(0, k);
    this.head.fill(-1, this.head.length - k);
    this.tail.copyWithin(0, k);
    this.tail.fill(-1, this.tail.length - k);
  }
}
