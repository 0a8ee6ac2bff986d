/**
 * The backend conformance suite (issue 10): what any Backend (src/drive/backend.ts) must do
 * when the one driver loop (src/drive/driver.ts) runs an engine over it, through the
 * Backend interface alone. Every registered backend (test/policies/backend-registry.test.ts)
 * and WebGPU (backend-webgpu.test.ts) call runBackendConformance with a factory and reasoned
 * skips.
 *
 * Every run goes through a spy (backend-spy.ts) between the driver and the backend: it checks
 * each command the backend gets and each event it delivers (a task ends once, after it was run, in its worker's
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
import type { Engine, EngineOptions } from '../../src/core/engine.ts';
import { TaskGraph } from '../../src/core/graph.ts';
import { PlatformModel } from '../../src/core/model.ts';
import type { Platform } from '../../src/core/platform.ts';
import { AccessMode } from '../../src/core/types.ts';
import type { Backend } from '../../src/drive/backend.ts';
import type { Driver, DriverHooks } from '../../src/drive/driver.ts';
import { openRun } from '../../src/drive/open-run.ts';
import type { RunStats } from '../../src/trace/stats.ts';
import { InvariantChecker } from '../helpers/checker.ts';
import { testPlatform } from '../helpers/platforms.ts';
import { buildGraph, graphSpecArb, machineArb, machinePlatform } from '../helpers/random-graphs.ts';
import { addStreamTask, prepareStream, streamPlatform } from '../helpers/stream-source.ts';
import { SpyBackend } from './backend-spy.ts';
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
  'a recycled session runs every task once and computes what a sequential run does',
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
  /**
   * The backend, driven through its interface alone: attach(engine) once the engine exists,
   * start() after engine.open, stop() once the run is finished.
   */
  backend: Backend;
  /** Engine options the backend needs (a real backend: issueAhead, deeper pipelines). */
  engineOptions?: Partial<EngineOptions>;
  /**
   * The final content of every handle's home copy as int32 words, for a backend that runs
   * the kernels (each task's kernel is test/helpers/kernels.ts's `checksum`, args [task id,
   * access modes...], over int32 data whose initial word k of handle h is initialWord(h, k)).
   */
  homeValues?(): Int32Array[];
  /** Frees what the run held besides the backend (threads, devices), after stop(). */
  dispose?(): Promise<void>;
  /**
   * Tasks [from, to) (engine ids) were appended to the graph after the backend was made (a
   * session that submits as it goes): give them what the backend needs to run them (a
   * Runtime's payloads), as for the tasks the graph held at creation.
   */
  appended?(from: number, to: number): void;
  /**
   * The engine recycled tasks [0, k) (Engine.compact): drop what the owner keeps by task id
   * for them (a Runtime's payloads), as the Runtime does; the backend itself is told by its
   * own rebase().
   */
  rebase?(k: number): void;
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

/**
 * The kernel arguments of `task`: [submission id (the task's id plus the tasks the graph
 * recycled before it), access mode of each access (1 R, 2 W, 3 RW)].
 */
export function checksumArgs(graph: TaskGraph, task: number): number[] {
  return [task + graph.retired, ...graph.accesses(task).map(([, m]) => m as number)];
}

