/**
 * hfp on graphs of accumulation chains (src/sched/hfp/chains.ts, chain-runner.ts): which
 * graphs are chains, the exact packages and loads on a hand-sized 3-D GEMM, the wontUse hint
 * for a finished chain's accumulator, and oracle-checked runs of the tiled GEMM
 * under memory pressure (with and without clean first, with CPU workers, and random sizes,
 * platforms and run parameters).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { TaskGraph } from '../src/core/graph.ts';
import { AccessMode } from '../src/core/types.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { ChainRunner } from '../src/sched/hfp/chain-runner.ts';
import { findChains, planChains } from '../src/sched/hfp/chains.ts';
import { HfpScheduler } from '../src/sched/hfp.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { assertProperty, oracleRun, runParamsArb } from './conformance/harness.ts';
import { testPlatform } from './helpers/platforms.ts';

/** GEMM task names of `tasks`, e.g. '0,1,2' for GEMM(0,1,2). */
const names = (g: TaskGraph, tasks: ArrayLike<number>) =>
  Array.from(tasks, (t) => g.taskNames[t]!.slice(5, -1));

describe('hfp chains: which graphs', () => {
  test('3-D GEMM: one chain per C block, its tasks in k order, inputs A and B', () => {
    const { graph } = generateWorkload('gemm', { tiles: 3, tileSize: 8 });
    const c = findChains(graph)!;
    assert.equal(c.count, 9);
    const first = c.tasks.slice(c.start[1]!, c.start[2]!);
    assert.deepEqual(names(graph, first), ['0,1,0', '0,1,1', '0,1,2']);
    assert.deepEqual(
      Array.from(first, (t) => c.stepOf[t]),
      [0, 1, 2],
    );
    const t = first[2]!;
    assert.deepEqual(
      Array.from(c.inputs.slice(c.inStart[t]!, c.inStart[t + 1]!), (h) => graph.handleLabel(h)),
      ['A[0,2]', 'B[2,1]'],
    );
    assert.equal(graph.handleLabel(c.acc[1]!), 'C[0,1]');
  });

  test('not chains: Cholesky, a task writing two data, an accumulator read by another chain', () => {
    assert.equal(findChains(generateWorkload('cholesky', { tiles: 3, tileSize: 8 }).graph), undefined);
    const two = new TaskGraph();
    const cl = two.addCodelet({ name: 'k', kinds: ['gpu'] });
    const [a, b] = [two.addHandle(8), two.addHandle(8)];
    two.submit(cl, [
      [a, AccessMode.RW],
      [b, AccessMode.W],
    ]);
    assert.equal(findChains(two), undefined);
    const read = new TaskGraph();
    const rc = read.addCodelet({ name: 'k', kinds: ['gpu'] });
    const [x, y] = [read.addHandle(8), read.addHandle(8)];
    read.submit(rc, [[x, AccessMode.RW]]);
    read.submit(rc, [
      [x, AccessMode.R],
      [y, AccessMode.RW],
    ]);
    assert.equal(findChains(read), undefined);
  });
});

describe('hfp chains: packages', () => {
  test('6 x 6 GEMM, unit data, budget 15: four 3 x 3 packages, 180 loads, step-major', () => {
    // A 3 x 3 block needs 9 accumulators + (3 + 3) step inputs = 15; 3 x 4 needs 19.
    const { graph } = generateWorkload('gemm', { tiles: 6, tileSize: 8 });
    const chains = findChains(graph)!;
    const plan = planChains({
      chains,
      size: new Array<number>(graph.handleCount).fill(1),
      handles: graph.handleCount,
      budget: [15, 15],
      duration: () => 1,
    })!;
    assert.equal(plan.packages, 4);
    // Each package: 9 C blocks + 6 steps x (3 + 3) inputs.
    assert.equal(plan.loadedBytes, 4 * (9 + 36));
    const block = (c: number) => `${Math.floor(c / 6)}${c % 6}`;
    assert.deepEqual(Array.from(plan.chainsOf[0]!, block), [
      ...['00', '01', '10', '11', '02', '12', '20', '21', '22'],
      ...['30', '31', '40', '41', '32', '42', '50', '51', '52'],
    ]);
    assert.deepEqual(Array.from(plan.chainsOf[1]!, block), [
      ...['03', '04', '13', '14', '05', '15', '23', '24', '25'],
      ...['33', '34', '43', '44', '35', '45', '53', '54', '55'],
    ]);
    // GPU 0 runs step 0 of its first package's 9 chains, then step 1.
    assert.deepEqual(names(graph, plan.order[0]!.slice(0, 10)), [
      ...['0,0,0', '0,1,0', '1,0,0', '1,1,0', '0,2,0', '1,2,0', '2,0,0', '2,1,0', '2,2,0'],
      '0,0,1',
    ]);
    assert.equal(plan.order[0]!.length + plan.order[1]!.length, 216);
  });

  test('a chain alone larger than the budget: no plan', () => {
    const { graph } = generateWorkload('gemm', { tiles: 4, tileSize: 8 });
    const plan = planChains({
      chains: findChains(graph)!,
      size: new Array<number>(graph.handleCount).fill(1),
      handles: graph.handleCount,
      // One chain: 1 accumulator + 2 step inputs = 3.
      budget: [2, 100],
      duration: () => 1,
    });
    assert.equal(plan, undefined);
  });
});

