/**
 * dmdas's ready order without a heap re-sift per count change (issue 25): the key is
 * (-priority, non-ready inputs, queue order), so per worker the tasks are grouped by priority
 * value (a class), and each class holds, per non-ready count, a hierarchical bitset over the
 * class's queue positions, as dmdar's BucketIndex does per worker. A count change moves a task
 * between two bitsets of its class: O(log32 q) word operations instead of O(log q)
 * comparisons. A pop takes the class of highest priority with tasks (a heap of classes, empty
 * ones dropped when met), then its lowest non-empty count and its first position.
 *
 * Costs (q = tasks queued on the worker, P = priority values among them, L = count levels):
 * add O(log P + log32 q) (a new class: O(log P) more), count change O(log32 q), pop
 * O(L + log32 q) plus O(log P) per class emptied, planned(w) O(P log P + q).
 */
import { growI32, IntList } from '../../core/growable.ts';
import { HierBitset } from './bitset.ts';
import { TaskHeap } from './heap.ts';

/** The order among a worker's queued tasks, given their non-ready counts (see ready.ts). */
export interface ReadyIndex {
  /** `task` joins `worker`'s queue with its count set. */
  add(task: number, worker: number): void;
  /** `task`'s count changed by `delta` (its new value already stored). */
  moved(task: number, worker: number, delta: number): void;
  /** Takes the first task of `worker`, or -1. */
  pop(worker: number): number;
  /** The task pop(worker) would take now, left queued, or -1. */
  peek(worker: number): number;
  /** Tasks queued on `worker`. */
  size(worker: number): number;
  /** `worker`'s tasks in pop order. */
  planned(worker: number): Iterable<number>;
  /** Per-task tables now hold `tasks` entries; `nonReady` is the grown count table. */
  grow(tasks: number, nonReady: Int32Array<ArrayBuffer>): void;
  /** Makes room for non-ready counts up to `most` (a task with that many inputs arrived). */
  ensureLevels(most: number): void;
  /**
   * The engine recycled tasks [0, k): the queued tasks (ids shifted down by k, their counts
   * already shifted in the count table) are indexed anew in the same order, their positions
   * renumbered from 0 so that the bitsets stay as small as the queues.
   */
  rebase(k: number): void;
}

/** The lowest count whose bucket holds tasks (`sizes`: tasks per count; some must be non-zero). */
export function lowestBucket(sizes: Int32Array): number {
  let b = 0;
  while (sizes[b] === 0) b++;
  return b;
}

/** Set positions of the given bitsets, in increasing order (the queue order they index). */
export function queuedSlots(sets: readonly (HierBitset | undefined)[], sizes: Int32Array): number[] {
  const slots: number[] = [];
  for (let b = 0; b < sets.length; b++) {
    if (sizes[b] === 0 || sets[b] === undefined) continue;
    for (const slot of sets[b]!.members()) slots.push(slot);
  }
  return slots.sort((x, y) => x - y);
}

/** dmdas: per worker and priority value, per count a bitset over the class's positions. */
export class PriorityBucketIndex implements ReadyIndex {
  /** Per worker: priority value -> class. */
  private classOf: Map<number, number>[];
  /** Per worker: its classes with tasks (or emptied since), highest priority first. */
  private tops: TaskHeap[];
  private queued: Int32Array;
  // Per class.
  private classPrio: number[] = [];
  private classTasks: IntList[] = [];
  private classBuckets: (HierBitset | undefined)[][] = [];
  private classSizes: Int32Array<ArrayBuffer>[] = [];
  private classQueued: number[] = [];
  private classInTop: number[] = [];
  // Per task.
  private taskClass: Int32Array<ArrayBuffer>;
  private taskSlot: Int32Array<ArrayBuffer>;

  /** @param prio reads the current priority table (the graph's grows with submissions). */
  constructor(
    workers: number,
    tasks: number,
    private levels: number,
    private nonReady: Int32Array<ArrayBuffer>,
    private readonly prio: () => Float64Array,
  ) {
    this.classOf = [];
    this.tops = [];
    this.queued = new Int32Array(0);
    this.reset(workers);
    this.taskClass = new Int32Array(tasks);
    this.taskSlot = new Int32Array(tasks);
  }

  /** Empties the index for `workers` workers (no class left). */
  private reset(workers: number): void {
    this.classOf = Array.from({ length: workers }, () => new Map<number, number>());
    const higher = (a: number, b: number) => this.classPrio[a]! > this.classPrio[b]!;
    this.tops = Array.from({ length: workers }, () => new TaskHeap(higher));
    this.queued = new Int32Array(workers);
    this.classPrio = [];
    this.classTasks = [];
    this.classBuckets = [];
    this.classSizes = [];
    this.classQueued = [];
    this.classInTop = [];
  }

