/**
 * What the conformance suites share: a checked simulated run (the value-checking oracle of
 * test/helpers/checker.ts plus the placement checks below, attached to every run), the skip
 * lists in the manner of Hono's router tests, fast-check settings, and the graph and platform
 * generators' variants the suites need (no GPU, no CPU, every task on one kind).
 * Everything goes through the policy interfaces (src/core/policy.ts) and the simulator.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { CoherenceOptions, Engine, EngineObserver } from '../../src/core/engine.ts';
import type { TaskGraph } from '../../src/core/graph.ts';
import { PlatformModel } from '../../src/core/model.ts';
import type { Platform } from '../../src/core/platform.ts';
import type { EvictionPolicy, Scheduler } from '../../src/core/policy.ts';
import { createEviction } from '../../src/evict/index.ts';
import { Simulator } from '../../src/sim/simulator.ts';
import { RunStats } from '../../src/trace/stats.ts';
import { InvariantChecker } from '../helpers/checker.ts';
import { buildGraph, type GraphSpec, graphSpecArb } from '../helpers/random-graphs.ts';

/** Cases a policy does not run, each group with the reason (printed as the test's skip reason). */
export interface SkipGroup<Case extends string> {
  /** Why: "static needs GPUs", "known bug: ...". */
  reason: string;
  /** The cases skipped for that reason. */
  tests: readonly Case[];
}

/**
 * The skip reason of `name`, or undefined when it runs; throws on a skip naming no case.
 * With CONFORMANCE_KNOWN_BUGS=1, cases skipped as "known bug: ..." run (to reproduce them).
 */
export function skipReason<Case extends string>(
  suite: string,
  all: readonly Case[],
  skip: readonly SkipGroup<Case>[] | undefined,
  name: Case,
): string | undefined {
  for (const group of skip ?? []) {
    for (const t of group.tests) {
      if (!all.includes(t)) throw new Error(`${suite}: skip names an unknown case '${t}'`);
    }
    if (!group.reason.trim()) throw new Error(`${suite}: a skip group has no reason`);
    const knownBug = group.reason.startsWith('known bug') && process.env.CONFORMANCE_KNOWN_BUGS === '1';
    if (group.tests.includes(name) && !knownBug) return group.reason;
  }
  return undefined;
}

/** fast-check parameters: PROPERTY_RUNS and PROPERTY_SEED as in test/engine-properties.test.ts. */
export function propertyParams(defaultRuns: number): { numRuns: number; seed: number } {
  return {
    numRuns: Number(process.env.PROPERTY_RUNS ?? defaultRuns),
    seed: Number(process.env.PROPERTY_SEED ?? 42),
  };
}

/**
 * Runs a fast-check property and, when it fails, rethrows with `label` (policy and case) in
 * front of fast-check's report (seed, path and counterexample to replay it).
 */
export function assertProperty<T>(label: string, arb: fc.Arbitrary<T>, body: (v: T) => void, runs: number) {
  try {
    fc.assert(fc.property(arb, body), propertyParams(runs));
  } catch (e) {
    const cause = (e as Error).cause;
    const why = cause instanceof Error ? `\n${cause.message}` : '';
    throw new Error(`${label}: ${(e as Error).message}${why}`);
  }
}

/** A random graph spec, printable when a property fails. */
export const specArb = graphSpecArb;

/** The spec with every codelet runnable on `kind` (so that a platform without the other works). */
export function specRunnableOn(spec: GraphSpec, kind: 'cpu' | 'gpu'): GraphSpec {
  return {
    ...spec,
    tasks: spec.tasks.map((t) => ({
      ...t,
      kinds: t.kinds.includes(kind) ? t.kinds : (['cpu', 'gpu'] as const),
    })),
  };
}

/** The spec with every task on one kind only (no task may run on the other). */
export function specOnly(spec: GraphSpec, kind: 'cpu' | 'gpu'): GraphSpec {
  return { ...spec, tasks: spec.tasks.map((t) => ({ ...t, kinds: [kind] as const })) };
}

/** Builds a random graph (see test/helpers/random-graphs.ts). */
export const graphOf = buildGraph;

/** Bytes of data `task` accesses at once. */
export function footprint(graph: TaskGraph, task: number): number {
  let bytes = 0;
  for (const [h] of graph.accesses(task)) bytes += graph.handleSize.data[h]!;
  return bytes;
}

/**
 * Placement checks every suite attaches: each task starts exactly once, on a worker of a kind
 * its codelet has, whose memory holds its whole footprint. Records the start order.
 */
export class PlacementObserver implements EngineObserver {
  readonly violations: string[] = [];
  /** Tasks in start order. */
  readonly order: number[] = [];
  /** Worker each task started on (-1 if none). */
  readonly workerOf: Int32Array;
  private readonly starts: Int32Array;

