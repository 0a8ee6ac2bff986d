/**
 * The task graph: data handles, codelets and tasks, with dependencies inferred from
 * submission order (sequential consistency, as StarPU's implicit dependencies, seed 001
 * section IV): a task depends on the last writer of every handle it accesses (read after
 * write, write after write) and, when it writes, on every reader since that writer (write
 * after read). Explicit dependencies may be added on top. All tables are flat typed arrays
 * indexed by integer ids, so a graph of a million tasks costs a few tens of megabytes.
 *
 * Over 500 lines: the flat tables, dependency inference, the topological checks and the
 * prefix compaction all read and write the same lists; splitting them would expose those.
 */
import { FloatList, IntList } from './growable.ts';
import { AccessMode, LocusError, type WorkerKind } from './types.ts';

/** A named kernel with implementations for some worker kinds (StarPU's codelet). */
export interface Codelet {
  /** Name, also the key of per-codelet rates in platform files ("gemm", "potrf"). */
  readonly name: string;
  /** Worker kinds that have an implementation. */
  readonly kinds: readonly WorkerKind[];
  /**
   * Flop count as a function of the tile dimensions (e.g. n => n ** 3 / 3 for POTRF on an
   * n x n tile); a task submitted without `flops` and with `dims` gets flops(...dims).
   */
  readonly flops?: (...dims: number[]) => number;
}

/** Options of a registered handle. */
export interface HandleOptions {
  /** Name for reports and traces ("A[2,3]"). */
  name?: string;
  /**
   * A scratch output (seed 000 section 2: "we do not consider the data output of tasks"):
   * its content is discarded after each writing task instead of being written back home.
   */
  discard?: boolean;
  /**
   * The handle's block coordinates (tile row and column) in a blocked matrix, for
   * owner-computes mappings of blocks to GPUs (seed 004).
   */
  block?: readonly [row: number, col: number];
  /**
   * The memory node holding the handle's permanent copy, where its write-backs go (its home;
   * default: the platform's host memory). The cluster layer puts a handle's home on its
   * owner process; out-of-core data would live on a disk node.
   */
  home?: number;
}

/** Options of a submitted task. */
export interface TaskOptions {
  /** Scheduling priority; larger runs earlier under priority-aware policies. */
  priority?: number;
  /** Work in floating-point operations, used to derive durations from flop rates. */
  flops?: number;
  /** Name for traces ("POTRF(0,0)"). */
  name?: string;
  /** Tile dimensions passed to the codelet's flop function when `flops` is not given. */
  dims?: readonly number[];
  /**
   * Which part of the data the task belongs to (a stencil block, a row of tiles), for
   * owner-computes mappings ("static" placement); -1 or absent when it has none.
   */
  affinity?: number;
  /** Iteration or step the task belongs to (stencil iteration), -1 or absent when none. */
  phase?: number;
  /**
   * An application task: the application itself accesses the data on their home node
   * (acquire/release); the engine brings the data home, reports it acquired, and the task
   * ends when the application releases it. No worker runs it.
   */
  app?: boolean;
}

/** One access of a task: a handle and a mode. */
export type Access = readonly [handle: number, mode: AccessMode];

/** The task graph under construction and, later, under execution. */
export class TaskGraph {
  /** Registered codelets, indexed by codelet id. */
  readonly codelets: Codelet[] = [];
  /** Size in bytes of each handle. */
  readonly handleSize = new FloatList();
  /** 1 for scratch outputs discarded after each write (see HandleOptions.discard). */
  readonly handleDiscard = new IntList();
  /** Optional handle names (sparse). */
  readonly handleNames: (string | undefined)[] = [];
  /** Home node of each handle (HandleOptions.home), -1 for the platform's host memory. */
  readonly handleHome = new IntList();
  /** Block row of each handle (HandleOptions.block), -1 for none. */
  readonly handleBlockRow = new IntList();
  /** Block column of each handle, -1 for none. */
  readonly handleBlockCol = new IntList();