describe('hfp chains: run time', () => {
  test('a GPU with nothing ready steals the chain its victim reaches last, whole', () => {
    // 2 x 2 GEMM, one package per GPU by hand: GPU 0 owns every chain, GPU 1 none.
    const { graph } = generateWorkload('gemm', { tiles: 2, tileSize: 8 });
    const chains = findChains(graph)!;
    const platform = testPlatform({ gpus: 2, gpuCapacity: 1e9 });
    const ctx = {
      graph,
      platform,
      taskDuration: () => 1,
      canRun: () => true,
    } as unknown as ConstructorParameters<typeof ChainRunner>[0];
    const order = Int32Array.from([0, 2, 4, 6, 1, 3, 5, 7]); // step-major over chains 0..3
    const runner = new ChainRunner(
      ctx,
      chains,
      {
        order: [order, new Int32Array(0)],
        chainsOf: [Int32Array.from([0, 1, 2, 3]), new Int32Array(0)],
        packages: 1,
        loadedBytes: 0,
      },
      [0, 1],
      new Uint8Array(8),
    );
    for (const t of [0, 2, 4, 6]) runner.push(t);
    assert.equal(runner.pop(0), 0);
    // GPU 1: 0 + 2 < 7 - 2: it takes chain 3 (C[1,1]), the last, not started.
    assert.equal(runner.pop(1), 6);
    assert.deepEqual([...runner.planned(1)], [7]);
    assert.deepEqual([...runner.planned(0)], [2, 4, 1, 3, 5]);
    // Again: 1 + 2 < 5 - 2 is false: no steal, GPU 1 waits for its chain.
    assert.equal(runner.pop(1), -1);
    runner.push(7);
    assert.equal(runner.pop(1), 7);
    // GPU 0's plan skips the stolen chain's tasks.
    assert.equal(runner.pop(0), 2);
    assert.equal(runner.pop(0), 4);
    assert.equal(runner.pop(0), -1);
  });

  test("a chain's last task ending gives the engine a wontUse hint for its accumulator, once", () => {
    const { graph } = generateWorkload('gemm', { tiles: 2, tileSize: 8 });
    const chains = findChains(graph)!;
    const hinted: number[] = [];
    const ctx = {
      graph,
      platform: testPlatform({ gpus: 2, gpuCapacity: 1e9 }),
      taskDuration: () => 1,
      canRun: () => true,
      wontUse: (h: number) => hinted.push(h),
    } as unknown as ConstructorParameters<typeof ChainRunner>[0];
    const runner = new ChainRunner(
      ctx,
      chains,
      {
        order: [Int32Array.from([0, 2, 4, 6, 1, 3, 5, 7]), new Int32Array(0)],
        chainsOf: [Int32Array.from([0, 1, 2, 3]), new Int32Array(0)],
        packages: 1,
        loadedBytes: 0,
      },
      [0, 1],
      new Uint8Array(8),
    );
    // Chain c is tasks 2c (step 0) then 2c + 1 (step 1): only the second ends the chain.
    for (const t of [0, 2, 4, 6]) runner.finished(t);
    assert.deepEqual(hinted, []);
    for (const t of [3, 1, 7, 5]) runner.finished(t);
    assert.deepEqual(
      hinted,
      [3, 1, 7, 5].map((t) => chains.acc[chains.chainOf[t]!]!),
    );
    assert.equal(new Set(hinted).size, 4, 'four distinct C blocks');
  });
});