  /**
   * Classes are rebuilt with only the queued tasks (emptied classes are dropped, so that a
   * stream of ever new priority values stays bounded), each class's tasks re-added in their
   * queue order: pops unchanged. O(tasks queued x log).
   */
  rebase(k: number): void {
    const workers = this.classOf.length;
    const keep: number[][] = [];
    for (let w = 0; w < workers; w++) {
      const tasks: number[] = [];
      for (const c of this.classOf[w]!.values()) {
        if (this.classQueued[c] === 0) continue;
        const list = this.classTasks[c]!;
        for (const slot of queuedSlots(this.classBuckets[c]!, this.classSizes[c]!))
          tasks.push(list.data[slot]! - k);
      }
      keep.push(tasks);
    }
    this.reset(workers);
    this.taskClass.copyWithin(0, k);
    this.taskSlot.copyWithin(0, k);
    for (let w = 0; w < workers; w++) for (const t of keep[w]!) this.add(t, w);
  }

  grow(tasks: number, nonReady: Int32Array<ArrayBuffer>): void {
    this.taskClass = growI32(this.taskClass, tasks);
    this.taskSlot = growI32(this.taskSlot, tasks);
    this.nonReady = nonReady;
  }

  ensureLevels(most: number): void {
    if (most + 1 <= this.levels) return;
    this.levels = most + 1;
    this.classSizes = this.classSizes.map((s) => growI32(s, this.levels));
  }

  add(task: number, worker: number): void {
    const p = this.prio()[task]!;
    let c = this.classOf[worker]!.get(p);
    if (c === undefined) {
      c = this.classPrio.length;
      this.classOf[worker]!.set(p, c);
      this.classPrio.push(p);
      this.classTasks.push(new IntList(16));
      this.classBuckets.push([]);
      this.classSizes.push(new Int32Array(this.levels));
      this.classQueued.push(0);
      this.classInTop.push(0);
    }
    if (this.classInTop[c] === 0) {
      this.classInTop[c] = 1;
      this.tops[worker]!.push(c);
    }
    const slot = this.classTasks[c]!.push(task);
    this.taskClass[task] = c;
    this.taskSlot[task] = slot;
    const b = this.nonReady[task]!;
    this.bucket(c, b).set(slot);
    this.classSizes[c]![b]!++;
    this.classQueued[c]!++;
    this.queued[worker]!++;
  }

  moved(task: number, _worker: number, delta: number): void {
    const c = this.taskClass[task]!;
    const b = this.nonReady[task]!;
    const slot = this.taskSlot[task]!;
    const sizes = this.classSizes[c]!;
    this.classBuckets[c]![b - delta]!.clear(slot);
    sizes[b - delta]!--;
    this.bucket(c, b).set(slot);
    sizes[b]!++;
  }

  pop(worker: number): number {
    if (this.queued[worker] === 0) return -1;
    const c = this.topClass(worker);
    const sizes = this.classSizes[c]!;
    const b = lowestBucket(sizes);
    const set = this.classBuckets[c]![b]!;
    const slot = set.first();
    set.clear(slot);
    sizes[b]!--;
    this.classQueued[c]!--;
    this.queued[worker]!--;
    return this.classTasks[c]!.data[slot]!;
  }

  peek(worker: number): number {
    if (this.queued[worker] === 0) return -1;
    const c = this.topClass(worker);
    return this.classTasks[c]!.data[this.classBuckets[c]![lowestBucket(this.classSizes[c]!)]!.first()]!;
  }

  /** `worker`'s class of highest priority with tasks (emptied classes met are dropped). */
  private topClass(worker: number): number {
    const top = this.tops[worker]!;
    let c = top.peek();
    while (this.classQueued[c] === 0) {
      top.pop();
      this.classInTop[c] = 0;
      c = top.peek();
    }
    return c;
  }

  size(worker: number): number {
    return this.queued[worker]!;
  }

  *planned(worker: number): Generator<number> {
    const classes = [...this.classOf[worker]!.values()].filter((c) => this.classQueued[c]! > 0);
    classes.sort((a, b) => this.classPrio[b]! - this.classPrio[a]!);
    for (const c of classes) {
      const row = this.classBuckets[c]!;
      const tasks = this.classTasks[c]!;
      for (let b = 0; b < this.levels; b++) {
        if (this.classSizes[c]![b] === 0) continue;
        for (const slot of row[b]!.members()) yield tasks.data[slot]!;
      }
    }
  }

  private bucket(c: number, b: number): HierBitset {
    const row = this.classBuckets[c]!;
    let set = row[b];
    if (!set) {
      set = new HierBitset(64);
      row[b] = set;
    }
    return set;
  }
}