  /** Codelet id of each task. */
  readonly taskCodelet = new IntList();
  /** Priority of each task. */
  readonly taskPriority = new FloatList();
  /** Flop count of each task. */
  readonly taskFlops = new FloatList();
  /** Optional task names (sparse). */
  readonly taskNames: (string | undefined)[] = [];
  /** Data-partition hint of each task (TaskOptions.affinity), -1 for none. */
  readonly taskAffinity = new IntList();
  /** Iteration of each task (TaskOptions.phase), -1 for none. */
  readonly taskPhase = new IntList();
  /**
   * 1 for an application task (TaskOptions.app): an acquire of data by the application
   * itself, which no worker runs (seed 001's acquire/release, as StarPU implements it).
   */
  readonly taskApp = new IntList();
  /** First access index of each task; its accesses are accessStart[t] .. accessStart[t+1]-1. */
  readonly accessStart = new IntList();
  /** Handle of each access. */
  readonly accessHandle = new IntList();
  /** Mode of each access. */
  readonly accessMode = new IntList();

  /** Number of predecessors of each task. */
  readonly predCount = new IntList();
  /**
   * Head of each task's successor list (edge index, -1 for none). Edges are appended at the
   * tail, so successors come in the order they were linked: submission order for inferred
   * dependencies, and a task released by a completion is pushed in submission order.
   */
  readonly succHead = new IntList();
  /** Tail of each task's successor list (edge index, -1 for none). */
  private readonly succTail = new IntList();
  /** Target task of each edge. */
  readonly edgeTarget = new IntList();
  /**
   * Source task of each edge. Edges are appended in creation order, so an engine that takes
   * tasks while they are submitted reads the edges created since its last look.
   */
  readonly edgeSource = new IntList();
  /** Next edge in the same successor list (-1 ends it). */
  readonly edgeNext = new IntList();

  // Dependency inference state, per handle.
  private readonly lastWriter = new IntList();
  private readonly readersHead = new IntList();
  private readonly readerTask = new IntList();
  private readonly readerNext = new IntList();
  // Per task: the last task that added an edge to it, to skip duplicate edges.
  private readonly lastLinker = new IntList();
  private hasExplicitEdges = false;
  /** The handle of each `wontUse` hint, in the order they were given. */
  readonly hintHandle = new IntList();
  /**
   * The tasks each hint waits for: hint i waits for hintWaitTask[hintWaitStart[i] ..
   * hintWaitStart[i + 1]), the tasks submitted before it that access the current version of its
   * handle (its last writer and every reader since; earlier accessors all precede that writer).
   * A task id of -1 was retired (it had ended). None: the hint applies at once.
   */
  readonly hintWaitStart = new IntList();
  /** See hintWaitStart. */
  readonly hintWaitTask = new IntList();
  /** Tasks submitted before each hint: the engine takes it once it has taken those tasks. */
  readonly hintAt = new IntList();
  /** Tasks dropped from the front by dropPrefix (task t here was submitted as t + retired). */
  retired = 0;

  constructor() {
    this.accessStart.push(0);
    this.hintWaitStart.push(0);
  }

  /** Number of handles. */
  get handleCount(): number {
    return this.handleSize.length;
  }

  /** Number of tasks. */
  get taskCount(): number {
    return this.taskCodelet.length;
  }

  /** Number of dependency edges. */
  get edgeCount(): number {
    return this.edgeTarget.length;
  }

  /** True when explicit dependencies may point backwards in submission order. */
  get mayHaveCycles(): boolean {
    return this.hasExplicitEdges;
  }

  /** Registers a codelet and returns its id. */
  addCodelet(codelet: Codelet): number {
    if (codelet.kinds.length === 0)
      throw new LocusError('LOCUS_GRAPH_INVALID', `codelet '${codelet.name}' has no implementation`);
    this.codelets.push(codelet);
    return this.codelets.length - 1;
  }

