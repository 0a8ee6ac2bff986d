/**
 * The spy of the backend conformance suite (backend.ts): a Backend that sits between the
 * driver and the backend under test, passes every command and event through, and lists each
 * breach of the backend contract it sees (DESIGN.md, src/drive/backend.ts).
 */
import type { Engine } from '../../src/core/engine.ts';
import { AccessMode } from '../../src/core/types.ts';
import type { Backend, EventSink } from '../../src/drive/backend.ts';
import type { KernelRef } from '../../src/exec/protocol.ts';

/**
 * Observes the commands a backend gets and the events it delivers; lists what went wrong.
 * Task ids in its records (runOrder, ended) are submission ids: the engine's id plus the tasks
 * recycled before it (rebase), so a recycled session's records read as a whole one's.
 */
export class SpyBackend implements Backend {
  readonly violations: string[] = [];
  /** Tasks in the order run() was called. */
  readonly runOrder: number[] = [];
  /** Tasks in the order their ends were delivered, with the error they reported. */
  readonly ended: { task: number; error: string | undefined }[] = [];
  /** Copies issued, completed, made urgent while in flight; frees; events; polls. */
  copies = 0;
  copiesDone = 0;
  urgents = 0;
  urgentsDone = 0;
  frees = 0;
  /** Copies that completed after some other event was delivered while they were in flight. */
  overlapped = 0;
  readonly mode: 'simulated' | 'real';
  /** Per submission id: times run, times ended, when run and ended, the worker. */
  private readonly runs: number[] = [];
  private readonly ends: number[] = [];
  private readonly runAt: number[] = [];
  private readonly endAt: number[] = [];
  private readonly workerOf: number[] = [];
  /** Per submission id: its predecessors' submission ids, read from the graph when it runs. */
  private readonly preds: number[][] = [];
  /** Per worker: the submission ids run there and not ended, in order. */
  private readonly pipes: number[][];
  /** Tasks recycled so far: submission id = engine id + offset. */
  private offset = 0;
  private readonly copyIssuedAt = new Map<number, { at: number; events: number; urgent: boolean }>();
  private readonly held: Set<number>[];
  private readonly heldBytes: number[];
  private lastNow = 0;
  private events = 0;
  private inner!: EventSink;
  private readonly sink: EventSink;

  constructor(
    private readonly backend: Backend,
    private readonly engine: Engine,
    private readonly slack: number,
  ) {
    this.mode = backend.mode;
    const g = engine.graph;
    this.pipes = engine.platform.workers.map(() => []);
    const p = engine.platform;
    // What the backend holds on each node: home copies at home, then what commands place.
    this.held = p.nodes.map(() => new Set<number>());
    this.heldBytes = p.nodes.map(() => 0);
    for (let h = 0; h < g.handleCount; h++) this.hold(h, p.homeNode);
    this.sink = {
      taskEnded: (task, worker, startS, endS, error) => this.taskEnded(task, worker, startS, endS, error),
      transferFinished: (id, startS) => this.transferFinished(id, startS),
    };
  }

  /** The backend under test is attached by the suite before the spy exists. */
  attach(_engine: Engine): void {}

  start(): void {
    this.backend.start();
  }

  loadKernels(refs: readonly KernelRef[], from: number): Promise<Map<number, string>> {
    return this.backend.loadKernels(refs, from);
  }

  ring(): void {
    this.backend.ring();
  }

  stop(): Promise<void> {
    return this.backend.stop();
  }

  now(): number {
    return this.backend.now();
  }

  run(task: number, worker: number): void {
    const e = this.engine;
    const g = e.graph;
    const node = e.platform.workers[worker]!.node;
    const id = task + this.offset;
    const label = `run(${id}, ${worker})`;
    this.runs[id] = (this.runs[id] ?? 0) + 1;
    if (this.runs[id] > 1) this.fail(`${label}: task ${id} run a second time`);
    // Predecessors recycled before now had ended: the graph keeps the edges of live tasks.
    this.preds[id] = g.predecessors(task).map((p) => p + this.offset);
    for (const p of this.preds[id]!) {
      if (!this.ends[p]) this.fail(`${label}: predecessor ${p} has not ended`);
    }
    for (const [h, m] of g.accesses(task)) {
      if ((m & AccessMode.R) !== 0 && !e.isValidOn(h, node))
        this.fail(`${label}: input ${h} not valid on node ${node}`);
      for (const [id] of this.copyIssuedAt) {
        if (e.trHandle.data[id] === h && e.trDst.data[id] === node)
          this.fail(`${label}: copy #${id} of handle ${h} into node ${node} is still in flight`);
      }
      this.hold(h, node);
    }
    this.runOrder.push(id);
    this.runAt[id] = this.backend.now();
    this.workerOf[id] = worker;
    this.pipes[worker]!.push(id);
    this.backend.run(task, worker);
  }

  copy(id: number): void {
    const e = this.engine;
    if (this.copyIssuedAt.has(id)) this.fail(`copy(${id}) issued twice`);
    this.copies++;
    const src = e.trSrc.data[id]!;
    const h = e.trHandle.data[id]!;
    if (!this.held[src]!.has(h)) this.fail(`copy(${id}) reads handle ${h} on node ${src}, which holds none`);
    this.hold(h, e.trDst.data[id]!);
    this.copyIssuedAt.set(id, { at: this.backend.now(), events: this.events, urgent: false });
    this.backend.copy(id);
  }

  urgent(id: number): void {
    const c = this.copyIssuedAt.get(id);
    if (c === undefined) this.fail(`urgent(${id}): no such copy in flight`);
    else c.urgent = true;
    this.urgents++;
    this.backend.urgent(id);
  }

