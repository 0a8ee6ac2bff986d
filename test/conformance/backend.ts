/**
 * The backend conformance suite (issue 10): what any Backend (src/drive/backend.ts) must do
 * when the one driver loop (src/drive/driver.ts) runs an engine over it. The simulator
 * (test/policies/backend-sim.test.ts) and the worker threads (backend-threads.test.ts) call
 * runBackendConformance with a factory and reasoned skips.
 *
 * Every run goes through a spy between the driver and the backend: it checks each command the
 * backend gets and each event it delivers (a task ends once, after it was run, in its worker's
 * run order, after its predecessors; a copy completes once, after it was issued, having started
 * between its issue and its end; nothing runs while a copy of one of its inputs into its node
 * is in flight; nothing freed is in use or being copied; what the backend holds on a node never
 * exceeds the node's memory; poll() returns what it delivered; the clock never goes back). The
 * engine carries the symbolic value-checking oracle (test/helpers/checker.ts); a backend that
 * computes values also gives its final data, compared with a sequential execution.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Engine, type EngineOptions } from '../../src/core/engine.ts';
import { TaskGraph } from '../../src/core/graph.ts';
import { PlatformModel } from '../../src/core/model.ts';
import type { Platform } from '../../src/core/platform.ts';
import { AccessMode } from '../../src/core/types.ts';
import type { Backend, EventSink } from '../../src/drive/backend.ts';
import { Driver, type DriverHooks } from '../../src/drive/driver.ts';
import { createEviction } from '../../src/evict/index.ts';
import { createScheduler } from '../../src/sched/index.ts';
import { RunStats } from '../../src/trace/stats.ts';
import { InvariantChecker } from '../helpers/checker.ts';
import { testPlatform } from '../helpers/platforms.ts';
import { buildGraph, graphSpecArb, machineArb, machinePlatform } from '../helpers/random-graphs.ts';
import { type SkipGroup, skipReason } from './harness.ts';

/** The cases of the backend suite. */
export const BACKEND_CASES = [
  'each task runs once, after its predecessors, ending in its worker order',
  'final data equal a sequential execution (symbolic oracle)',
  'final data computed by the kernels equal a sequential execution',
  'every copy completes once, after it was issued, and is counted',
  'no task runs before its inputs have arrived on its node',
  'freed replicas are neither in use nor being copied',
  'memory never over capacity',
  'an urgent prefetch completes once',
  'a copy completes asynchronously while other events happen',
  'a failed task is reported; exactly its dependents are cancelled',
  'idle and finished are reported; tasks submitted after idle run',
] as const;

/** One case of BACKEND_CASES. */
export type BackendCase = (typeof BACKEND_CASES)[number];

/** What a backend factory is given for one run. */
export interface BackendSetup {
  graph: TaskGraph;
  platform: Platform;
  /** Tasks whose kernel must fail (report an error). */
  failing: ReadonlySet<number>;
}

/** A backend made for one run, and what the suite needs around it. */
export interface BackendUnderTest {
  /** The backend; attach(engine) is called once the engine exists. */
  backend: Backend & { attach(engine: Engine): void };
  /** Engine options the backend needs (a real backend: issueAhead, deeper pipelines). */
  engineOptions?: Partial<EngineOptions>;
  /** Called after engine.open, before the first command (threads start their loops). */
  start?(): void;
  /**
   * The final content of every handle's home copy as int32 words, for a backend that runs
   * the kernels (each task's kernel is test/helpers/kernels.ts's `checksum`, args [task id,
   * access modes...], over int32 data whose initial word k of handle h is initialWord(h, k)).
   */
  homeValues?(): Int32Array[];
  /** Ends the run (threads stop their loops). */
  dispose?(): Promise<void>;
}