  /** Registers a data handle of `bytes` bytes and returns its id. */
  addHandle(bytes: number, options: HandleOptions = {}): number {
    if (!(bytes > 0) || !Number.isFinite(bytes)) {
      throw new LocusError(
        'LOCUS_GRAPH_INVALID',
        `handle ${options.name ?? this.handleCount} has size ${bytes}: sizes must be positive`,
      );
    }
    const id = this.handleSize.push(bytes);
    this.handleDiscard.push(options.discard ? 1 : 0);
    this.handleHome.push(options.home ?? -1);
    this.handleBlockRow.push(options.block?.[0] ?? -1);
    this.handleBlockCol.push(options.block?.[1] ?? -1);
    if (options.name !== undefined) this.handleNames[id] = options.name;
    this.lastWriter.push(-1);
    this.readersHead.push(-1);
    return id;
  }

  /**
   * Submits a task and infers its dependencies from the accesses of earlier tasks.
   * Returns the task id (tasks are numbered in submission order).
   */
  submit(codelet: number, accesses: readonly Access[], options: TaskOptions = {}): number {
    if (codelet < 0 || codelet >= this.codelets.length)
      throw new LocusError('LOCUS_GRAPH_INVALID', `unknown codelet id ${codelet}`);
    this.checkAccesses(accesses, options.name ?? `#${this.taskCount}`);
    const cost = this.codelets[codelet]!.flops;
    const flops = options.flops ?? (cost && options.dims ? cost(...options.dims) : 0);
    if (!(flops >= 0 && flops < Number.POSITIVE_INFINITY)) {
      throw new LocusError(
        'LOCUS_GRAPH_INVALID',
        `task ${options.name ?? `#${this.taskCount}`} (codelet '${this.codelets[codelet]!.name}') has ${String(flops)} flops: use a finite number >= 0`,
      );
    }
    const task = this.taskCodelet.push(codelet);
    this.taskPriority.push(options.priority ?? 0);
    this.taskFlops.push(flops);
    if (options.name !== undefined) this.taskNames[task] = options.name;
    this.taskAffinity.push(options.affinity ?? -1);
    this.taskPhase.push(options.phase ?? -1);
    this.taskApp.push(options.app ? 1 : 0);
    this.predCount.push(0);
    this.succHead.push(-1);
    this.succTail.push(-1);
    this.lastLinker.push(-1);
    for (const [handle, mode] of accesses) this.addAccess(task, handle, mode);
    this.accessStart.push(this.accessHandle.length);
    return task;
  }

  /**
   * The application will not use `handle` for a while (StarPU's starpu_data_wont_use, which
   * acquires the data asynchronously): once every task submitted so far that accesses it has
   * ended, the engine writes its modified replicas back home and evicts its replicas before any
   * other data. Readers run in any order, so the hint waits for each reader of the current
   * version, not only the last one submitted.
   */
  wontUse(handle: number): void {
    if (!Number.isInteger(handle) || handle < 0 || handle >= this.handleCount) {
      throw new LocusError('LOCUS_GRAPH_INVALID', `wontUse: unknown handle ${handle}`);
    }
    this.hintHandle.push(handle);
    const writer = this.lastWriter.data[handle]!;
    if (writer >= 0) this.hintWaitTask.push(writer);
    for (let r = this.readersHead.data[handle]!; r >= 0; r = this.readerNext.data[r]!) {
      this.hintWaitTask.push(this.readerTask.data[r]!);
    }
    this.hintWaitStart.push(this.hintWaitTask.length);
    this.hintAt.push(this.taskCount);
  }

  /** Number of wontUse hints given. */
  get hintCount(): number {
    return this.hintHandle.length;
  }

  /** Validates a task's accesses before anything is recorded, so a rejected submit leaves no trace. */
  private checkAccesses(accesses: readonly Access[], label: string): void {
    for (let i = 0; i < accesses.length; i++) {
      const [handle, mode] = accesses[i]!;
      if (!Number.isInteger(handle) || handle < 0 || handle >= this.handleCount) {
        throw new LocusError('LOCUS_GRAPH_INVALID', `task ${label} accesses unknown handle ${handle}`);
      }
      if (mode !== AccessMode.R && mode !== AccessMode.W && mode !== AccessMode.RW) {
        throw new LocusError('LOCUS_GRAPH_INVALID', `task ${label} has access mode ${mode}: use R, W or RW`);
      }
      for (let j = 0; j < i; j++) {
        if (accesses[j]![0] === handle) {
          throw new LocusError(
            'LOCUS_GRAPH_INVALID',
            `task ${label} accesses handle ${this.handleLabel(handle)} twice: merge the accesses into one mode`,
          );
        }
      }
    }
  }

