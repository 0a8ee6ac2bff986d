/**
 * The "ready" orderings of StarPU's dmdar and dmdas (seed 000 section 3.1: "on each GPU,
 * tasks are reordered at runtime in order to favor tasks with the most input data already
 * loaded into memory").
 *
 * StarPU's pop scans the worker's queue in order and takes the first task with the fewest
 * inputs neither valid nor loading on the worker's node (stopping early at one with none);
 * dmdas's queue is sorted by priority, and the scan only considers the tasks of the highest
 * priority present. Both choices are the minimum of a lexicographic key:
 * - dmdar: (non-ready inputs, queue order): per worker and non-ready count b, a hierarchical
 *   bitset over queue positions (BucketIndex); a pop takes the smallest position of the
 *   lowest non-empty count, a count change moves a task between two bitsets;
 * - dmdas: (-priority, non-ready inputs, queue order): per worker and priority value the same
 *   bitsets over that class's positions (PriorityBucketIndex, priority-buckets.ts), and a heap
 *   of the classes; a count change moves a task between two bitsets of its class.
 * The non-ready counts are kept up to date incrementally instead of rescanning at each pop.
 *
 * Counting: `present[handle, node]` mirrors ctx.isValidOrLoading. On every data notification
 * about a handle (requested, loaded, removed) and for the handles a task writes when it
 * starts or finishes, each node's bit is compared with the engine's state; when one flips,
 * the tasks queued on that node's workers that read the handle (QueuedInputs' list) get
 * their count moved by one.
 *
 * Costs (q = tasks queued on the worker, a = accesses of the task, N = memory nodes,
 * k = tasks queued on the node that read the handle, L = distinct counts in use, <= a + 1,
 * P = distinct priorities queued on the worker):
 * - add (push):  O(a) + one insertion: O(log32 q), plus O(log P) dmdas
 * - pop:         O(L + log32 q), plus O(log P) per emptied class dmdas
 * - notification about a handle: O(N) + k moves of O(log32 q) each. The k term grows with
 *   the queues: on matmul2d, where every task is queued at start, a datum loaded or evicted
 *   moves the counts of all the tasks of its row or column still queued on the node.
 * - planned(w):  O(q / 32 + q) for the whole queue, plus O(P log P) dmdas.
 */
import { growI32, growU8, IntList } from '../../core/growable.ts';
import type { SchedContext } from '../../core/policy.ts';
import { AccessMode } from '../../core/types.ts';
import { HierBitset } from './bitset.ts';
import type { QueuedInputs } from './inputs.ts';
import { PriorityBucketIndex, queuedSlots, type ReadyIndex } from './priority-buckets.ts';
import type { WorkerQueues } from './queues.ts';

/** dmdar: per worker and count, a bitset over queue positions. */
class BucketIndex implements ReadyIndex {
  private slotTask: IntList[];
  private buckets: (HierBitset | undefined)[][];
  private bucketSize: Int32Array<ArrayBuffer>[];
  private queued: Int32Array;
  private taskSlot: Int32Array<ArrayBuffer>;

  constructor(
    workers: number,
    tasks: number,
    private levels: number,
    private nonReady: Int32Array<ArrayBuffer>,
  ) {
    this.slotTask = Array.from({ length: workers }, () => new IntList());
    this.buckets = Array.from({ length: workers }, () => new Array<HierBitset | undefined>(levels));
    this.bucketSize = Array.from({ length: workers }, () => new Int32Array(levels));
    this.queued = new Int32Array(workers);
    this.taskSlot = new Int32Array(tasks);
  }

  grow(tasks: number, nonReady: Int32Array<ArrayBuffer>): void {
    this.taskSlot = growI32(this.taskSlot, tasks);
    this.nonReady = nonReady;
  }

  ensureLevels(most: number): void {
    if (most + 1 <= this.levels) return;
    this.levels = most + 1;
    this.bucketSize = this.bucketSize.map((s) => growI32(s, this.levels));
  }

  /**
   * Each worker's queued tasks re-added in queue order, positions from 0, into the same lists
   * and bitsets emptied (no allocation but the list of kept tasks). O(tasks queued x log +
   * bitset capacity / 32).
   */
  rebase(k: number): void {
    const workers = this.queued.length;
    const keep = Array.from({ length: workers }, (_, w) =>
      queuedSlots(this.buckets[w]!, this.bucketSize[w]!).map((slot) => this.slotTask[w]!.data[slot]! - k),
    );
    for (let w = 0; w < workers; w++) {
      this.slotTask[w]!.length = 0;
      for (const set of this.buckets[w]!) set?.reset();
      this.bucketSize[w]!.fill(0);
    }
    this.queued.fill(0);
    this.taskSlot.copyWithin(0, k);
    for (let w = 0; w < workers; w++) for (const t of keep[w]!) this.add(t, w);
  }

  private bucket(worker: number, b: number): HierBitset {
    const row = this.buckets[worker]!;
    let set = row[b];
    if (!set) {
      set = new HierBitset();
      row[b] = set;
    }
    return set;
  }

  add(task: number, worker: number): void {
    const slot = this.slotTask[worker]!.push(task);
    this.taskSlot[task] = slot;
    const b = this.nonReady[task]!;
    this.bucket(worker, b).set(slot);
    this.bucketSize[worker]![b]!++;
    this.queued[worker]!++;
  }

  moved(task: number, worker: number, delta: number): void {
    const b = this.nonReady[task]!;
    const slot = this.taskSlot[task]!;
    const sizes = this.bucketSize[worker]!;
    this.buckets[worker]![b - delta]!.clear(slot);
    sizes[b - delta]!--;
    this.bucket(worker, b).set(slot);
    sizes[b]!++;
  }