/** Options of runBackendConformance. */
export interface BackendConformance {
  /** The backend's name (in test names and failure messages). */
  name: string;
  /** Makes a backend for one run. */
  create: (setup: BackendSetup) => BackendUnderTest | Promise<BackendUnderTest>;
  /**
   * Seconds two clocks may disagree by: the times a real backend's threads measure against
   * its main thread's clock (default 0: one clock).
   */
  clockSlackS?: number;
  /** Cases not run, with their reasons. */
  skip?: readonly SkipGroup<BackendCase>[];
  /** Random graphs per random case (default 8; PROPERTY_RUNS overrides). */
  runs?: number;
}

/** Initial word k of handle h in backends that compute values. */
export function initialWord(h: number, k: number): number {
  return Math.imul(h + 1, 7919) + k;
}

/** The kernel arguments of `task`: [task id, access mode of each access (1 R, 2 W, 3 RW)]. */
export function checksumArgs(graph: TaskGraph, task: number): number[] {
  return [task, ...graph.accesses(task).map(([, m]) => m as number)];
}

/** Observes the commands a backend gets and the events it delivers; lists what went wrong. */
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
  private readonly runs: Int32Array;
  private readonly ends: Int32Array;
  private readonly runAt: Float64Array;
  private readonly endAt: Float64Array;
  private readonly workerOf: Int32Array;
  private readonly preds: number[][];
  private readonly pipes: number[][];
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
    const n = g.taskCount;
    this.runs = new Int32Array(n);
    this.ends = new Int32Array(n);
    this.runAt = new Float64Array(n);
    this.endAt = new Float64Array(n);
    this.workerOf = new Int32Array(n).fill(-1);
    this.preds = Array.from({ length: n }, (_, t) => g.predecessors(t));
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

  now(): number {
    return this.backend.now();
  }

  run(task: number, worker: number): void {
    const e = this.engine;
    const g = e.graph;
    const node = e.platform.workers[worker]!.node;
    const label = `run(${task}, ${worker})`;
    if (++this.runs[task]! > 1) this.fail(`${label}: task ${task} run a second time`);
    for (const p of this.preds[task]!) {
      if (this.ends[p] === 0) this.fail(`${label}: predecessor ${p} has not ended`);
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
    this.runOrder.push(task);
    this.runAt[task] = this.backend.now();
    this.workerOf[task] = worker;
    this.pipes[worker]!.push(task);
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
        if (e.graph.accesses(t).some(([h]) => h === handle)) this.fail(`${label}: task ${t} is using it`);
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

  /** End-of-run checks: everything run ended, every copy completed. */
  finish(): void {
    const g = this.engine.graph;
    for (let t = 0; t < g.taskCount; t++) {
      if (this.runs[t]! > 0 && this.ends[t] === 0) this.fail(`task ${t} was run and never ended`);
    }
    for (const [id] of this.copyIssuedAt) this.fail(`copy #${id} never completed`);
    if (this.copiesDone !== this.copies)
      this.fail(`${this.copies} copies issued, ${this.copiesDone} completed`);
  }

  private taskEnded(task: number, worker: number, startS: number, endS: number, error: string | undefined) {
    const label = `taskEnded(${task})`;
    this.tick(label);
    const now = this.backend.now();
    if (this.runs[task] === 0) this.fail(`${label}: the task was never run`);
    if (++this.ends[task]! > 1) this.fail(`${label}: ended a second time`);
    const w = this.workerOf[task]!;
    if (worker !== -1 && worker !== w) this.fail(`${label}: reported on worker ${worker}, run on ${w}`);
    if (w >= 0) {
      const head = this.pipes[w]!.shift();
      if (head !== task) this.fail(`${label}: worker ${w} was given task ${head} before it`);
    }
    if (!(Number.isFinite(startS) && Number.isFinite(endS) && startS <= endS))
      this.fail(`${label}: runs from ${startS} to ${endS}`);
    if (startS < this.runAt[task]! - this.slack)
      this.fail(`${label}: started at ${startS}, before it was run (${this.runAt[task]})`);
    if (endS > now + this.slack) this.fail(`${label}: ends at ${endS}, after now (${now})`);
    for (const p of this.preds[task]!) {
      if (startS < this.endAt[p]! - this.slack)
        this.fail(`${label}: started at ${startS}, before predecessor ${p} ended (${this.endAt[p]})`);
    }
    this.endAt[task] = endS;
    this.ended.push({ task, error });
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

/** Options of one run of the suite. */
interface RunOptions {
  failing?: ReadonlySet<number>;
  scheduler?: string;
  engine?: Partial<EngineOptions>;
  /** Submit the tasks in two rounds: the second after the driver reported idle. */
  twoRounds?: boolean;
}

/** What one run gives the cases. */
interface RunResult {
  spy: SpyBackend;
  driver: Driver;
  checker: InvariantChecker;
  stats: RunStats;
  engine: Engine;
  values: Int32Array[] | undefined;
  idle: { at: number; ended: number }[];
  finished: number;
}

/** Registers the suite for one backend under describe('backend conformance: NAME'). */
export function runBackendConformance(o: BackendConformance): void {
  const runs = Number(process.env.PROPERTY_RUNS ?? o.runs ?? 8);
  const seed = Number(process.env.PROPERTY_SEED ?? 42);
  const slack = o.clockSlackS ?? 0;
  const label = (c: BackendCase) => `[backend ${o.name}] ${c}`;
  const caseTest = (c: BackendCase, fn: () => Promise<void>) => {
    const reason = skipReason(`backend ${o.name}`, BACKEND_CASES, o.skip, c);
    test(c, reason ? { skip: reason } : {}, fn);
  };

  /** Runs `graph` on `platform` over a fresh backend, through the spy and the oracle. */
  async function run(c: BackendCase, graph: TaskGraph, platform: Platform, r: RunOptions = {}) {
    const failing = r.failing ?? new Set<number>();
    const under = await o.create({ graph, platform, failing });
    const engine = new Engine({
      graph,
      platform,
      scheduler: createScheduler(r.scheduler ?? 'eager'),
      eviction: createEviction('lru'),
      model: new PlatformModel(platform, graph),
      seed: 1,
      ...under.engineOptions,
      ...r.engine,
    });
    under.backend.attach(engine);
    const checker = new InvariantChecker(engine);
    const stats = new RunStats(engine);
    engine.observe(stats);
    if (failing.size === 0) engine.observe(checker);
    const spy = new SpyBackend(under.backend, engine, slack);
    const idle: { at: number; ended: number }[] = [];
    let finished = 0;
    const hooks: DriverHooks = {
      idle: () => idle.push({ at: spy.runOrder.length, ended: spy.ended.length }),
      finished: () => finished++,
    };
    const driver = new Driver(engine, spy, { hooks });
    let values: Int32Array[] | undefined;
    try {
      const half = r.twoRounds ? Math.ceil(graph.taskCount / 2) : graph.taskCount;
      engine.open(spy.now());
      under.start?.();
      engine.submitted(spy.now(), half);
      if (half < graph.taskCount) {
        await driver.run(() => idle.length > 0);
        engine.submitted(spy.now());
      }
      engine.close(spy.now());
      await driver.run(() => engine.isFinished);
      spy.finish();
      values = under.homeValues?.();
    } finally {
      await under.dispose?.();
    }
    assert.deepEqual(spy.violations, [], `${label(c)}: the backend broke its contract`);
    if (failing.size === 0) {
      assert.deepEqual(driver.failures, [], `${label(c)}: tasks failed`);
      assert.deepEqual(checker.violations, [], `${label(c)}: the oracle found violations`);
      assert.ok(checker.finished, `${label(c)}: the run did not finish`);
    }
    return { spy, driver, checker, stats, engine, values, idle, finished } satisfies RunResult;
  }

  /** Random graphs and machines (deterministic: seeded). */
  function randomRuns(): { graph: TaskGraph; platform: Platform; maxFootprint: number }[] {
    const specs = fc.sample(fc.tuple(graphSpecArb, machineArb), { numRuns: runs, seed });
    return specs.map(([spec, m]) => {
      const built = buildGraph(spec);
      return { graph: built.g, platform: machinePlatform(m, built), maxFootprint: built.maxFootprint };
    });
  }

  describe(`backend conformance: ${o.name}`, { timeout: 300_000 }, () => {
    caseTest('each task runs once, after its predecessors, ending in its worker order', async () => {
      const c = 'each task runs once, after its predecessors, ending in its worker order';
      const schedulers = ['eager', 'dmdar', 'ws'];
      for (const [i, { graph, platform }] of randomRuns().entries()) {
        const r = await run(c, graph, platform, { scheduler: schedulers[i % schedulers.length] });
        assert.equal(r.spy.runOrder.length, graph.taskCount, `${label(c)}: tasks run`);
        assert.equal(r.spy.ended.length, graph.taskCount, `${label(c)}: tasks ended`);
        assert.deepEqual(
          [...r.spy.runOrder].sort((a, b) => a - b),
          Array.from({ length: graph.taskCount }, (_, t) => t),
          `${label(c)}: every task once`,
        );
      }
    });

    caseTest('final data equal a sequential execution (symbolic oracle)', async () => {
      const c = 'final data equal a sequential execution (symbolic oracle)';
      // run() asserts the oracle's verdict: inputs and final home values as a sequential run.
      for (const { graph, platform } of randomRuns()) await run(c, graph, platform, { scheduler: 'dmdar' });
    });

    caseTest('final data computed by the kernels equal a sequential execution', async () => {
      const c = 'final data computed by the kernels equal a sequential execution';
      const { checksum } = await import('../helpers/kernels.ts');
      for (const { graph, platform } of randomRuns()) {
        const r = await run(c, graph, platform, { scheduler: 'dmdar' });
        assert.ok(r.values, `${label(c)}: the backend gave no final data`);
        const expected = Array.from({ length: graph.handleCount }, (_, h) =>
          Int32Array.from({ length: graph.handleSize.data[h]! / 4 }, (_, k) => initialWord(h, k)),
        );
        for (let t = 0; t < graph.taskCount; t++) {
          checksum(
            graph.accesses(t).map(([h]) => expected[h]!),
            Float64Array.from(checksumArgs(graph, t)),
          );
        }
        for (let h = 0; h < graph.handleCount; h++) {
          assert.deepEqual(
            r.values[h],
            expected[h],
            `${label(c)}: handle ${h} differs from the sequential run`,
          );
        }
      }
    });

    caseTest('every copy completes once, after it was issued, and is counted', async () => {
      const c = 'every copy completes once, after it was issued, and is counted';
      let total = 0;
      for (const { graph, platform } of randomRuns()) {
        const r = await run(c, graph, platform, { scheduler: 'dmdar' });
        assert.equal(r.spy.copiesDone, r.spy.copies, `${label(c)}: copies completed`);
        assert.equal(r.spy.copies, r.engine.trHandle.length, `${label(c)}: copies issued by the engine`);
        assert.equal(r.stats.transfers, r.spy.copies, `${label(c)}: copies the statistics count`);
        total += r.spy.copies;
      }
      assert.ok(total > 0, `${label(c)}: no run copied anything`);
    });

    caseTest('no task runs before its inputs have arrived on its node', async () => {
      const c = 'no task runs before its inputs have arrived on its node';
      // Every task reads what the one before wrote, on another GPU each time: each input
      // arrives by a copy (staged through the host) before its task may run.
      const platform = testPlatform({ gpus: 2, gpuCapacity: 1e6, bandwidth: 1e8, latency: 1e-5 });
      const graph = pingPongGraph(12);
      const r = await run(c, graph, platform, { scheduler: 'eager' });
      assert.equal(r.spy.ended.length, 12);
      assert.ok(r.spy.copies > 0, `${label(c)}: no copy was made`);
    });

    caseTest('freed replicas are neither in use nor being copied', async () => {
      const c = 'freed replicas are neither in use nor being copied';
      // Each GPU holds two of the eight inputs at once: the run must evict and free.
      const platform = testPlatform({ gpus: 2, gpuCapacity: 2 * 4000, bandwidth: 1e8 });
      const graph = sweepGraph(8, 3);
      const r = await run(c, graph, platform, { scheduler: 'eager' });
      assert.ok(r.spy.frees > 0, `${label(c)}: nothing was freed`);
    });

    caseTest('memory never over capacity', async () => {
      const c = 'memory never over capacity';
      // The spy checks what the backend holds and what the engine counts at every event.
      for (const { graph, platform } of randomRuns()) await run(c, graph, platform, { scheduler: 'dmdar' });
      const platform = testPlatform({ gpus: 1, gpuCapacity: 3 * 4000, cpus: 1, bandwidth: 1e8 });
      const r = await run(c, sweepGraph(10, 4), platform, { scheduler: 'dmdar' });
      assert.ok(r.spy.frees > 0, `${label(c)}: the tight run evicted nothing`);
    });

    caseTest('an urgent prefetch completes once', async () => {
      const c = 'an urgent prefetch completes once';
      // One GPU with a one-task pipeline and a lookahead of 3: the inputs of the next tasks
      // are prefetched behind the first fetch on the same link, so when the first task ends
      // the next one's prefetch is still in flight and becomes urgent. (A slow link: a real
      // backend's copies last 0.2 s, far longer than a busy machine delays its main thread.)
      const platform = testPlatform({ gpus: 1, gpuCapacity: 1e7, bandwidth: 2e6, latency: 1e-4 });
      const graph = independentGraph(6, 400_000);
      const r = await run(c, graph, platform, {
        scheduler: 'eager',
        engine: { gpuPipeline: 1, gpuLookahead: 3, issueAhead: false },
      });
      assert.ok(r.spy.urgents > 0, `${label(c)}: no prefetch was made urgent`);
      assert.equal(r.spy.urgentsDone, r.spy.urgents, `${label(c)}: urgent copies completed`);
    });

    caseTest('a copy completes asynchronously while other events happen', async () => {
      const c = 'a copy completes asynchronously while other events happen';
      // Large inputs on a slow link, tasks on the host meanwhile: a copy is in flight while
      // other tasks end, and completes later.
      const platform = testPlatform({ gpus: 1, gpuCapacity: 1e7, cpus: 1, bandwidth: 2e6, latency: 1e-4 });
      const graph = independentGraph(8, 400_000);
      const r = await run(c, graph, platform, { scheduler: 'eager' });
      assert.ok(r.spy.copies > 0, `${label(c)}: no copy was made`);
      assert.ok(r.spy.overlapped > 0, `${label(c)}: no copy completed after another event`);
    });

    caseTest('a failed task is reported; exactly its dependents are cancelled', async () => {
      const c = 'a failed task is reported; exactly its dependents are cancelled';
      for (const { graph, platform } of randomRuns()) {
        if (graph.taskCount < 4) continue;
        const failing = new Set([1, Math.floor(graph.taskCount / 2)]);
        // A failing task below another one is cancelled, not run.
        const below = descendants(graph, failing);
        const failed = [...failing].filter((t) => !below.has(t)).sort((a, b) => a - b);
        const cancelled = descendants(graph, new Set(failed));
        const r = await run(c, graph, platform, { failing, scheduler: 'dmdar' });
        assert.deepEqual(
          r.driver.failures.map((f) => f.task).sort((a, b) => a - b),
          failed,
          `${label(c)}: failed tasks`,
        );
        for (const f of r.driver.failures) assert.match(f.message, /kaboom/, `${label(c)}: failure message`);
        assert.equal(r.driver.cancelledCount, cancelled.size, `${label(c)}: cancelled tasks`);
        const ran = new Set(r.spy.runOrder);
        for (const t of cancelled) assert.ok(!ran.has(t), `${label(c)}: cancelled task ${t} ran`);
        for (let t = 0; t < graph.taskCount; t++) {
          if (!cancelled.has(t)) assert.ok(ran.has(t), `${label(c)}: task ${t} did not run`);
        }
        const errors = r.spy.ended.filter((e) => e.error !== undefined).map((e) => e.task);
        assert.deepEqual(
          errors.sort((a, b) => a - b),
          failed,
          `${label(c)}: tasks that ended with an error`,
        );
      }
    });

    caseTest('idle and finished are reported; tasks submitted after idle run', async () => {
      const c = 'idle and finished are reported; tasks submitted after idle run';
      for (const { graph, platform } of randomRuns()) {
        if (graph.taskCount < 2) continue;
        const r = await run(c, graph, platform, { scheduler: 'eager', twoRounds: true });
        const half = Math.ceil(graph.taskCount / 2);
        assert.ok(r.idle.length >= 1, `${label(c)}: idle never reported`);
        assert.equal(r.idle[0]!.ended, half, `${label(c)}: idle reported before the first round ended`);
        assert.equal(r.finished, 1, `${label(c)}: finished reported ${r.finished} times`);
        assert.equal(r.spy.ended.length, graph.taskCount, `${label(c)}: tasks ended`);
        assert.ok(r.engine.isFinished, `${label(c)}: the engine is not finished`);
      }
    });
  });
}

/** Tasks and their transitive successors' set, the tasks themselves excluded unless reached. */
function descendants(graph: TaskGraph, roots: ReadonlySet<number>): Set<number> {
  const out = new Set<number>();
  const stack = [...roots];
  while (stack.length > 0) {
    const t = stack.pop()!;
    for (const s of graph.successors(t)) {
      if (out.has(s)) continue;
      out.add(s);
      stack.push(s);
    }
  }
  return out;
}

/** `n` GPU tasks, each writing one of two data of 4000 bytes and reading the other. */
function pingPongGraph(n: number): TaskGraph {
  const g = new TaskGraph();
  const k = g.addCodelet({ name: 'k', kinds: ['gpu'], flops: () => 1e6 });
  const x = g.addHandle(4000, { name: 'x' });
  const y = g.addHandle(4000, { name: 'y' });
  for (let t = 0; t < n; t++)
    g.submit(
      k,
      [
        [t % 2 === 0 ? x : y, AccessMode.RW],
        [t % 2 === 0 ? y : x, AccessMode.R],
      ],
      { dims: [1] },
    );
  return g;
}

/** `rounds` passes over `n` data of 4000 bytes, one GPU task reading and writing each. */
function sweepGraph(n: number, rounds: number): TaskGraph {
  const g = new TaskGraph();
  const k = g.addCodelet({ name: 'k', kinds: ['gpu'], flops: () => 1e6 });
  const hs = Array.from({ length: n }, (_, i) => g.addHandle(4000, { name: `d${i}` }));
  for (let r = 0; r < rounds; r++) for (const h of hs) g.submit(k, [[h, AccessMode.RW]], { dims: [1] });
  return g;
}

/** `n` independent tasks, each reading its own datum of `bytes` and writing a small one. */
function independentGraph(n: number, bytes: number): TaskGraph {
  const g = new TaskGraph();
  const k = g.addCodelet({ name: 'k', kinds: ['cpu', 'gpu'], flops: () => 1e6 });
  for (let i = 0; i < n; i++) {
    const input = g.addHandle(bytes, { name: `in${i}` });
    const out = g.addHandle(4000, { name: `out${i}` });
    g.submit(
      k,
      [
        [input, AccessMode.R],
        [out, AccessMode.RW],
      ],
      { dims: [1] },
    );
  }
  return g;
}
