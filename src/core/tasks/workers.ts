/**
 * Worker pipelines and lookahead. Each worker holds up to `depth` popped tasks (StarPU's
 * CUDA pipeline): their accesses are queued on the worker's node and the head starts when
 * its inputs are in place (with `issueAhead`, every task at the front whose inputs are, for
 * drivers whose workers run what they are given in order). A GPU worker also pops up to
 * `lookahead` tasks ahead of its pipeline and prefetches their inputs without pinning them
 * (seed 000's taskBuffer_k is this buffer plus the pipeline); a prefetch for the buffer
 * never evicts data another buffered task of the node reads.
 */

import { EVICT_BUFFERED } from '../data/eviction-index.ts';
import { applyWrites } from '../data/msi.ts';
import type { Engine } from '../engine.ts';
import { fmtBytes } from '../format-bytes.ts';
import { growI32, growU8, IntQueue } from '../growable.ts';
import { Cmd } from '../protocol.ts';
import { AccessMode, LocusError } from '../types.ts';
import { TaskState } from './task-table.ts';

/** Pipeline and lookahead sizes (EngineOptions). */
export interface PipelineOptions {
  gpuPipeline?: number;
  cpuPipeline?: number;
  gpuLookahead?: number;
  issueAhead?: boolean;
  readyFirst?: boolean;
  prefetchWindow?: number;
  parallelEvictions?: boolean;
}

/** Every worker's pipeline and lookahead buffer. */
export class WorkerPipelines {
  /** Memory node of each worker. */
  readonly node: Int32Array;
  /** Some lookahead buffer should be topped up (set by settle). */
  bufferNeeded = false;
  /** Some worker has a lookahead buffer. */
  readonly anyLookahead: boolean;
  private readonly e: Engine;
  private readonly nw: number;
  private readonly nNodes: number;
  private readonly depth: Int32Array;
  private readonly maxDepth: number;
  private readonly pipe: Int32Array;
  private readonly pipeHead: Int32Array;
  private readonly pipeLen: Int32Array;
  /** Tasks of each worker's pipeline already handed to the driver (RUN emitted). */
  private readonly issued: Int32Array;
  private readonly issueAhead: boolean;
  /** Take the first buffered task whose inputs are in place (EngineOptions.readyFirst). */
  private readonly readyFirst: boolean;
  /**
   * Per node: bytes of this fillBuffers pass's prefetches that wait for memory being freed
   * (EngineOptions.parallelEvictions).
   */
  private readonly waiting: Float64Array;
  /** Each waiting prefetch evicts for itself (EngineOptions.parallelEvictions). */
  private readonly parallelEvictions: boolean;
  /** Copies in flight into a node beyond which its buffers issue no prefetch (0: no limit). */
  private readonly prefetchWindow: number;
  private readonly lookahead: Int32Array;
  private readonly buffer: IntQueue[];
  /** Per replica slot: buffered tasks of that node that read the handle. */
  private bufNeed = new Int32Array(0);
  /**
   * Per node: 1 while some input of a buffered task there may be neither valid nor in flight
   * (a prefetch failed or was not tried, or a replica one reads was freed), so fillBuffers
   * must retry that node's buffers.
   */
  private readonly bufferStale: Uint8Array;
  /** bufferStale as it stood when the current fillBuffers began (what is found stale during it counts next time). */
  private readonly staleBefore: Uint8Array;
  /** Per node: the eviction filter of lookahead prefetches (bufferFilter). */
  private readonly bufferFilters: (((handle: number) => boolean) | undefined)[] = [];
  private readonly kindMask: Uint8Array;
  private codeletKinds = new Uint8Array(0);
  private knownCodelets = 0;

