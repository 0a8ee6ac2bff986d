/**
 * Property tests over random task graphs and platforms (fast-check): at every event no node
 * exceeds its capacity, tasks run after their predecessors on valid inputs holding the
 * sequential execution's values, the only latest copy is never dropped, the final data
 * equal the sequential execution's, and two runs with the same seed give identical traces;
 * half the runs submit the graph progressively through a window (the simulator's application
 * thread, SimOptions.submitWindow) where the scheduler takes tasks while it runs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { runtimeVersion } from '../src/coherence/versions.ts';
import { EVICTION_POLICIES } from '../src/evict/index.ts';
import { attachDisk, withHostMemory } from '../src/platform/disk.ts';
import { createScheduler, SCHEDULERS } from '../src/sched/index.ts';
import { testPlatform } from './helpers/platforms.ts';
import { buildGraph, graphSpecArb, machineArb, machinePlatform } from './helpers/random-graphs.ts';
import { checkedRun } from './helpers/run.ts';

const graphArb = graphSpecArb.map((spec) => ({ spec, toString: () => JSON.stringify(spec) }));

const platformArb = machineArb;

const runArb = fc.record({
  sched: fc.constantFrom(...Object.keys(SCHEDULERS)),
  eviction: fc.constantFrom(...Object.keys(EVICTION_POLICIES)),
  seed: fc.integer({ min: 0, max: 1000 }),
  gpuPipeline: fc.integer({ min: 1, max: 3 }),
  cpuPipeline: fc.integer({ min: 1, max: 2 }),
  gpuLookahead: fc.integer({ min: 0, max: 3 }),
  cleanFirst: fc.boolean(),
  hintEvery: fc.integer({ min: 0, max: 3 }),
  // Clean buffers: off half the time, else a minimum in [1, 100] and a target at or above it.
  minClean: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 })),
  targetExtra: fc.integer({ min: 0, max: 50 }),
  // Progressive submission (SimOptions.submitWindow) half the time, where the scheduler takes
  // tasks while it runs and the graph has no explicit dependency a window could submit late.
  submitWindow: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 })),
});

/** One draw of runArb. */
type RunParams = typeof runArb extends fc.Arbitrary<infer T> ? T : never;

/** The disk the out-of-core properties put below host memory, `latency` seconds per copy. */
function diskOf(latency: number) {
  return { name: 'disk', capacity: 1e12, readBandwidth: 5e8, writeBandwidth: 4e8, latency };
}

/**
 * The submission window of `run` on a graph built from `spec`: its window where the scheduler
 * takes tasks while it runs and the graph has no explicit dependency (added after every task,
 * they would reach tasks a window already submitted), else undefined (the whole graph at once).
 */
function windowOf(run: RunParams, spec: { explicit: readonly unknown[] }): number | undefined {
  const dynamic = createScheduler(run.sched).dynamic === true;
  return run.submitWindow > 0 && dynamic && spec.explicit.length === 0 ? run.submitWindow : undefined;
}

/**
 * Runs `run` on `g` and `platform` twice with the invariant checker: no violation, the run
 * finished, the two traces identical. Discards the case (fc.pre) when the eviction policy needs
 * a plan the scheduler does not make (LUF reads the planned tasks). Returns the first run.
 */
function checkedTwice(
  g: ReturnType<typeof buildGraph>['g'],
  platform: Parameters<typeof checkedRun>[1],
  run: RunParams,
  submitWindow: number | undefined,
) {
  fc.pre(run.eviction !== 'luf' || createScheduler(run.sched).plannedTasks !== undefined);
  const opts = { ...run, targetClean: Math.min(100, run.minClean + run.targetExtra), submitWindow };
  const first = checkedRun(g, platform, opts);
  assert.deepEqual(first.checker.violations, []);
  assert.ok(first.checker.finished, 'the run finished');
  const second = checkedRun(g, platform, opts);
  assert.deepEqual(second.checker.trace, first.checker.trace);
  return first;
}

