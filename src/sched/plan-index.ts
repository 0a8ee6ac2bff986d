/**
 * An incremental index of the tasks a scheduler has planned, so that eviction policies read
 * the known future without rescanning the queues (Belady's next use, LUF's planned uses).
 * Tasks sit in groups (a worker's queue, or one queue that a class of workers shares), each
 * task in at most one group of an index at a time, ordered by a key (a, b) compared
 * lexicographically: the order in which the scheduler hands them out (plannedTasks' order).
 *
 * Per group, an order-statistic treap over the tasks (the task at rank r: O(log n)); per
 * (group, handle), the number of planned accesses of the handle and a lazy min-heap of the
 * tasks accessing it (the first planned use: O(log n) amortised; entries of tasks that left
 * are dropped when they reach the top, or all at once when they outnumber the live ones).
 * add and remove cost O(accesses x log n).
 */
import type { TaskGraph } from '../core/graph.ts';
import { growF64, growI32 } from '../core/growable.ts';

/** The planned tasks of one group of an index, as a scheduler exposes them per worker. */
export interface PlanView {
  /** The index. */
  readonly index: PlanIndex;
  /** The worker's group in it. */
  readonly group: number;
}

/** A scheduler that keeps a PlanIndex of its planned tasks (duck-typed by eviction policies). */
export interface IndexedPlanner {
  /** The index and group of `worker`'s planned tasks, or undefined when it keeps none. */
  plannedIndex(worker: number): PlanView | undefined;
}

/** Accesses of one handle by the planned tasks of one group. */
interface Uses {
  /** Planned accesses (a task accessing the handle twice counts twice). */
  count: number;
  /** Min-heap of entries [a, b, task, stamp], flattened. */
  heap: number[];
}

/** Multiplier that spreads task ids into treap priorities (a fixed hash: deterministic shapes). */
const HASH = 0x9e3779b1;

/** Planned tasks per group, in hand-out order, with per-handle first uses and counts. */
export class PlanIndex {
  private groupOf: Int32Array<ArrayBuffer>;
  private stamp: Int32Array<ArrayBuffer>;
  private keyA: Float64Array<ArrayBuffer>;
  private keyB: Float64Array<ArrayBuffer>;
  private left: Int32Array<ArrayBuffer>;
  private right: Int32Array<ArrayBuffer>;
  private sizeOf: Int32Array<ArrayBuffer>;
  private readonly roots: Int32Array;
  private readonly groups: number;
  private readonly uses = new Map<number, Uses>();

  /** An index over `graph`'s tasks with `groups` groups. */
  constructor(
    private readonly graph: TaskGraph,
    groups: number,
  ) {
    const n = Math.max(16, graph.taskCount);
    this.groups = groups;
    this.groupOf = new Int32Array(n).fill(-1);
    this.stamp = new Int32Array(n);
    this.keyA = new Float64Array(n);
    this.keyB = new Float64Array(n);
    this.left = new Int32Array(n).fill(-1);
    this.right = new Int32Array(n).fill(-1);
    this.sizeOf = new Int32Array(n);
    this.roots = new Int32Array(groups).fill(-1);
  }

  /** Whether `task` is planned in some group. */
  has(task: number): boolean {
    return this.groupOf[task]! >= 0;
  }

  /** Planned tasks in `group`. */
  size(group: number): number {
    const r = this.roots[group]!;
    return r < 0 ? 0 : this.sizeOf[r]!;
  }

  /** Makes room for task ids below `n` (tasks submitted while the engine runs). */
  private grow(n: number): void {
    const cap = Math.max(n, 2 * this.groupOf.length);
    this.groupOf = growI32(this.groupOf, cap, -1);
    this.stamp = growI32(this.stamp, cap);
    this.keyA = growF64(this.keyA, cap);
    this.keyB = growF64(this.keyB, cap);
    this.left = growI32(this.left, cap, -1);
    this.right = growI32(this.right, cap, -1);
    this.sizeOf = growI32(this.sizeOf, cap);
  }

  /** Plans `task` in `group` with key (a, b); a task already planned moves. */
  add(task: number, group: number, a: number, b: number): void {
    if (task >= this.groupOf.length) this.grow(task + 1);
    if (this.groupOf[task]! >= 0) this.remove(task);
    this.groupOf[task] = group;
    this.stamp[task]!++;
    this.keyA[task] = a;
    this.keyB[task] = b;
    this.left[task] = -1;
    this.right[task] = -1;
    this.sizeOf[task] = 1;
    const [l, r] = this.split(this.roots[group]!, task);
    this.roots[group] = this.merge(this.merge(l, task), r);
    const g = this.graph;
    const stamp = this.stamp[task]!;
    for (let i = g.accessStart.data[task]!; i < g.accessStart.data[task + 1]!; i++) {
      const u = this.usesOf(group, g.accessHandle.data[i]!, true)!;
      u.count++;
      heapPush(u.heap, a, b, task, stamp);
    }
  }

  /** Removes `task` from its group (no-op when it is not planned). */
  remove(task: number): void {
    const group = this.groupOf[task]!;
    if (group < 0) return;
    this.roots[group] = this.erase(this.roots[group]!, task);
    this.groupOf[task] = -1;
    const g = this.graph;
    for (let i = g.accessStart.data[task]!; i < g.accessStart.data[task + 1]!; i++) {
      const h = g.accessHandle.data[i]!;
      const u = this.usesOf(group, h, false)!;
      u.count--;
      if (u.count === 0) this.uses.delete(this.slot(group, h));
      else if (u.heap.length > 16 * 4 && u.heap.length > 8 * u.count) this.compact(u, group);
    }
  }