  free(handle: number, node: number): void {
    const e = this.engine;
    const label = `free(${handle}, ${node})`;
    this.frees++;
    if (node === e.platform.homeNode) this.fail(`${label}: a home copy freed`);
    if (!this.held[node]!.delete(handle)) this.fail(`${label}: the node holds no replica of it`);
    else this.heldBytes[node]! -= e.graph.handleSize.data[handle]!;
    for (let w = 0; w < this.pipes.length; w++) {
      if (e.platform.workers[w]!.node !== node) continue;
      for (const t of this.pipes[w]!) {
        if (e.graph.accesses(t - this.offset).some(([h]) => h === handle))
          this.fail(`${label}: task ${t} is using it`);
      }
    }
    for (const [id] of this.copyIssuedAt) {
      if (e.trHandle.data[id] !== handle) continue;
      if (e.trSrc.data[id] === node || e.trDst.data[id] === node)
        this.fail(`${label}: copy #${id} is moving it`);
    }
    this.backend.free(handle, node);
  }

  poll(sink: EventSink): number {
    this.inner = sink;
    const before = this.events;
    const n = this.backend.poll(this.sink);
    if (n !== this.events - before)
      this.fail(`poll() returned ${n} but delivered ${this.events - before} events`);
    return n;
  }

  wait(): Promise<void> | null {
    return this.backend.wait();
  }

  /**
   * The engine recycled tasks [0, k) (Engine.compact): the backend under test follows, and
   * this spy's submission ids stay as they were.
   */
  rebase(k: number): void {
    if (this.backend.rebase === undefined) this.fail(`rebase(${k}): the backend cannot recycle`);
    this.offset += k;
    this.backend.rebase?.(k);
  }

  /** End-of-run checks: everything run ended, every copy completed. */
  finish(): void {
    this.runs.forEach((n, t) => {
      if (n > 0 && !this.ends[t]) this.fail(`task ${t} was run and never ended`);
    });
    for (const [id] of this.copyIssuedAt) this.fail(`copy #${id} never completed`);
    if (this.copiesDone !== this.copies)
      this.fail(`${this.copies} copies issued, ${this.copiesDone} completed`);
  }

  private taskEnded(task: number, worker: number, startS: number, endS: number, error: string | undefined) {
    const id = task + this.offset;
    const label = `taskEnded(${id})`;
    this.tick(label);
    const now = this.backend.now();
    if (!this.runs[id]) this.fail(`${label}: the task was never run`);
    this.ends[id] = (this.ends[id] ?? 0) + 1;
    if (this.ends[id] > 1) this.fail(`${label}: ended a second time`);
    const w = this.workerOf[id] ?? -1;
    if (worker !== -1 && worker !== w) this.fail(`${label}: reported on worker ${worker}, run on ${w}`);
    if (w >= 0) {
      const head = this.pipes[w]!.shift();
      if (head !== id) this.fail(`${label}: worker ${w} was given task ${head} before it`);
    }
    if (!(Number.isFinite(startS) && Number.isFinite(endS) && startS <= endS))
      this.fail(`${label}: runs from ${startS} to ${endS}`);
    if (startS < this.runAt[id]! - this.slack)
      this.fail(`${label}: started at ${startS}, before it was run (${this.runAt[id]})`);
    if (endS > now + this.slack) this.fail(`${label}: ends at ${endS}, after now (${now})`);
    for (const p of this.preds[id] ?? []) {
      if (startS < this.endAt[p]! - this.slack)
        this.fail(`${label}: started at ${startS}, before predecessor ${p} ended (${this.endAt[p]})`);
    }
    this.endAt[id] = endS;
    this.ended.push({ task: id, error });
    this.inner.taskEnded(task, worker, startS, endS, error);
  }

  private transferFinished(id: number, startS: number) {
    const label = `transferFinished(${id})`;
    this.tick(label);
    const now = this.backend.now();
    const c = this.copyIssuedAt.get(id);
    if (c === undefined) {
      this.fail(`${label}: not in flight`);
    } else {
      this.copyIssuedAt.delete(id);
      this.copiesDone++;
      if (c.urgent) this.urgentsDone++;
      if (this.events - 1 > c.events) this.overlapped++;
      if (!(startS >= c.at - this.slack && startS <= now + this.slack))
        this.fail(`${label}: started at ${startS}, outside its issue (${c.at}) .. now (${now})`);
    }
    this.inner.transferFinished(id, startS);
  }

  private tick(label: string): void {
    this.events++;
    const now = this.backend.now();
    if (now < this.lastNow) this.fail(`${label}: the clock went back from ${this.lastNow} to ${now}`);
    this.lastNow = now;
    const e = this.engine;
    e.platform.nodes.forEach((node, n) => {
      if (this.heldBytes[n]! > node.capacity)
        this.fail(
          `${label}: the backend holds ${this.heldBytes[n]} bytes on ${node.name} (${node.capacity})`,
        );
      if (e.memoryUsed(n) > node.capacity)
        this.fail(`${label}: the engine uses ${e.memoryUsed(n)} bytes on ${node.name} (${node.capacity})`);
    });
  }

  private hold(h: number, node: number): void {
    if (this.held[node]!.has(h)) return;
    this.held[node]!.add(h);
    this.heldBytes[node]! += this.engine.graph.handleSize.data[h]!;
  }

  private fail(msg: string): void {
    if (this.violations.length < 20) this.violations.push(msg);
  }
}