describe('hfp chains: tiled GEMM under memory pressure', () => {
  // 8 x 8 tiles of 64 x 64 single (16 KiB): 192 tiles, 3 MiB, 3 times 2 GPUs of 512 KiB.
  const { graph } = generateWorkload('gemm', { tiles: 8, tileSize: 64 });
  const KiB = 1024;

  for (const cleanFirst of [true, false]) {
    test(`oracle-checked, every task once, fewer bytes than darts+luf (clean first ${cleanFirst})`, () => {
      const platform = resolvePlatform('v100x2', { gpus: 2, gpuMem: 512 * KiB });
      const hfp = new HfpScheduler();
      const r = oracleRun('hfp gemm', graph, platform, {
        scheduler: hfp,
        eviction: hfp.evictionPolicy(),
        cleanFirst,
      });
      assert.equal(r.placement.order.length, 512);
      assert.equal(hfp.planStats!.packTasks, 512);
      const mine = simulate({ graph, platform, scheduler: 'hfp', cleanFirst }).report;
      const darts = simulate({ graph, platform, scheduler: 'darts', eviction: 'luf', cleanFirst }).report;
      assert.ok(
        mine.bytesToDevices < darts.bytesToDevices,
        `${mine.bytesToDevices} vs ${darts.bytesToDevices}`,
      );
    });
  }

  test('clean first costs hfp at most 3% more loads (finished C blocks leave before planned inputs)', () => {
    // 12 x 12 tiles (6.6 times the GPUs' memory). Without the runner's wontUse hints for
    // finished C blocks, clean first kept those dirty blocks and evicted the A and B blocks
    // the plan still needed, which were loaded again.
    const big = generateWorkload('gemm', { tiles: 12, tileSize: 64 }).graph;
    const platform = resolvePlatform('v100x2', { gpus: 2, gpuMem: 512 * KiB });
    const on = simulate({ graph: big, platform, scheduler: 'hfp', cleanFirst: true }).report;
    const off = simulate({ graph: big, platform, scheduler: 'hfp', cleanFirst: false }).report;
    assert.ok(
      on.bytesToDevices <= 1.03 * off.bytesToDevices,
      `${on.bytesToDevices} vs ${off.bytesToDevices}`,
    );
  });

  test('CPU workers beside the GPUs: oracle-checked, every task once', () => {
    const platform = testPlatform({ gpus: 2, cpus: 2, gpuCapacity: 512 * KiB, cpuRate: 5e11 });
    const hfp = new HfpScheduler();
    const r = oracleRun('hfp gemm cpus', graph, platform, { scheduler: hfp, eviction: hfp.evictionPolicy() });
    assert.equal(r.placement.order.length, 512);
    assert.ok(
      Array.from(r.placement.workerOf).some((w) => platform.workers[w]!.kind === 'cpu'),
      'no CPU worker ran a task',
    );
  });
});

describe('hfp chains: property', () => {
  test('random GEMMs under memory pressure, 1 to 3 GPUs, 0 to 2 CPUs: oracle-checked, chains planned', () => {
    // Tiles of 16 x 16 single (1 KiB); GPU memory 12 to 40 tiles, under the 3 N^2 tiles.
    const arb = fc.record({
      tiles: fc.integer({ min: 3, max: 7 }),
      gpus: fc.integer({ min: 1, max: 3 }),
      cpus: fc.integer({ min: 0, max: 2 }),
      memTiles: fc.integer({ min: 12, max: 26 }),
      run: runParamsArb,
    });
    assertProperty(
      'hfp chains',
      arb,
      ({ tiles, gpus, cpus, memTiles, run }) => {
        const { graph } = generateWorkload('gemm', { tiles, tileSize: 16 });
        const platform = testPlatform({ gpus, cpus, gpuCapacity: memTiles * 1024, cpuRate: 2e11 });
        const hfp = new HfpScheduler();
        const r = oracleRun('hfp chains', graph, platform, {
          ...run,
          scheduler: hfp,
          eviction: hfp.evictionPolicy(),
        });
        assert.equal(r.placement.order.length, tiles ** 3);
        // Planned as chains whenever the data exceed the GPUs' memory.
        if (3 * tiles * tiles > gpus * memTiles) assert.equal(hfp.planStats?.packTasks, tiles ** 3);
      },
      20,
    );
  });
});