  pop(worker: number): number {
    if (this.queued[worker] === 0) return -1;
    const sizes = this.bucketSize[worker]!;
    let b = 0;
    while (sizes[b] === 0) b++;
    const set = this.buckets[worker]![b]!;
    const slot = set.first();
    set.clear(slot);
    sizes[b]!--;
    this.queued[worker]!--;
    return this.slotTask[worker]!.data[slot]!;
  }

  size(worker: number): number {
    return this.queued[worker]!;
  }

  *planned(worker: number): Generator<number> {
    const row = this.buckets[worker]!;
    const tasks = this.slotTask[worker]!;
    for (let b = 0; b < this.levels; b++) {
      if (this.bucketSize[worker]![b] === 0) continue;
      for (const slot of row[b]!.members()) yield tasks.data[slot]!;
    }
  }
}

/** Per-worker queues popped by the ready criterion, optionally after priority. */
export class ReadyQueues implements WorkerQueues {
  private ctx!: SchedContext;
  private inputs!: QueuedInputs;
  private index!: ReadyIndex;
  private nn = 0;
  private workerNode = new Int32Array(0);
  /** Worker each queued task waits on. */
  private taskWorker = new Int32Array(0);
  /** Inputs of each queued task neither valid nor loading on its worker's node. */
  private nonReady = new Int32Array(0);
  /** Mirrors isValidOrLoading per (handle, node); synced before every use, so 0 on growth is safe. */
  private present = new Uint8Array(0);
  private levels = 1;

  /** @param byPriority order by priority first (dmdas), larger first. */
  constructor(private readonly byPriority: boolean) {}

  init(ctx: SchedContext, inputs: QueuedInputs): void {
    this.ctx = ctx;
    this.inputs = inputs;
    const g = ctx.graph;
    const nt = ctx.taskCapacity;
    const nw = ctx.platform.workers.length;
    this.nn = ctx.platform.nodes.length;
    this.taskWorker = new Int32Array(nt).fill(-1);
    this.nonReady = new Int32Array(nt);
    this.present = new Uint8Array(ctx.handleCapacity * this.nn);
    for (let h = 0; h < g.handleCount; h++) {
      for (let n = 0; n < this.nn; n++) this.present[h * this.nn + n] = ctx.isValidOrLoading(h, n) ? 1 : 0;
    }
    this.workerNode = Int32Array.from(ctx.platform.workers, (w) => w.node);
    let most = 0;
    for (let t = 0; t < g.taskCount; t++) {
      let reads = 0;
      for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
        if (g.accessMode.data[a]! & AccessMode.R) reads++;
      }
      if (reads > most) most = reads;
    }
    this.levels = most + 1;
    this.index = this.byPriority
      ? new PriorityBucketIndex(nw, nt, most + 1, this.nonReady, () => g.taskPriority.data)
      : new BucketIndex(nw, nt, most + 1, this.nonReady);
  }

  grow(tasks: number, handles: number): void {
    this.taskWorker = growI32(this.taskWorker, tasks, -1);
    this.nonReady = growI32(this.nonReady, tasks);
    this.present = growU8(this.present, handles * this.nn);
    this.index.grow(tasks, this.nonReady);
  }

  add(task: number, worker: number): void {
    const g = this.ctx.graph;
    const node = this.workerNode[worker]!;
    let count = 0;
    let reads = 0;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      if (!(g.accessMode.data[a]! & AccessMode.R)) continue;
      reads++;
      const h = g.accessHandle.data[a]!;
      this.sync(h, node);
      if (this.present[h * this.nn + node] === 0) count++;
    }
    // Every input may be evicted while the task waits: room for all of them, not just `count`.
    if (reads >= this.levels) {
      this.levels = reads + 1;
      this.index.ensureLevels(reads);
    }
    this.nonReady[task] = count;
    this.taskWorker[task] = worker;
    this.index.add(task, worker);
  }

  pop(worker: number): number {
    const t = this.index.pop(worker);
    if (t >= 0) this.taskWorker[t] = -1;
    return t;
  }

  size(worker: number): number {
    return this.index.size(worker);
  }

  planned(worker: number): Iterable<number> {
    return this.index.planned(worker);
  }

  /** The engine recycled tasks [0, k): per-task tables shift down, the index is rebuilt. */
  rebase(k: number): void {
    this.taskWorker.copyWithin(0, k);
    this.taskWorker.fill(-1, this.taskWorker.length - k);
    this.nonReady.copyWithin(0, k);
    this.index.rebase(k);
  }

  /** The non-ready count the ordering holds for a queued task (for tests and tools). */
  nonReadyCount(task: number): number {
    return this.nonReady[task]!;
  }

  dataChanged(handle: number): void {
    for (let n = 0; n < this.nn; n++) this.sync(handle, n);
  }

  /** Brings present[handle, node] in line with the engine, updating the queued readers. */
  private sync(handle: number, node: number): void {
    const s = handle * this.nn + node;
    const now = this.ctx.isValidOrLoading(handle, node) ? 1 : 0;
    if (this.present[s] === now) return;
    this.present[s] = now;
    const delta = now === 1 ? -1 : 1;
    const inputs = this.inputs;
    const index = this.index;
    for (let a = inputs.head[s]!; a >= 0; a = inputs.next[a]!) {
      const t = inputs.accessTask[a]!;
      this.nonReady[t]! += delta;
      index.moved(t, this.taskWorker[t]!, delta);
    }
  }
}