  private addAccess(task: number, handle: number, mode: number): void {
    this.accessHandle.push(handle);
    this.accessMode.push(mode);
    const writer = this.lastWriter.data[handle]!;
    if (writer >= 0) this.link(writer, task);
    if (mode & AccessMode.W) {
      for (let r = this.readersHead.data[handle]!; r >= 0; r = this.readerNext.data[r]!) {
        this.link(this.readerTask.data[r]!, task);
      }
      this.readersHead.data[handle] = -1;
      this.lastWriter.data[handle] = task;
    } else {
      const r = this.readerTask.push(task);
      this.readerNext.push(this.readersHead.data[handle]!);
      this.readersHead.data[handle] = r;
    }
  }

  private link(from: number, to: number): void {
    if (from === to || this.lastLinker.data[to] === from) return;
    // lastLinker catches consecutive duplicates; an earlier edge from `from` to the task
    // being submitted is always the tail of from's list, so checking the tail is enough.
    const tail = this.succTail.data[from]!;
    if (tail >= 0 && this.edgeTarget.data[tail] === to) return;
    this.lastLinker.data[to] = from;
    this.appendEdge(from, to);
  }

  private appendEdge(from: number, to: number): void {
    const e = this.edgeTarget.push(to);
    this.edgeSource.push(from);
    this.edgeNext.push(-1);
    const tail = this.succTail.data[from]!;
    if (tail >= 0) this.edgeNext.data[tail] = e;
    else this.succHead.data[from] = e;
    this.succTail.data[from] = e;
    this.predCount.data[to]!++;
  }

  /**
   * Adds an explicit dependency: `after` starts only once `before` has finished. May point
   * forward in submission order; cycles are reported by checkAcyclic().
   */
  addDependency(before: number, after: number): void {
    if (before < 0 || before >= this.taskCount || after < 0 || after >= this.taskCount) {
      throw new LocusError(
        'LOCUS_GRAPH_INVALID',
        `dependency ${before} -> ${after} names a task that does not exist`,
      );
    }
    if (before === after)
      throw new LocusError('LOCUS_GRAPH_INVALID', `task ${this.taskLabel(before)} cannot depend on itself`);
    for (let e = this.succHead.data[before]!; e >= 0; e = this.edgeNext.data[e]!) {
      if (this.edgeTarget.data[e] === after) return;
    }
    this.appendEdge(before, after);
    if (after < before) this.hasExplicitEdges = true; // a backward edge may close a cycle
  }

  /** Successors of a task (allocates; for tests and tools, not the hot path). */
  successors(task: number): number[] {
    const out: number[] = [];
    for (let e = this.succHead.data[task]!; e >= 0; e = this.edgeNext.data[e]!)
      out.push(this.edgeTarget.data[e]!);
    return out.sort((a, b) => a - b);
  }

  /** Predecessors of every task (allocates; for tests and tools). */
  predecessors(task: number): number[] {
    const out: number[] = [];
    for (let t = 0; t < this.taskCount; t++) {
      for (let e = this.succHead.data[t]!; e >= 0; e = this.edgeNext.data[e]!) {
        if (this.edgeTarget.data[e] === task) out.push(t);
      }
    }
    return out.sort((a, b) => a - b);
  }

  /** The accesses of a task as [handle, mode] pairs (allocates). */
  accesses(task: number): Access[] {
    const out: Access[] = [];
    for (let a = this.accessStart.data[task]!; a < this.accessStart.data[task + 1]!; a++) {
      out.push([this.accessHandle.data[a]!, this.accessMode.data[a] as AccessMode]);
    }
    return out;
  }

