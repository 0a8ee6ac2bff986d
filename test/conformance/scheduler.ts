/**
 * The scheduler conformance suite (in the manner of Hono's shared router tests): every
 * scheduler's test file calls runSchedulerConformance with a factory, and skips cases only
 * with a reason. Each case simulates with the value-checking oracle attached (memory never
 * over capacity, inputs valid with the sequential value, the only latest copy never dropped,
 * final data equal to a sequential run) and the placement checks (each task once, on a worker
 * of its kind whose memory holds it).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { EngineObserver } from '../../src/core/engine.ts';
import { TaskGraph } from '../../src/core/graph.ts';
import type { Scheduler } from '../../src/core/policy.ts';
import { AccessMode, LocusError } from '../../src/core/types.ts';
import { EVICTION_POLICIES } from '../../src/evict/index.ts';
import { generateWorkload, WORKLOADS } from '../../src/workloads/index.ts';
import { testPlatform } from '../helpers/platforms.ts';
import { machineArb, machinePlatform } from '../helpers/random-graphs.ts';
import { comparableReport, runStream } from '../helpers/stream-source.ts';
import {
  assertProperty,
  footprint,
  graphOf,
  oracleRun,
  runParamsArb,
  type SkipGroup,
  skipReason,
  specArb,
  specOnly,
  specRunnableOn,
} from './harness.ts';

/** The cases of the scheduler suite. */
export const SCHEDULER_CASES = [
  'oracle on random graphs and platforms',
  'same seed, same trace',
  'codelet kinds respected',
  'a task too large for a GPU never goes there',
  'a GPU memory that fits exactly one task',
  'no GPU',
  'no CPU',
  'empty graph',
  'independent tasks',
  'a chain',
  'priorities first',
  'every workload generator, small',
  'tasks submitted while the engine runs',
  'a recycled stream runs as the same stream kept whole',
] as const;

/** One case of SCHEDULER_CASES. */
export type SchedulerCase = (typeof SCHEDULER_CASES)[number];

/** Options of runSchedulerConformance. */
export interface SchedulerConformance {
  /** The policy's name (in test names and failure messages). */
  name: string;
  /** A fresh scheduler per run. */
  create: () => Scheduler;
  /** Cases not run, with their reasons. */
  skip?: readonly SkipGroup<SchedulerCase>[];
  /** fast-check runs per property case (default 25; PROPERTY_RUNS overrides). */
  runs?: number;
}

const { R, W, RW } = AccessMode;