  constructor(
    private readonly graph: TaskGraph,
    private readonly platform: Platform,
  ) {
    this.starts = new Int32Array(graph.taskCount);
    this.workerOf = new Int32Array(graph.taskCount).fill(-1);
  }

  taskStarted(task: number, worker: number): void {
    const w = this.platform.workers[worker]!;
    const codelet = this.graph.codelets[this.graph.taskCodelet.data[task]!]!;
    this.order.push(task);
    this.workerOf[task] = worker;
    if (++this.starts[task]! === 2) this.fail(`task ${task} started twice`);
    if (!codelet.kinds.includes(w.kind))
      this.fail(
        `task ${task} (codelet ${codelet.name}: ${codelet.kinds.join('/')}) ran on ${w.kind} ${w.name}`,
      );
    const need = footprint(this.graph, task);
    const cap = this.platform.nodes[w.node]!.capacity;
    if (need > cap)
      this.fail(`task ${task} needs ${need} bytes but ran on ${w.name}, whose memory holds ${cap}`);
  }

  runFinished(): void {
    for (let t = 0; t < this.graph.taskCount; t++)
      if (this.starts[t] === 0) this.fail(`task ${t} never started`);
  }

  private fail(msg: string): void {
    if (this.violations.length < 20) this.violations.push(msg);
  }
}

/** Options of one conformance run. */
export interface ConformanceRun {
  scheduler: Scheduler;
  eviction?: EvictionPolicy | string;
  seed?: number;
  gpuPipeline?: number;
  cpuPipeline?: number;
  gpuLookahead?: number;
  /** Evict clean replicas first (default true). */
  cleanFirst?: boolean;
  /** StarPU's minimum clean share, percent (default 0: off); targetClean = min(100, it + targetExtra). */
  minClean?: number;
  /** Percent points of targetClean above minClean. */
  targetExtra?: number;
  coherence?: CoherenceOptions;
  flushAtEnd?: boolean;
  /** Submit progressively, at most this many tasks submitted and not ended (default: all at once). */
  submitWindow?: number;
  /** Extra observers, built once the engine exists (they may query its replica states). */
  observers?: EngineObserver[] | ((engine: Engine) => EngineObserver[]);
}

/**
 * Simulates `graph` on `platform` with the value-checking oracle and the placement checks,
 * and asserts that both found nothing and the run finished; `label` names policy and case.
 */
export function oracleRun(label: string, graph: TaskGraph, platform: Platform, o: ConformanceRun) {
  const sim = new Simulator({
    graph,
    platform,
    scheduler: o.scheduler,
    eviction: typeof o.eviction === 'object' ? o.eviction : createEviction(o.eviction ?? 'lru'),
    model: new PlatformModel(platform, graph),
    seed: o.seed ?? 1,
    gpuPipeline: o.gpuPipeline,
    cpuPipeline: o.cpuPipeline,
    gpuLookahead: o.gpuLookahead,
    cleanFirst: o.cleanFirst,
    minClean: o.minClean,
    targetClean: o.minClean === undefined ? undefined : Math.min(100, o.minClean + (o.targetExtra ?? 0)),
    coherence: o.coherence,
    flushAtEnd: o.flushAtEnd,
    submitWindow: o.submitWindow,
  });
  const checker = new InvariantChecker(sim.engine);
  const stats = new RunStats(sim.engine);
  const placement = new PlacementObserver(graph, platform);
  sim.engine.observe(checker).observe(stats).observe(placement);
  const extra = typeof o.observers === 'function' ? o.observers(sim.engine) : (o.observers ?? []);
  for (const x of extra) sim.engine.observe(x);
  const result = sim.run();
  // Without the final flush, modified data may end on a device: the home check does not apply.
  const homeCheck = /^handle \d+ (not valid at home|ends with)/;
  const violations =
    o.flushAtEnd === false ? checker.violations.filter((v) => !homeCheck.test(v)) : checker.violations;
  assert.deepEqual(violations, [], `${label}: the oracle found violations`);
  assert.deepEqual(placement.violations, [], `${label}: placement violations`);
  assert.ok(checker.finished, `${label}: the run did not finish`);
  return { checker, stats, result, placement, engine: sim.engine };
}

/** Run parameters drawn by the property cases. */
export const runParamsArb = fc.record({
  seed: fc.integer({ min: 0, max: 1000 }),
  gpuPipeline: fc.integer({ min: 1, max: 3 }),
  cpuPipeline: fc.integer({ min: 1, max: 2 }),
  gpuLookahead: fc.integer({ min: 0, max: 3 }),
  cleanFirst: fc.boolean(),
  // StarPU's clean-buffer knobs: off most of the time, sometimes on, sometimes everything clean.
  minClean: fc.constantFrom(0, 0, 25, 100),
  targetExtra: fc.integer({ min: 0, max: 50 }),
  // wontUse hints on the first datum of every k-th task (0: none); see buildGraph.
  hintEvery: fc.constantFrom(0, 0, 1, 3),
});