  /**
   * A topological order of all tasks (Kahn's algorithm). Throws a LocusError naming a cycle
   * when explicit dependencies made one.
   */
  topologicalOrder(): Int32Array {
    const n = this.taskCount;
    const order = new Int32Array(n);
    if (!this.hasExplicitEdges) {
      for (let t = 0; t < n; t++) order[t] = t; // every edge points forward in submission order
      return order;
    }
    const left = this.predCount.data.slice(0, n);
    let head = 0;
    let tail = 0;
    for (let t = 0; t < n; t++) if (left[t] === 0) order[tail++] = t;
    while (head < tail) {
      const t = order[head++]!;
      for (let e = this.succHead.data[t]!; e >= 0; e = this.edgeNext.data[e]!) {
        const s = this.edgeTarget.data[e]!;
        if (--left[s]! === 0) order[tail++] = s;
      }
    }
    if (tail < n)
      throw new LocusError(
        'LOCUS_GRAPH_INVALID',
        `cycle in explicit dependencies: ${this.describeCycle(left)}`,
      );
    return order;
  }

  /** Throws a LocusError if the dependencies contain a cycle. */
  checkAcyclic(): void {
    this.topologicalOrder();
  }

  private describeCycle(left: Int32Array): string {
    // Every task left with unmet predecessors has one among the blocked tasks; walking
    // predecessors backwards inside that set must close a cycle.
    const n = this.taskCount;
    const blockedPred = new Int32Array(n).fill(-1);
    for (let t = 0; t < n; t++) {
      if (left[t] === 0) continue;
      for (let e = this.succHead.data[t]!; e >= 0; e = this.edgeNext.data[e]!) {
        const s = this.edgeTarget.data[e]!;
        if (left[s]! > 0 && blockedPred[s] === -1) blockedPred[s] = t;
      }
    }
    let start = 0;
    while (left[start] === 0) start++;
    const seen = new Map<number, number>();
    const path: number[] = [];
    let t = start;
    while (!seen.has(t)) {
      seen.set(t, path.length);
      path.push(t);
      t = blockedPred[t]!;
    }
    const cycle = path.slice(seen.get(t)!).reverse();
    cycle.push(cycle[0]!);
    return `${cycle.map((x) => this.taskLabel(x)).join(' -> ')}; remove one of these dependencies`;
  }

  /**
   * Bottom levels: for each task, the longest path (sum of `cost(task)`) from it to an exit
   * task, itself included. With cost = duration this is the classic bottom-level priority
   * (Casanova, Legrand, Robert, cited by seed 000 section 4.3).
   */
  bottomLevels(cost: (task: number) => number): Float64Array {
    const order = this.topologicalOrder();
    const bl = new Float64Array(this.taskCount);
    for (let i = order.length - 1; i >= 0; i--) {
      const t = order[i]!;
      let best = 0;
      for (let e = this.succHead.data[t]!; e >= 0; e = this.edgeNext.data[e]!) {
        const v = bl[this.edgeTarget.data[e]!]!;
        if (v > best) best = v;
      }
      bl[t] = best + cost(t);
    }
    return bl;
  }

  /** Sets every task's priority to its bottom level in flops (priorities on demand). */
  setBottomLevelPriorities(cost: (task: number) => number = (t) => this.taskFlops.data[t]!): void {
    const bl = this.bottomLevels(cost);
    this.taskPriority.data.set(bl.subarray(0, this.taskCount));
  }

  /** A readable label for a task: its name or "#n", n its submission number. */
  taskLabel(task: number): string {
    const name = this.taskNames[task];
    const n = task + this.retired;
    return name === undefined ? `#${n}` : `${name} (#${n})`;
  }

