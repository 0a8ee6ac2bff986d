/**
 * DARTS's bipartite view of the submitted tasks: the inputs of each task (accesses that read,
 * R or RW, in access order) and the readers of each datum (in ascending task order, a task
 * reading a datum twice listed twice). Both grow as tasks are submitted while the engine runs
 * (seed 000 section 4.3: new tasks and data join the structures DARTS chooses from).
 *
 * Tasks are appended in id order, so each datum's reader list stays sorted by task id, the
 * order a whole-graph CSR would give: a run that submits everything at once scans readers in
 * the same order as one that used a static CSR. When a reader list must grow, the tasks the
 * caller reports as gone for good (handed out) are dropped first, keeping the order: a datum
 * read by an endless stream of tasks keeps a list about as long as its live readers.
 * Cost: O(inputs) per submitted task, amortised.
 */
import type { TaskGraph } from '../../core/graph.ts';
import { growI32, IntList } from '../../core/growable.ts';
import { AccessMode } from '../../core/types.ts';

/** Inputs per task and readers per datum, for tasks [0, tasks) and data [0, handles). */
export class TaskData {
  /** Inputs of task t: inHandle.data[inStart[t] .. inStart[t + 1]). */
  inStart: Int32Array<ArrayBuffer>;
  /** Input handles of all tasks, concatenated. */
  readonly inHandle = new IntList();
  /** Tasks indexed so far. */
  tasks = 0;
  /** Data indexed so far. */
  handles = 0;
  /** Readers of datum h: lists[h][0 .. readerCount[h]). */
  private lists: Int32Array[] = [];
  /** Live length of each reader list. */
  readerCount: Int32Array<ArrayBuffer>;
  private added: Int32Array<ArrayBuffer>;
  private static readonly EMPTY = new Int32Array(0);

  /** Room for `tasks` tasks and `handles` data (more as they are added). */
  constructor(tasks: number, handles: number) {
    this.inStart = new Int32Array(tasks + 1);
    this.readerCount = new Int32Array(handles);
    this.added = new Int32Array(handles);
  }

  /** Per-task tables hold `tasks` tasks, per-datum ones `handles` data. */
  grow(tasks: number, handles: number): void {
    this.inStart = growI32(this.inStart, tasks + 1);
    this.readerCount = growI32(this.readerCount, handles);
    this.added = growI32(this.added, handles);
  }

  /**
   * The engine recycled tasks [0, k): their inputs and reader entries go, every other task id
   * shifts down by k (reader lists keep their order). O(indexed inputs + reader entries).
   */
  rebase(k: number): void {
    if (k <= 0) return;
    const base = this.inStart[k]!;
    const n = this.tasks - k;
    for (let t = 0; t <= n; t++) this.inStart[t] = this.inStart[t + k]! - base;
    this.inHandle.data.copyWithin(0, base, this.inHandle.length);
    this.inHandle.length -= base;
    this.tasks = n;
    for (let h = 0; h < this.handles; h++) {
      const list = this.lists[h]!;
      let kept = 0;
      for (let i = 0; i < this.readerCount[h]!; i++) if (list[i]! >= k) list[kept++] = list[i]! - k;
      this.readerCount[h] = kept;
    }
  }

  /** The readers of datum h (valid up to readerCount[h], until the next add). */
  readersOf(h: number): Int32Array {
    return this.lists[h]!;
  }

  /**
   * Indexes data up to `handles` and tasks [this.tasks, to) of `graph`, those below `from`
   * with no input (tasks an earlier engine ran). `gone(t)` says a task will never matter
   * again (its entries may be dropped from reader lists that have to grow).
   */
  add(graph: TaskGraph, from: number, to: number, handles: number, gone: (t: number) => boolean): void {
    this.grow(to, handles);
    for (let h = this.handles; h < handles; h++) this.lists.push(TaskData.EMPTY);
    this.handles = Math.max(this.handles, handles);
    if (to <= this.tasks) return;
    const first = this.tasks;
    const start = graph.accessStart.data;
    const mode = graph.accessMode.data;
    const handle = graph.accessHandle.data;
    const touched: number[] = [];
    for (let t = first; t < to; t++) {
      this.inStart[t] = this.inHandle.length;
      if (t < from) continue;
      for (let a = start[t]!; a < start[t + 1]!; a++) {
        if ((mode[a]! & AccessMode.R) === 0) continue;
        const h = handle[a]!;
        this.inHandle.push(h);
        if (this.added[h]!++ === 0) touched.push(h);
      }
    }
    this.inStart[to] = this.inHandle.length;
    this.tasks = to;
    for (const h of touched) this.reserve(h, this.added[h]!, gone);
    const ins = this.inHandle.data;
    for (let t = first; t < to; t++) {
      for (let i = this.inStart[t]!; i < this.inStart[t + 1]!; i++) {
        const h = ins[i]!;
        this.lists[h]![this.readerCount[h]!++] = t;
      }
    }
    for (const h of touched) this.added[h] = 0;
  }

  /**
   * Makes room for `more` readers of h: drops gone tasks, then keeps the list if it is
   * between a quarter and three quarters full, else reallocates it at twice what it needs
   * (a list is scanned only after a quarter of its room has been filled: amortised O(1)).
   */
  private reserve(h: number, more: number, gone: (t: number) => boolean): void {
    const list = this.lists[h]!;
    let n = this.readerCount[h]!;
    if (n + more <= list.length) return;
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const t = list[i]!;
      if (!gone(t)) list[kept++] = t;
    }
    n = kept;
    this.readerCount[h] = n;
    const need = n + more;
    if (need * 4 <= list.length * 3 && need * 4 >= list.length) return;
    const next = new Int32Array(list.length === 0 ? need : 2 * need);
    next.set(list.subarray(0, n));
    this.lists[h] = next;
  }
}