  constructor(engine: Engine, options: PipelineOptions) {
    this.e = engine;
    const p = engine.platform;
    const nw = p.workers.length;
    this.nw = nw;
    this.nNodes = p.nodes.length;
    this.depth = new Int32Array(nw);
    this.node = new Int32Array(nw);
    this.kindMask = new Uint8Array(nw);
    for (let w = 0; w < nw; w++) {
      const worker = p.workers[w]!;
      const d = worker.kind === 'gpu' ? (options.gpuPipeline ?? 2) : (options.cpuPipeline ?? 1);
      if (!Number.isInteger(d) || d < 1)
        throw new LocusError('LOCUS_OPTION_INVALID', `pipeline depth must be a positive integer (got ${d})`);
      this.depth[w] = d;
      this.node[w] = worker.node;
      this.kindMask[w] = worker.kind === 'cpu' ? 1 : 2;
    }
    this.maxDepth = Math.max(1, ...this.depth);
    const ahead = options.gpuLookahead ?? engine.scheduler.lookahead ?? 4;
    if (!Number.isInteger(ahead) || ahead < 0)
      throw new LocusError('LOCUS_OPTION_INVALID', `lookahead must be a non-negative integer (got ${ahead})`);
    this.lookahead = new Int32Array(p.workers.map((w) => (w.kind === 'gpu' ? ahead : 0)));
    this.buffer = p.workers.map(() => new IntQueue());
    this.anyLookahead = this.lookahead.some((x) => x > 0);
    this.pipe = new Int32Array(nw * this.maxDepth);
    this.pipeHead = new Int32Array(nw);
    this.pipeLen = new Int32Array(nw);
    this.issued = new Int32Array(nw);
    this.issueAhead = options.issueAhead ?? false;
    this.readyFirst = options.readyFirst ?? false;
    this.prefetchWindow = options.prefetchWindow ?? 0;
    if (!Number.isInteger(this.prefetchWindow) || this.prefetchWindow < 0)
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `prefetch window must be a non-negative integer (got ${this.prefetchWindow})`,
      );
    this.bufferStale = new Uint8Array(p.nodes.length);
    this.waiting = new Float64Array(p.nodes.length);
    this.parallelEvictions = options.parallelEvictions ?? false;
    this.staleBefore = new Uint8Array(p.nodes.length);
  }

  /** The replica of `h` on node `n` was freed: a buffered task there may have lost a prefetched input. */
  replicaFreed(h: number, n: number): void {
    if (this.bufNeed[h * this.nNodes + n]! > 0) this.bufferStale[n] = 1;
  }

  /** Sizes the per-slot table for `handleCap` handles. */
  grow(handleCap: number): void {
    this.bufNeed = growI32(this.bufNeed, handleCap * this.e.replicas.nNodes);
  }

  /** Reads the codelets registered since the last submission (which worker kinds run them). */
  syncCodelets(): void {
    const g = this.e.graph;
    if (g.codelets.length === this.knownCodelets) return;
    this.codeletKinds = growU8(this.codeletKinds, g.codelets.length);
    for (let c = this.knownCodelets; c < g.codelets.length; c++) {
      const k = g.codelets[c]!.kinds;
      this.codeletKinds[c] = (k.includes('cpu') ? 1 : 0) | (k.includes('gpu') ? 2 : 0);
    }
    this.knownCodelets = g.codelets.length;
  }

  /** True when `task` has an implementation for `worker`'s kind and fits in its node. */
  canRun(task: number, worker: number): boolean {
    const e = this.e;
    const c = e.graph.taskCodelet.data[task]!;
    return (
      (this.codeletKinds[c]! & this.kindMask[worker]!) !== 0 &&
      e.tasks.footprint[task]! <= e.memory.capacity[this.node[worker]!]!
    );
  }

  /**
   * Checks that each task of [from, to) fits in the memory of some worker able to run it
   * (application tasks run at home and are not checked); reads the computed footprints.
   */
  validate(from: number, to: number): void {
    const e = this.e;
    const g = e.graph;
    const p = e.platform;
    const cap = e.memory.capacity;
    // Per codelet, the largest memory of a worker able to run it: each task checks in O(1).
    const largest = new Float64Array(g.codelets.length).fill(-1);
    for (let c = 0; c < g.codelets.length; c++) {
      for (let i = 0; i < this.nw; i++) {
        if (this.codeletKinds[c]! & this.kindMask[i]!)
          largest[c] = Math.max(largest[c]!, cap[this.node[i]!]!);
      }
    }
    for (let t = from; t < to; t++) {
      const bytes = e.tasks.footprint[t]!;
      if (g.taskApp.data[t] === 1) continue;
      const c = g.taskCodelet.data[t]!;
      if (bytes <= largest[c]!) continue;
      const codelet = g.codelets[c]!;
      if (largest[c]! < 0) {
        throw new LocusError(
          'LOCUS_WORKER_MISSING',
          `task ${g.taskLabel(t)} (codelet ${codelet.name}) runs on ${codelet.kinds.join('/')} but platform ${p.name} has no such worker: add one or pick another platform`,
        );
      }
      throw new LocusError(
        'LOCUS_GPU_MEMORY_TOO_SMALL',
        `task ${g.taskLabel(t)} needs ${fmtBytes(bytes)} of data at once but the largest memory of a worker able to run ${codelet.name} holds ${fmtBytes(largest[c]!)}: give that worker more memory or use smaller tiles`,
      );
    }
  }

  /** Pops tasks for every worker with room in its pipeline (buffered ones first). */
  dispatch(): void {
    const sched = this.e.scheduler;
    for (let w = 0; w < this.nw; w++) {
      const buffer = this.buffer[w]!;
      while (this.pipeLen[w]! < this.depth[w]!) {
        const t = buffer.length > 0 ? this.takeBuffered(w) : sched.pop(w);
        if (t < 0) break;
        this.accept(t, w);
      }
    }
  }

  /**
   * The buffered task worker w takes next: the head, or with readyFirst the first whose
   * inputs are all valid in w's memory (the head when none is); with Scheduler.bufferRank the
   * first of the highest rank among those. O(buffer x inputs).
   */
  private takeBuffered(w: number): number {
    const buffer = this.buffer[w]!;
    if (this.readyFirst) {
      const e = this.e;
      const g = e.graph;
      const n = this.node[w]!;
      const sched = e.scheduler;
      let take = -1;
      let best = Number.NEGATIVE_INFINITY;
      for (let i = 0; i < buffer.length; i++) {
        const t = buffer.at(i);
        let ready = true;
        for (let a = g.accessStart.data[t]!; ready && a < g.accessStart.data[t + 1]!; a++) {
          if (g.accessMode.data[a]! & AccessMode.R && !e.replicas.isValid(g.accessHandle.data[a]!, n))
            ready = false;
        }
        if (!ready) continue;
        if (sched.bufferRank === undefined) {
          take = i;
          break;
        }
        const r = sched.bufferRank(t);
        if (r > best) {
          best = r;
          take = i;
        }
      }
      if (take >= 0) {
        const t = buffer.at(take);
        buffer.removeAt(take);
        return t;
      }
    }
    return buffer.shift();
  }

  /**
   * What a lookahead prefetch on node n may evict: not data another buffered task of the node
   * reads (two buffered tasks would otherwise take each other's inputs back and forth), and
   * only what the scheduler's filter allows. Built once per node, at the first use.
   */
  private bufferFilter(n: number): (handle: number) => boolean {
    return this.bufferFilters[n] ?? this.makeBufferFilter(n);
  }

  /**
   * Builds node n's buffer filter (bufferFilter's first call). Kept apart so that the hot
   * bufferFilter captures nothing: a function whose parameters a closure captures allocates
   * a context at every call, closure made or not.
   */
  private makeBufferFilter(n: number): (handle: number) => boolean {
    const sched = this.e.scheduler.evictionFilter?.(n);
    const nn = this.e.replicas.nNodes;
    const f = sched
      ? (h: number) => this.bufNeed[h * nn + n] === 0 && sched(h)
      : (h: number) => this.bufNeed[h * nn + n] === 0;
    this.bufferFilters[n] = f;
    // The eviction index applies it without calling it when it knows the scheduler's part.
    const index = this.e.memory.index;
    const schedBits = sched ? index.bitsOf(sched) : 0;
    if (schedBits >= 0) index.describe(f, EVICT_BUFFERED | schedBits);
    return f;
  }

  /** Tasks in node n's lookahead buffers that read the handle of `slot` (h * nodes + n). */
  bufferedReads(slot: number): number {
    return this.bufNeed[slot]!;
  }

  /**
   * Tops up every worker's lookahead buffer and retries the prefetches it still lacks (only
   * where one failed, was not tried, or a replica of the node was freed since: a prefetch of
   * a valid or loading replica does nothing).
   */
  fillBuffers(): void {
    const e = this.e;
    const g = e.graph;
    const stale = this.bufferStale;
    const before = this.staleBefore;
    for (let n = 0; n < stale.length; n++) {
      before[n] = stale[n]!;
      stale[n] = 0;
      this.waiting[n] = 0;
    }
    for (let w = 0; w < this.nw; w++) {
      const buffer = this.buffer[w]!;
      const n = this.node[w]!;
      if (buffer.length > 0 && this.staleBefore[n] === 1) {
        const allow = this.bufferFilter(n);
        let complete = true;
        for (let i = 0; i < buffer.length; i++) {
          if (e.requests.pending(n) !== 0) {
            complete = false;
            break;
          }
          const t = buffer.at(i);
          for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
            if (
              g.accessMode.data[a]! & AccessMode.R &&
              !this.prefetchInput(g.accessHandle.data[a]!, n, allow)
            )
              complete = false;
          }
        }
        if (!complete) this.bufferStale[n] = 1;
      }
      while (buffer.length < this.lookahead[w]!) {
        const t = e.scheduler.pop(w);
        if (t < 0) break;
        this.bufferTask(t, w);
      }
    }
  }

  /** Holds a popped task ahead of the pipeline and prefetches its inputs (unpinned). */
  private bufferTask(task: number, worker: number): void {
    const e = this.e;
    this.checkPopped(task, worker);
    e.tasks.state[task] = TaskState.BUFFERED;
    e.tasks.worker[task] = worker;
    this.buffer[worker]!.push(task);
    const g = e.graph;
    const n = this.node[worker]!;
    const nn = e.replicas.nNodes;
    // Earlier buffered tasks' inputs are protected first; this task's are counted after.
    const allow = this.bufferFilter(n);
    for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++) {
      if (g.accessMode.data[a]! & AccessMode.R) this.prefetchInput(g.accessHandle.data[a]!, n, allow);
    }
    for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++) {
      if (!(g.accessMode.data[a]! & AccessMode.R)) continue;
      const h = g.accessHandle.data[a]!;
      this.bufNeed[h * nn + n]!++;
      // A prefetch failed, or a later one of this task evicted an earlier one: retry later.
      if (!e.replicas.isValidOrLoading(h, n)) this.bufferStale[n] = 1;
    }
  }

  /**
   * Prefetches input `h` of a buffered task into node n, unless `prefetchWindow` copies are
   * already in flight into n (then false: the buffer is retried when one lands).
   */
  private prefetchInput(h: number, n: number, allow: (handle: number) => boolean): boolean {
    const e = this.e;
    if (
      this.prefetchWindow > 0 &&
      e.transfers.inbound[n]! >= this.prefetchWindow &&
      !e.replicas.isValidOrLoading(h, n)
    )
      return false;
    if (e.prefetch(h, n, true, allow, this.parallelEvictions ? this.waiting[n]! : 0)) return true;
    if (this.parallelEvictions) this.waiting[n]! += e.graph.handleSize.data[h]!;
    return false;
  }

  private checkPopped(task: number, worker: number): void {
    const name = this.e.scheduler.name;
    if (this.e.tasks.state[task] !== TaskState.READY) {
      throw new Error(`scheduler ${name} popped task ${task} which is not ready`);
    }
    if (!this.canRun(task, worker)) {
      throw new Error(`scheduler ${name} gave task ${task} to worker ${worker} which cannot run it`);
    }
    const hooks = this.e.hooks.taskPopped;
    for (let i = 0; i < hooks.length; i++) hooks[i]!(task, worker, this.e.nowS);
  }

  /** Takes `task` into `worker`'s pipeline and queues its accesses on the worker's node. */
  private accept(task: number, worker: number): void {
    const e = this.e;
    const g = e.graph;
    const tasks = e.tasks;
    const n = this.node[worker]!;
    if (tasks.state[task] !== TaskState.BUFFERED) {
      this.checkPopped(task, worker);
    } else {
      const nn = e.replicas.nNodes;
      for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++) {
        if (!(g.accessMode.data[a]! & AccessMode.R)) continue;
        const slot = g.accessHandle.data[a]! * nn + n;
        if (--this.bufNeed[slot]! === 0) e.memory.changed(slot);
      }
    }
    tasks.state[task] = TaskState.QUEUED;
    tasks.worker[task] = worker;
    const slot = (this.pipeHead[worker]! + this.pipeLen[worker]!) % this.maxDepth;
    this.pipe[worker * this.maxDepth + slot] = task;
    this.pipeLen[worker]!++;
    const aStart = g.accessStart.data[task]!;
    const aEnd = g.accessStart.data[task + 1]!;
    tasks.waitCount[task] = aEnd - aStart;
    if (aEnd === aStart) this.tryStart(worker); // no data to wait for
    e.requests.enqueue(task, aStart, aEnd, n);
  }

  /**
   * Starts worker w's pipeline head if its inputs are all in place (and, with issueAhead, the
   * tasks after it in order, up to the first that still waits).
   */
  tryStart(w: number): void {
    const limit = this.issueAhead ? this.pipeLen[w]! : Math.min(1, this.pipeLen[w]!);
    const wait = this.e.tasks.waitCount;
    while (this.issued[w]! < limit) {
      const task = this.pipe[w * this.maxDepth + ((this.pipeHead[w]! + this.issued[w]!) % this.maxDepth)]!;
      if (wait[task]! > 0) return;
      this.issued[w]!++;
      this.start(task, w);
    }
  }

  /** Emits RUN for `task` on `w` and applies its writes' coherence (the task now runs). */
  private start(task: number, w: number): void {
    const e = this.e;
    e.tasks.state[task] = TaskState.RUNNING;
    e.emit(Cmd.RUN, task, w);
    e.counters.startedAt[w] = e.nowS;
    const hooks = e.hooks.taskStarted;
    for (let i = 0; i < hooks.length; i++) hooks[i]!(task, w, e.nowS);
    applyWrites(e, task, this.node[w]!);
    e.scheduler.taskStarted?.(task, w);
  }

  /** `task` ended on worker w: it must be the pipeline's head; it leaves the pipeline. */
  retire(task: number, w: number): void {
    if (this.pipe[w * this.maxDepth + this.pipeHead[w]!] !== task)
      throw new Error(`task ${task} finished out of order on worker ${w}`);
    this.issued[w]!--;
    this.pipeHead[w] = (this.pipeHead[w]! + 1) % this.maxDepth;
    this.pipeLen[w]!--;
  }

  /** Task ids shift down by k (the engine's compaction): pipelines and buffers follow. */
  rebase(k: number): void {
    for (let w = 0; w < this.nw; w++) {
      for (let i = 0; i < this.pipeLen[w]!; i++)
        this.pipe[w * this.maxDepth + ((this.pipeHead[w]! + i) % this.maxDepth)]! -= k;
      this.buffer[w]!.addToAll(-k);
    }
  }

  /** Tasks popped by `worker` and not finished yet, in execution order (pipeline, then buffer). */
  pipeline(worker: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.pipeLen[worker]!; i++) {
      out.push(this.pipe[worker * this.maxDepth + ((this.pipeHead[worker]! + i) % this.maxDepth)]!);
    }
    const b = this.buffer[worker]!;
    for (let i = 0; i < b.length; i++) out.push(b.at(i));
    return out;
  }
}