/** Registers the suite for one scheduler under describe('scheduler conformance: NAME'). */
export function runSchedulerConformance(o: SchedulerConformance): void {
  const runs = o.runs ?? 25;
  const label = (c: SchedulerCase) => `[scheduler ${o.name}] ${c}`;
  // Eviction policies this scheduler works with (LUF reads planned tasks).
  const evictions = Object.keys(EVICTION_POLICIES).filter(
    (e) => e !== 'luf' || o.create().plannedTasks !== undefined,
  );
  const caseTest = (c: SchedulerCase, fn: () => void) => {
    const reason = skipReason(`scheduler ${o.name}`, SCHEDULER_CASES, o.skip, c);
    test(c, reason ? { skip: reason } : {}, fn);
  };

  describe(`scheduler conformance: ${o.name}`, () => {
    caseTest('oracle on random graphs and platforms', () => {
      const c = 'oracle on random graphs and platforms';
      assertProperty(
        label(c),
        fc.tuple(specArb, machineArb, runParamsArb, fc.constantFrom(...evictions)),
        ([spec, m, run, eviction]) => {
          const built = graphOf(spec, run.hintEvery);
          oracleRun(label(c), built.g, machinePlatform(m, built), {
            ...run,
            scheduler: o.create(),
            eviction,
          });
        },
        runs,
      );
    });

    caseTest('same seed, same trace', () => {
      const c = 'same seed, same trace';
      assertProperty(
        label(c),
        fc.tuple(specArb, machineArb, runParamsArb),
        ([spec, m, run]) => {
          const built = graphOf(spec, run.hintEvery);
          const platform = machinePlatform(m, built);
          const a = oracleRun(label(c), built.g, platform, { ...run, scheduler: o.create() });
          const b = oracleRun(label(c), built.g, platform, { ...run, scheduler: o.create() });
          assert.deepEqual(
            b.checker.trace,
            a.checker.trace,
            `${label(c)}: two runs with seed ${run.seed} differ`,
          );
        },
        runs,
      );
    });

    caseTest('codelet kinds respected', () => {
      // Both kinds of workers present; the placement observer fails a task on a wrong kind.
      const c = 'codelet kinds respected';
      assertProperty(
        label(c),
        fc.tuple(specArb, machineArb, runParamsArb),
        ([spec, m, run]) => {
          const built = graphOf(spec, run.hintEvery);
          const platform = machinePlatform({ ...m, cpus: Math.max(1, m.cpus) }, built);
          const r = oracleRun(label(c), built.g, platform, { ...run, scheduler: o.create() });
          for (let t = 0; t < built.g.taskCount; t++) {
            const kinds = built.g.codelets[built.g.taskCodelet.data[t]!]!.kinds;
            const kind = platform.workers[r.placement.workerOf[t]!]!.kind;
            assert.ok(kinds.includes(kind), `${label(c)}: task ${t} (${kinds.join('/')}) ran on a ${kind}`);
          }
        },
        runs,
      );
    });

    caseTest('a task too large for a GPU never goes there', () => {
      // GPU 0 holds less than the largest task; GPU 1 holds every task; one CPU worker.
      const c = 'a task too large for a GPU never goes there';
      assertProperty(
        label(c),
        fc.tuple(specArb, runParamsArb, fc.integer({ min: 1, max: 3 })),
        ([spec, run, extra]) => {
          const built = graphOf(spec, run.hintEvery);
          const small = Math.floor(built.maxFootprint / 2);
          const platform = testPlatform({
            gpus: 2,
            gpuCapacity: [small, built.maxFootprint + extra * 1000],
            cpus: 1,
          });
          const r = oracleRun(label(c), built.g, platform, { ...run, scheduler: o.create() });
          let large = 0;
          for (let t = 0; t < built.g.taskCount; t++) {
            const bytes = footprint(built.g, t);
            if (bytes <= small) continue;
            large++;
            assert.notEqual(
              r.placement.workerOf[t],
              0,
              `${label(c)}: task ${t} (${bytes} B) ran on gpu0 (${small} B)`,
            );
          }
          assert.ok(large > 0, `${label(c)}: the case has no large task`);
        },
        runs,
      );
    });

    caseTest('a GPU memory that fits exactly one task', () => {
      // The GPU runs everything not CPU-only (every GPU-only task and, with no CPU, the rest).
      const c = 'a GPU memory that fits exactly one task';
      assertProperty(
        label(c),
        fc.tuple(specArb, runParamsArb),
        ([spec, run]) => {
          const built = graphOf(spec, run.hintEvery);
          const platform = testPlatform({
            gpus: 1,
            gpuCapacity: built.maxFootprint,
            cpus: built.needsCpu ? 1 : 0,
          });
          oracleRun(label(c), built.g, platform, { ...run, scheduler: o.create() });
        },
        runs,
      );
    });

    caseTest('no GPU', () => {
      const c = 'no GPU';
      assertProperty(
        label(c),
        fc.tuple(specArb, runParamsArb, fc.integer({ min: 1, max: 3 })),
        ([spec, run, cpus]) => {
          const built = graphOf(specRunnableOn(spec, 'cpu'));
          const platform = testPlatform({ gpus: 0, gpuCapacity: 0, cpus });
          oracleRun(label(c), built.g, platform, { ...run, scheduler: o.create() });
        },
        runs,
      );
    });

    caseTest('no CPU', () => {
      const c = 'no CPU';
      assertProperty(
        label(c),
        fc.tuple(specArb, machineArb, runParamsArb),
        ([spec, m, run]) => {
          const built = graphOf(specRunnableOn(spec, 'gpu'));
          const platform = machinePlatform({ ...m, cpus: 0 }, built);
          assert.equal(platform.workers.filter((w) => w.kind === 'cpu').length, 0);
          oracleRun(label(c), built.g, platform, { ...run, scheduler: o.create() });
        },
        runs,
      );
    });

    caseTest('empty graph', () => {
      const c = 'empty graph';
      const g = new TaskGraph();
      g.addHandle(1000);
      g.addHandle(2000);
      const transfers: number[] = [];
      const seen: EngineObserver = { transferStarted: (id) => transfers.push(id) };
      const platform = testPlatform({ gpus: 2, gpuCapacity: 4000, cpus: 1 });
      const r = oracleRun(label(c), g, platform, { scheduler: o.create(), observers: [seen] });
      assert.equal(r.placement.order.length, 0, `${label(c)}: tasks ran`);
      assert.deepEqual(transfers, [], `${label(c)}: transfers were issued`);
      assert.equal(r.result.makespanS, 0, `${label(c)}: makespan`);
    });

    caseTest('independent tasks', () => {
      // 16 tasks, each updating its own datum; CPU-only, GPU-only and both, on 2 small GPUs.
      const c = 'independent tasks';
      const g = new TaskGraph();
      const kinds = [
        g.addCodelet({ name: 'cg', kinds: ['cpu', 'gpu'] }),
        g.addCodelet({ name: 'g', kinds: ['gpu'] }),
        g.addCodelet({ name: 'c', kinds: ['cpu'] }),
      ];
      for (let t = 0; t < 16; t++) {
        const h = g.addHandle(1000);
        g.submit(kinds[t % 3]!, [[h, RW]], { flops: 1e6 * (1 + (t % 4)), priority: t % 3 });
      }
      for (const [gpus, cpus] of [
        [2, 2],
        [1, 1],
      ] as const) {
        const platform = testPlatform({ gpus, gpuCapacity: 2000, cpus });
        for (const seed of [1, 2, 3]) {
          const r = oracleRun(`${label(c)} (${gpus} GPUs, seed ${seed})`, g, platform, {
            scheduler: o.create(),
            seed,
          });
          assert.equal(r.placement.order.length, 16, `${label(c)}: tasks started`);
        }
      }
    });

    caseTest('a chain', () => {
      // 12 tasks updating datum 0 in turn, each also reading its own datum: the order is forced.
      const c = 'a chain';
      const g = new TaskGraph();
      const cg = g.addCodelet({ name: 'cg', kinds: ['cpu', 'gpu'] });
      const acc = g.addHandle(1000);
      for (let t = 0; t < 12; t++) {
        const h = g.addHandle(1000);
        g.submit(
          cg,
          t % 4 === 3
            ? [[acc, RW]]
            : [
                [acc, RW],
                [h, R],
              ],
          { flops: 1e6 },
        );
        if (t % 5 === 4) g.submit(cg, [[h, W]], { flops: 1e6 }); // a write-only access too
      }
      for (const p2p of [false, true]) {
        const platform = testPlatform({ gpus: 2, gpuCapacity: 2000, cpus: 1, p2p });
        for (const seed of [1, 2]) {
          const r = oracleRun(`${label(c)} (p2p ${p2p}, seed ${seed})`, g, platform, {
            scheduler: o.create(),
            seed,
          });
          const onAcc = r.placement.order.filter((t) => g.accesses(t).some(([h]) => h === acc));
          assert.deepEqual(
            onAcc,
            [...onAcc].sort((a, b) => a - b),
            `${label(c)}: the chain on datum 0 ran out of order`,
          );
        }
      }
    });

    caseTest('every workload generator, small', () => {
      // The generators' graphs (blocks for owner-computes mappings, stencil parts and phases,
      // scratch outputs) on 2 GPUs holding one and a half of the largest task, and a CPU.
      const c = 'every workload generator, small';
      for (const name of Object.keys(WORKLOADS)) {
        const wl = generateWorkload(name, {
          tiles: 3,
          tileSize: 16,
          iterations: 2,
          tasks: 30,
          data: 8,
          degree: 2,
        });
        let most = 0;
        for (let t = 0; t < wl.graph.taskCount; t++) most = Math.max(most, footprint(wl.graph, t));
        const platform = testPlatform({ gpus: 2, gpuCapacity: Math.ceil(most * 1.5), cpus: 1 });
        oracleRun(`${label(c)}: ${wl.summary}`, wl.graph, platform, { scheduler: o.create() });
      }
    });

    caseTest('tasks submitted while the engine runs', () => {
      // The simulator's application thread submits with a window of 1 to 8 tasks (StarPU's
      // STARPU_LIMIT_MAX_SUBMITTED_TASKS, --submit-window), under every eviction policy the
      // scheduler works with: a dynamic scheduler passes the oracle; one that is not refuses
      // the second submission with one clear LocusError. Without explicit dependencies: the
      // random graphs add them after every task, out of the target order the engine's
      // windowed intake reads edges in (it refuses them: "a dependency was added to task").
      const c = 'tasks submitted while the engine runs';
      const dynamic = o.create().dynamic === true;
      assertProperty(
        label(c),
        fc.tuple(
          specArb,
          machineArb,
          runParamsArb,
          fc.integer({ min: 1, max: 8 }),
          fc.constantFrom(...evictions),
        ),
        ([spec, m, run, window, eviction]) => {
          const built = graphOf({ ...spec, explicit: [] });
          const platform = machinePlatform(m, built);
          const go = () =>
            oracleRun(label(c), built.g, platform, {
              ...run,
              scheduler: o.create(),
              eviction,
              submitWindow: window,
            });
          if (dynamic || window >= built.g.taskCount) {
            const r = go();
            assert.equal(r.placement.order.length, built.g.taskCount, `${label(c)}: tasks started`);
            return;
          }
          assert.throws(
            go,
            (e: unknown) =>
              e instanceof LocusError &&
              /does not take tasks submitted while the engine runs/.test(e.message) &&
              !e.message.includes('\n'),
            `${label(c)}: a scheduler that is not dynamic took a submission window`,
          );
        },
        runs,
      );
    });

    caseTest('a recycled stream runs as the same stream kept whole', () => {
      // An endless stream must run in bounded memory whatever the policy: a dynamic scheduler
      // implements rebase, and 12,000 tasks through a window of 200 (the engine recycles from
      // 4,096 ended tasks on) give the same report with finished tasks' records recycled as
      // with every record kept, under each eviction policy it works with. A scheduler that is
      // not dynamic refuses the stream in one line (a whole-graph policy cannot stream).
      const c = 'a recycled stream runs as the same stream kept whole';
      if (o.create().dynamic !== true) {
        assert.throws(
          () => runStream(12_000, 200, o.create(), undefined, true),
          (e: unknown) => e instanceof LocusError && !e.message.includes('\n'),
          `${label(c)}: a scheduler that is not dynamic took a stream`,
        );
        return;
      }
      assert.ok(o.create().rebase !== undefined, `${label(c)}: a dynamic scheduler without rebase`);
      for (const eviction of evictions) {
        const kept = runStream(12_000, 200, o.create(), eviction, false);
        const recycled = runStream(12_000, 200, o.create(), eviction, true);
        assert.equal(kept.graph.retired, 0);
        assert.ok(recycled.graph.retired > 0, `${label(c)} (${eviction}): nothing recycled`);
        assert.deepEqual(
          comparableReport(recycled.report),
          comparableReport(kept.report),
          `${label(c)} (${eviction}): the recycled run differs`,
        );
      }
    });

    caseTest('priorities first', () => {
      // One CPU worker holding one task: each task it starts has the highest priority among the
      // tasks whose predecessors have all finished.
      const c = 'priorities first';
      assertProperty(
        label(c),
        fc.tuple(specArb, fc.integer({ min: 0, max: 1000 })),
        ([spec, seed]) => {
          const { g } = graphOf(specOnly(spec, 'cpu'));
          const platform = testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 1 });
          const check = new PriorityObserver(g);
          oracleRun(label(c), g, platform, {
            scheduler: o.create(),
            seed,
            cpuPipeline: 1,
            observers: [check],
          });
          assert.deepEqual(check.violations, [], `${label(c)}: a lower priority ran first`);
        },
        runs,
      );
    });
  });
}

/** Checks, with one worker, that each started task has the top priority among the ready ones. */
class PriorityObserver implements EngineObserver {
  readonly violations: string[] = [];
  private readonly left: Int32Array;
  private readonly started: Uint8Array;

  constructor(private readonly g: TaskGraph) {
    this.left = new Int32Array(g.taskCount);
    for (let t = 0; t < g.taskCount; t++) for (const s of g.successors(t)) this.left[s]!++;
    this.started = new Uint8Array(g.taskCount);
  }

  taskStarted(task: number): void {
    const prio = this.g.taskPriority.data;
    for (let t = 0; t < this.g.taskCount; t++) {
      if (this.left[t] === 0 && !this.started[t] && prio[t]! > prio[task]! && this.violations.length < 5)
        this.violations.push(
          `task ${task} (priority ${prio[task]}) started while task ${t} (priority ${prio[t]}) was ready`,
        );
    }
    this.started[task] = 1;
  }

  taskFinished(task: number): void {
    for (const s of this.g.successors(task)) this.left[s]!--;
  }
}