  /**
   * Forgets tasks [0, k), which have all ended (the open engine recycles finished tasks'
   * records so an endless stream runs in bounded memory): task t becomes t - k, their
   * accesses and the edges from them go, and dependency inference forgets them (a later
   * access no longer links to an ended task, which would count nothing). `edgeMark` is an
   * edge index (the engine's count of edges read); returns its index after the drop. Costs
   * O(tasks left + edges left + handles). Refused when explicit dependencies may point
   * backwards (they could link to a dropped task).
   */
  dropPrefix(k: number, edgeMark: number): number {
    if (this.hasExplicitEdges) throw new Error('dropPrefix: explicit backward dependencies');
    if (k <= 0) return edgeMark;
    const n = this.taskCount;
    if (k > n) throw new Error(`dropPrefix: ${k} > ${n} tasks`);
    for (const list of [
      this.taskCodelet,
      this.taskAffinity,
      this.taskPhase,
      this.taskApp,
      this.predCount,
      this.lastLinker,
    ]) {
      list.data.copyWithin(0, k, n);
      list.length = n - k;
    }
    for (const list of [this.taskPriority, this.taskFlops]) {
      list.data.copyWithin(0, k, n);
      list.length = n - k;
    }
    if (this.taskNames.length > 0) this.taskNames.splice(0, k);
    const ll = this.lastLinker.data;
    for (let t = 0; t < n - k; t++) if (ll[t]! >= 0) ll[t] = ll[t]! < k ? -1 : ll[t]! - k;
    // Accesses: shift the CSR window.
    const as = this.accessStart.data;
    const base = as[k]!;
    const na = this.accessHandle.length;
    for (let t = 0; t <= n - k; t++) as[t] = as[t + k]! - base;
    this.accessStart.length = n - k + 1;
    this.accessHandle.data.copyWithin(0, base, na);
    this.accessMode.data.copyWithin(0, base, na);
    this.accessHandle.length = na - base;
    this.accessMode.length = na - base;
    // Edges: keep those from live tasks (in order), renumbered; rebuild the successor lists.
    const ne = this.edgeTarget.length;
    const src = this.edgeSource.data;
    const dst = this.edgeTarget.data;
    let kept = 0;
    let mark = 0;
    for (let e = 0; e < ne; e++) {
      if (e === edgeMark) mark = kept;
      if (src[e]! < k) continue;
      src[kept] = src[e]! - k;
      dst[kept] = dst[e]! - k;
      kept++;
    }
    if (edgeMark >= ne) mark = kept;
    this.edgeSource.length = kept;
    this.edgeTarget.length = kept;
    this.edgeNext.length = kept;
    this.succHead.data.fill(-1, 0, n - k);
    this.succTail.data.fill(-1, 0, n - k);
    this.succHead.length = n - k;
    this.succTail.length = n - k;
    const next = this.edgeNext.data;
    for (let e = 0; e < kept; e++) {
      next[e] = -1;
      const from = src[e]!;
      const tail = this.succTail.data[from]!;
      if (tail >= 0) next[tail] = e;
      else this.succHead.data[from] = e;
      this.succTail.data[from] = e;
    }
    // Inference state: writers and readers among the dropped tasks are forgotten.
    const nh = this.handleCount;
    const lw = this.lastWriter.data;
    const oldTask = this.readerTask.data.slice(0, this.readerTask.length);
    const oldNext = this.readerNext.data.slice(0, this.readerNext.length);
    this.readerTask.length = 0;
    this.readerNext.length = 0;
    const readers: number[] = [];
    for (let h = 0; h < nh; h++) {
      if (lw[h]! >= 0) lw[h] = lw[h]! < k ? -1 : lw[h]! - k;
      readers.length = 0;
      for (let r = this.readersHead.data[h]!; r >= 0; r = oldNext[r]!)
        if (oldTask[r]! >= k) readers.push(oldTask[r]! - k);
      // The list runs newest first: push the oldest first to keep that order.
      let head = -1;
      for (let i = readers.length - 1; i >= 0; i--) {
        const r = this.readerTask.push(readers[i]!);
        this.readerNext.push(head);
        head = r;
      }
      this.readersHead.data[h] = head;
    }
    const hw = this.hintWaitTask.data;
    for (let i = 0; i < this.hintWaitTask.length; i++) {
      if (hw[i]! >= 0) hw[i] = hw[i]! < k ? -1 : hw[i]! - k;
    }
    const hp = this.hintAt.data;
    for (let i = 0; i < this.hintAt.length; i++) hp[i] = Math.max(0, hp[i]! - k);
    this.retired += k;
    return mark;
  }

  /** A readable label for a handle: its name or "#id". */
  handleLabel(handle: number): string {
    return this.handleNames[handle] ?? `#${handle}`;
  }
}