test('invariants hold and runs are deterministic on random graphs and platforms', () => {
  fc.assert(
    fc.property(graphArb, platformArb, runArb, ({ spec }, pm, run) => {
      const built = buildGraph(spec, run.hintEvery);
      const g = built.g;
      const platform = machinePlatform(pm, built);
      const first = checkedTwice(g, platform, run, windowOf(run, spec));
      // The clean-buffer counts follow the replicas: all flushed, and one per allocated replica.
      const e = first.engine;
      const nn = platform.nodes.length;
      for (let n = 0; n < nn; n++) {
        let allocated = 0;
        for (let h = 0; h < e.knownHandleCount; h++) allocated += e.isAllocated(h, n) ? 1 : 0;
        assert.equal(e.memory.count[n], allocated, `replicas counted on node ${n}`);
        if (run.minClean > 0) assert.equal(e.memory.dirty[n], 0, `dirty replicas left on node ${n}`);
      }
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 300), seed: Number(process.env.PROPERTY_SEED ?? 42) },
  );
});

test('out of core: with a disk below a capped host memory, the invariants hold on random graphs and platforms', () => {
  fc.assert(
    fc.property(
      graphArb,
      platformArb,
      runArb,
      fc.integer({ min: 0, max: 6 }),
      fc.constantFrom(0, 1e-5),
      ({ spec }, pm, run, hostExtra, diskLatency) => {
        const built = buildGraph(spec, run.hintEvery);
        const g = built.g;
        // Host memory holds one task's data at least (a CPU task's), often much less than all.
        const host = built.maxFootprint + hostExtra * 1000;
        const platform = attachDisk(withHostMemory(machinePlatform(pm, built), host), diskOf(diskLatency));
        checkedTwice(g, platform, run, windowOf(run, spec));
      },
    ),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 150), seed: Number(process.env.PROPERTY_SEED ?? 42) },
  );
});

test('out of core without GPUs: the host levels (DARTS, hfp) keep the invariants on random graphs', () => {
  // CPU workers only, host memory capped above one task's data, the disk below it: DARTS and
  // hfp plan host memory (src/sched/darts/host-level.ts), the others run as on any machine.
  fc.assert(
    fc.property(
      graphArb,
      runArb,
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 0, max: 8 }),
      ({ spec }, run, cpus, hostExtra) => {
        fc.pre(run.sched !== 'static'); // binds tasks to GPUs: refuses a machine without one
        const cpuSpec = {
          ...spec,
          tasks: spec.tasks.map((t) => ({
            ...t,
            kinds: t.kinds.includes('cpu') ? t.kinds : (['cpu'] as const),
          })),
        };
        const built = buildGraph(cpuSpec, run.hintEvery);
        const host = built.maxFootprint + hostExtra * 1000;
        const platform = attachDisk(
          withHostMemory(testPlatform({ gpus: 0, gpuCapacity: 0, cpus }), host),
          diskOf(1e-5),
        );
        checkedTwice(built.g, platform, run, windowOf(run, cpuSpec));
      },
    ),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 150), seed: Number(process.env.PROPERTY_SEED ?? 42) },
  );
});

test("seed 004's coherence policies keep the invariants on random graphs and platforms", () => {
  fc.assert(
    fc.property(
      graphArb,
      platformArb,
      runArb,
      fc.record({
        version: fc.constantFrom('v1', 'v2', 'v3', 'v4'),
        cacheLines: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
        ownerSeed: fc.integer({ min: 0, max: 1 << 20 }),
      }),
      ({ spec }, pm, run, c) => {
        const built = buildGraph(spec);
        const g = built.g;
        const platform = machinePlatform(pm, built);
        const probe = createScheduler(run.sched);
        fc.pre(run.eviction !== 'luf' || probe.plannedTasks !== undefined);
        // Every handle owned by a GPU node (or none), drawn from the seed.
        const gpuNodes = platform.nodes.flatMap((n, i) => (n.kind === 'gpu' ? [i] : []));
        const owners = Int32Array.from({ length: g.handleCount }, (_, h) =>
          gpuNodes.length === 0 ? -1 : gpuNodes[(h * 2654435761 + c.ownerSeed) % gpuNodes.length]!,
        );
        const coherence = runtimeVersion(c.version, owners, c.cacheLines);
        const r = checkedRun(g, platform, { ...run, coherence, submitWindow: windowOf(run, spec) });
        assert.deepEqual(r.checker.violations, []);
        assert.ok(r.checker.finished, 'the run finished');
      },
    ),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 300), seed: Number(process.env.PROPERTY_SEED ?? 42) },
  );
});