  /** The task at rank `r` (0 = handed out first) of `group`, or -1 past the end. */
  at(group: number, r: number): number {
    let x = this.roots[group]!;
    while (x >= 0) {
      const l = this.left[x]!;
      const ls = l < 0 ? 0 : this.sizeOf[l]!;
      if (r < ls) x = l;
      else if (r === ls) return x;
      else {
        r -= ls + 1;
        x = this.right[x]!;
      }
    }
    return -1;
  }

  /** Negative, 0 or positive as planned task t1 comes before, is, or comes after t2. */
  compare(t1: number, t2: number): number {
    return this.keyA[t1]! - this.keyA[t2]! || this.keyB[t1]! - this.keyB[t2]! || (t1 === t2 ? 0 : t1 - t2);
  }

  /** The first task of `group` (in hand-out order) that accesses `handle`, or -1. */
  firstUse(group: number, handle: number): number {
    const u = this.usesOf(group, handle, false);
    if (u === undefined) return -1;
    const heap = u.heap;
    while (heap.length > 0) {
      const t = heap[2]!;
      if (this.groupOf[t] === group && this.stamp[t] === heap[3]) return t;
      heapPop(heap);
    }
    return -1;
  }

  /** Accesses of `handle` by the planned tasks of `group`. */
  usesIn(group: number, handle: number): number {
    return this.usesOf(group, handle, false)?.count ?? 0;
  }

  private slot(group: number, handle: number): number {
    // Not group * handles + handle: handles may be registered while the engine runs.
    return handle * this.groups + group;
  }

  private usesOf(group: number, handle: number, create: boolean): Uses | undefined {
    const key = this.slot(group, handle);
    let u = this.uses.get(key);
    if (u === undefined && create) {
      u = { count: 0, heap: [] };
      this.uses.set(key, u);
    }
    return u;
  }

  /** Drops the entries of tasks that left the group. */
  private compact(u: Uses, group: number): void {
    const old = u.heap;
    u.heap = [];
    for (let i = 0; i < old.length; i += 4) {
      const t = old[i + 2]!;
      if (this.groupOf[t] === group && this.stamp[t] === old[i + 3])
        heapPush(u.heap, old[i]!, old[i + 1]!, t, old[i + 3]!);
    }
  }

  private priority(t: number): number {
    return Math.imul(t + 1, HASH) >>> 0;
  }

  private update(x: number): void {
    const l = this.left[x]!;
    const r = this.right[x]!;
    this.sizeOf[x] = 1 + (l < 0 ? 0 : this.sizeOf[l]!) + (r < 0 ? 0 : this.sizeOf[r]!);
  }

  /** Splits the treap at x into (keys before `pivot`, keys from `pivot` on). */
  private split(x: number, pivot: number): [number, number] {
    if (x < 0) return [-1, -1];
    if (this.compare(x, pivot) < 0) {
      const [l, r] = this.split(this.right[x]!, pivot);
      this.right[x] = l;
      this.update(x);
      return [x, r];
    }
    const [l, r] = this.split(this.left[x]!, pivot);
    this.left[x] = r;
    this.update(x);
    return [l, x];
  }

  /** Merges two treaps, every key of a before every key of b. */
  private merge(a: number, b: number): number {
    if (a < 0) return b;
    if (b < 0) return a;
    if (this.priority(a) > this.priority(b)) {
      this.right[a] = this.merge(this.right[a]!, b);
      this.update(a);
      return a;
    }
    this.left[b] = this.merge(a, this.left[b]!);
    this.update(b);
    return b;
  }

  /** The treap at x without task t. */
  private erase(x: number, t: number): number {
    if (x < 0) return -1;
    if (x === t) return this.merge(this.left[x]!, this.right[x]!);
    if (this.compare(t, x) < 0) this.left[x] = this.erase(this.left[x]!, t);
    else this.right[x] = this.erase(this.right[x]!, t);
    this.update(x);
    return x;
  }
}

/** Whether entry i of a flat heap comes before entry j. */
function before(h: number[], i: number, j: number): boolean {
  return (
    h[i]! < h[j]! ||
    (h[i] === h[j] && (h[i + 1]! < h[j + 1]! || (h[i + 1] === h[j + 1] && h[i + 2]! < h[j + 2]!)))
  );
}

function swap(h: number[], i: number, j: number): void {
  for (let k = 0; k < 4; k++) {
    const v = h[i + k]!;
    h[i + k] = h[j + k]!;
    h[j + k] = v;
  }
}

/** Pushes entry [a, b, task, stamp] onto a flat min-heap. */
function heapPush(h: number[], a: number, b: number, task: number, stamp: number): void {
  let i = h.length;
  h.push(a, b, task, stamp);
  while (i > 0) {
    const p = (((i >> 2) - 1) >> 1) << 2;
    if (!before(h, i, p)) break;
    swap(h, i, p);
    i = p;
  }
}

/** Removes the top entry of a flat min-heap. */
function heapPop(h: number[]): void {
  const last = h.length - 4;
  if (last > 0) swap(h, 0, last);
  h.length = last;
  let i = 0;
  for (;;) {
    const l = ((i >> 2) * 2 + 1) << 2;
    if (l >= h.length) break;
    const r = l + 4;
    const c = r < h.length && before(h, r, l) ? r : l;
    if (!before(h, c, i)) break;
    swap(h, i, c);
    i = c;
  }
}