/** Options of one run of the suite. */
interface RunOptions {
  failing?: ReadonlySet<number>;
  scheduler?: string;
  engine?: Partial<EngineOptions>;
  /** Submit the tasks in two rounds: the second after the driver reported idle. */
  twoRounds?: boolean;
  /**
   * Submits the tasks instead of the default (all at once, or twoRounds), once the engine is
   * open and the backend started; the run then closes and drives to the end. A run with one
   * gets no oracle (the InvariantChecker keeps per-task records and does not recycle).
   */
  submit?: (s: { engine: Engine; driver: Driver; spy: SpyBackend; under: BackendUnderTest }) => Promise<void>;
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
    const idle: { at: number; ended: number }[] = [];
    let finished = 0;
    let spy!: SpyBackend;
    let checker!: InvariantChecker;
    const hooks: DriverHooks = {
      idle: () => idle.push({ at: spy.runOrder.length, ended: spy.ended.length }),
      finished: () => finished++,
    };
    // Put together as every run is (openRun), with the spy between the driver and the backend.
    const opened = openRun({
      graph,
      platform,
      backend: under.backend,
      scheduler: r.scheduler ?? 'eager',
      eviction: 'lru',
      model: new PlatformModel(platform, graph),
      seed: 1,
      engine: { ...under.engineOptions, ...r.engine },
      observers: (engine) => {
        checker = new InvariantChecker(engine);
        return failing.size === 0 && r.submit === undefined ? [checker] : [];
      },
      wrap: (backend, engine) => {
        spy = new SpyBackend(backend, engine, slack);
        return spy;
      },
      hooks,
    });
    const { engine, driver, stats } = opened;
    let values: Int32Array[] | undefined;
    try {
      const half = r.twoRounds ? Math.ceil(graph.taskCount / 2) : graph.taskCount;
      engine.open(spy.now());
      spy.start();
      if (r.submit) {
        await r.submit({ engine, driver, spy, under });
      } else {
        engine.submitted(spy.now(), half);
        if (half < graph.taskCount) {
          await driver.run(() => idle.length > 0);
          engine.submitted(spy.now());
        }
      }
      engine.close(spy.now());
      await driver.run(() => engine.isFinished);
      spy.finish();
      values = under.homeValues?.();
    } finally {
      await opened.backend.stop();
      await under.dispose?.();
    }
    assert.deepEqual(spy.violations, [], `${label(c)}: the backend broke its contract`);
    if (failing.size === 0) assert.deepEqual(driver.failures, [], `${label(c)}: tasks failed`);
    if (failing.size === 0 && r.submit === undefined) {
      assert.deepEqual(checker.violations, [], `${label(c)}: the oracle found violations`);
      assert.ok(checker.finished, `${label(c)}: the run did not finish`);
    }
    assert.ok(engine.isFinished, `${label(c)}: the engine is not finished`);
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
      for (const { graph, platform } of randomRuns()) {
        const r = await run(c, graph, platform, { scheduler: 'dmdar' });
        assert.ok(r.values, `${label(c)}: the backend gave no final data`);
        const expected = await sequentialValues(graph);
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

    caseTest('a recycled session runs every task once and computes what a sequential run does', async () => {
      const c = 'a recycled session runs every task once and computes what a sequential run does';
      // A session that submits a stream of tasks in batches and recycles finished tasks' records
      // while others run (Engine.compact, then the backend's, the driver's and the owner's
      // rebase), as a long Runtime session does: every id the backend holds shifts under it.
      const total = 480;
      const batch = 60;
      const graph = new TaskGraph();
      prepareStream(graph);
      let recycled = 0;
      const r = await run(c, graph, streamPlatform, {
        scheduler: 'dmdar',
        engine: { recycle: true },
        submit: async ({ engine, driver, spy, under }) => {
          let next = 0;
          while (next < total) {
            const from = graph.taskCount;
            for (let i = 0; i < batch && next < total; i++) addStreamTask(graph, next++);
            under.appended?.(from, graph.taskCount);
            assert.ok(graph.taskCount <= 3 * batch, `${label(c)}: the graph holds ${graph.taskCount} tasks`);
            engine.submitted(spy.now());
            // Recycle while the newest batch still runs: half of it has ended.
            const half = engine.submittedTasks - Math.floor(batch / 2);
            await driver.run(() => engine.finishedTasks >= half);
            const k = engine.compact(1);
            if (k > 0) {
              spy.rebase(k);
              driver.rebase(k);
              under.rebase?.(k);
              recycled += k;
            }
          }
        },
      });
      assert.ok(recycled >= total / 2, `${label(c)}: only ${recycled} tasks recycled`);
      assert.equal(graph.retired, recycled, `${label(c)}: the graph's retired count`);
      assert.deepEqual(
        [...r.spy.runOrder].sort((a, b) => a - b),
        Array.from({ length: total }, (_, t) => t),
        `${label(c)}: every task once`,
      );
      const values = r.values;
      if (values === undefined) return;
      // The kernels' results equal the stream's tasks run in submission order.
      const whole = new TaskGraph();
      prepareStream(whole);
      for (let i = 0; i < total; i++) addStreamTask(whole, i);
      const expected = await sequentialValues(whole);
      for (let h = 0; h < whole.handleCount; h++) {
        assert.deepEqual(values[h], expected[h], `${label(c)}: handle ${h} differs from the sequential run`);
      }
    });
  });
}

/** The final data of `graph`'s tasks run one after the other by the checksum kernel. */
async function sequentialValues(graph: TaskGraph): Promise<Int32Array[]> {
  const { checksum } = await import('../helpers/kernels.ts');
  const values = Array.from({ length: graph.handleCount }, (_, h) =>
    Int32Array.from({ length: graph.handleSize.data[h]! / 4 }, (_, k) => initialWord(h, k)),
  );
  for (let t = 0; t < graph.taskCount; t++) {
    checksum(
      graph.accesses(t).map(([h]) => values[h]!),
      Float64Array.from(checksumArgs(graph, t)),
    );
  }
  return values;
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
