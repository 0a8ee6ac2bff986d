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
 * The non-ready counts are kept incrementally instead of rescanning at each pop.
 *
 * Counting: `present[handle, node]` mirrors ctx.isValidOrLoading. On every data notification
 * about a handle (requested, loaded, removed) and for the handles a task writes when it
 * starts or finishes, each node's bit is compared with the engine's state. When one goes to
 * present, the tasks queued on that node's workers that were counted with it missing since it
 * went absent (recorded when counted) get their count lowered by one. When one goes absent, only the
 * moment is recorded (issue 25: on matmul2d every task is queued at start, and walking the
 * readers of every evicted datum made dmdar's cost per task grow with the graph): the readers'
 * counts are held below the truth until met. A held count is never above the truth, so the
 * lowest bucket's first task is the pop unless its count is stale low; pop recounts that
 * candidate and, if it moved up, takes the next one: the same task as with exact counts.
 *
 * Costs (q = tasks queued on the worker, a = accesses of the task, N = memory nodes,
 * k = tasks queued on the node that read the handle, L = distinct counts in use, <= a + 1,
 * P = distinct priorities queued on the worker):
 * - add (push):  O(a) + one insertion: O(log32 q), plus O(log P) dmdas
 * - pop:         O(L + log32 q + a) per candidate; a candidate found stale moves once per
 *   absence of one of its inputs not yet counted, so the retries are paid for by evictions
 * - notification about a handle: O(N), plus, when it becomes present, O(log32 q) per queued
 *   reader counted with it missing since it went absent (a record each, kept per handle and
 *   node while it is absent); an absence is O(1)
 * - planned(w):  O(a + log32 q) per task read (each recounted as it comes), plus
 *   O(P log P) dmdas.
 */
import { FloatList, growF64, growI32, growU8, IntList } from '../../core/growable.ts';
import type { SchedContext } from '../../core/policy.ts';
import { AccessMode } from '../../core/types.ts';
import { HierBitset } from './bitset.ts';
import type { QueuedInputs } from './inputs.ts';
import { lowestBucket, PriorityBucketIndex, queuedSlots, type ReadyIndex } from './priority-buckets.ts';
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
    const b = lowestBucket(sizes);
    const set = this.buckets[worker]![b]!;
    const slot = set.first();
    set.clear(slot);
    sizes[b]!--;
    this.queued[worker]!--;
    return this.slotTask[worker]!.data[slot]!;
  }

  peek(worker: number): number {
    if (this.queued[worker] === 0) return -1;
    const b = lowestBucket(this.bucketSize[worker]!);
    return this.slotTask[worker]!.data[this.buckets[worker]![b]!.first()]!;
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
  private index!: ReadyIndex;
  private nn = 0;
  private workerNode = new Int32Array(0);
  /** Worker each queued task waits on. */
  private taskWorker = new Int32Array(0);
  /** Inputs of each queued task neither valid nor loading on its worker's node. */
  private nonReady = new Int32Array(0);
  /** Mirrors isValidOrLoading per (handle, node); synced before every use, so 0 on growth is safe. */
  private present = new Uint8Array(0);
  /** Per queued task: the epoch at which its count was last computed from the mirror. */
  private countedAt = new Float64Array(0);
  /**
   * Per (handle, node) while it is absent: (task, epoch) pairs of the readers counted on the
   * node with it missing (a count at that epoch): the tasks a presence must lower, those whose
   * countedAt still equals the epoch. Emptied at each presence; created when first needed.
   */
  private missing: (FloatList | undefined)[] = [];
  /** Orders count computations (strictly increasing). */
  private epoch = 0;
  private levels = 1;

  /** @param byPriority order by priority first (dmdas), larger first. */
  constructor(private readonly byPriority: boolean) {}

  init(ctx: SchedContext, _inputs: QueuedInputs): void {
    this.ctx = ctx;
    const g = ctx.graph;
    const nt = ctx.taskCapacity;
    const nw = ctx.platform.workers.length;
    this.nn = ctx.platform.nodes.length;
    this.taskWorker = new Int32Array(nt).fill(-1);
    this.nonReady = new Int32Array(nt);
    this.present = new Uint8Array(ctx.handleCapacity * this.nn);
    this.countedAt = new Float64Array(nt);
    this.missing = [];
    this.epoch = 0;
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
    this.countedAt = growF64(this.countedAt, tasks);
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
    this.counted(task, node);
    this.taskWorker[task] = worker;
    this.index.add(task, worker);
  }

  pop(worker: number): number {
    // The first candidate whose count holds is the pop (see `refresh`).
    for (let c = this.index.peek(worker); c >= 0 && this.refresh(c, worker); ) c = this.index.peek(worker);
    const t = this.index.pop(worker);
    if (t >= 0) this.taskWorker[t] = -1;
    return t;
  }

  /**
   * Recounts queued `task`'s inputs missing on `worker`'s node in the mirror (changing
   * nothing else); when the count held is below it (inputs evicted since, not counted: see
   * `sync`), corrects it and moves the task to its bucket. True when it moved.
   * O(accesses + log32 q).
   */
  private refresh(task: number, worker: number): boolean {
    const g = this.ctx.graph;
    const node = this.workerNode[worker]!;
    const aEnd = g.accessStart.data[task + 1]!;
    // From the mirror as the notifications left it (as exact counts would have been).
    let count = 0;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      if (
        g.accessMode.data[a]! & AccessMode.R &&
        this.present[g.accessHandle.data[a]! * this.nn + node] === 0
      )
        count++;
    }
    const held = this.nonReady[task]!;
    if (count === held) return false;
    this.nonReady[task] = count;
    this.counted(task, node);
    this.index.moved(task, worker, count - held);
    return true;
  }

  /**
   * `task`'s count was just computed from the mirror of `node`: stamps it, and records it with
   * each input it counted missing. O(a).
   */
  private counted(task: number, node: number): void {
    const g = this.ctx.graph;
    const epoch = ++this.epoch;
    this.countedAt[task] = epoch;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      if (!(g.accessMode.data[a]! & AccessMode.R)) continue;
      const s = g.accessHandle.data[a]! * this.nn + node;
      if (this.present[s] !== 0) continue;
      let list = this.missing[s];
      if (list === undefined) {
        list = new FloatList(8);
        this.missing[s] = list;
      }
      list.push(task);
      list.push(epoch);
    }
  }

  size(worker: number): number {
    return this.index.size(worker);
  }

  /**
   * The pop order, lazily: the index is walked bucket by bucket and each task recounted as
   * it comes; one whose count was held low moves up to a later bucket, where the walk meets
   * it again in its place (counts only move up while nothing else changes, and a bucket's
   * walk reads the bitset when it starts). O(a + log32 q) per task read, so a reader that
   * stops early (Belady's horizon) pays for what it read.
   */
  *planned(worker: number): Generator<number> {
    for (const t of this.index.planned(worker)) if (!this.refresh(t, worker)) yield t;
  }

  /** The engine recycled tasks [0, k): per-task tables shift down, the index is rebuilt. */
  rebase(k: number): void {
    this.taskWorker.copyWithin(0, k);
    this.taskWorker.fill(-1, this.taskWorker.length - k);
    this.nonReady.copyWithin(0, k);
    this.countedAt.copyWithin(0, k);
    // Records of recycled tasks go (none is queued); the others follow their task's new id.
    for (const list of this.missing) {
      if (list === undefined) continue;
      let kept = 0;
      for (let i = 0; i < list.length; i += 2) {
        const t = list.data[i]!;
        if (t < k) continue;
        list.data[kept++] = t - k;
        list.data[kept++] = list.data[i + 1]!;
      }
      list.length = kept;
    }
    this.index.rebase(k);
  }

  /** A queued task's inputs missing on its worker's node (for tests and tools). */
  nonReadyCount(task: number): number {
    const w = this.taskWorker[task]!;
    if (w >= 0) this.refresh(task, w);
    return this.nonReady[task]!;
  }

  dataChanged(handle: number): void {
    for (let n = 0; n < this.nn; n++) this.sync(handle, n);
  }

  /**
   * Brings present[handle, node] in line with the engine. An absence changes no count: the
   * queued readers' counts are held below the truth until met (`refresh`), which cannot
   * change what a pop takes, since a count held low only makes a task a candidate earlier,
   * where it is recounted. A presence lowers the count of each queued reader counted with
   * the handle missing since it went absent (its `missing` records), so that no count is ever
   * held above the truth. O(1), plus O(log32 q) per reader so recorded on a presence.
   */
  private sync(handle: number, node: number): void {
    const s = handle * this.nn + node;
    const now = this.ctx.isValidOrLoading(handle, node) ? 1 : 0;
    if (this.present[s] === now) return;
    this.present[s] = now;
    const list = this.missing[s];
    if (now === 0 || list === undefined || list.length === 0) return;
    const index = this.index;
    for (let i = 0; i < list.length; i += 2) {
      const t = list.data[i]!;
      const w = this.taskWorker[t]!;
      // Still queued, and its count is the one that took the handle as missing.
      if (w < 0 || this.countedAt[t] !== list.data[i + 1]) continue;
      this.nonReady[t]!--;
      index.moved(t, w, -1);
    }
    list.length = 0;
  }
}
