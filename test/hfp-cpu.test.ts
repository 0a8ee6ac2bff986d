/**
 * hfp with CPU workers beside the GPUs (src/sched/hfp/cpu-rule.ts, chain-runner.ts): HEFT's
 * earliest-finish-time rule decides what a CPU takes. Hand-built cases with exact placements:
 * a CPU fast enough to end one chain of a GEMM chain plan before the GPUs would takes exactly
 * that chain (the last of a plan) and the run ends earlier; a CPU too slow takes nothing and
 * the run is the GPUs-only run; on Cholesky a CPU takes only the POTRFs it runs faster.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TaskGraph } from '../src/core/graph.ts';
import type { Platform } from '../src/core/platform.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { ChainRunner } from '../src/sched/hfp/chain-runner.ts';
import { findChains } from '../src/sched/hfp/chains.ts';
import { HfpScheduler } from '../src/sched/hfp.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { oracleRun } from './conformance/harness.ts';
import { testPlatform } from './helpers/platforms.ts';

/** Oracle-checked hfp run: the makespan and the names of the tasks each CPU worker ran. */
function run(graph: TaskGraph, platform: Platform) {
  const hfp = new HfpScheduler();
  const r = oracleRun('hfp cpus', graph, platform, { scheduler: hfp, eviction: hfp.evictionPolicy() });
  const cpuTasks = new Map<string, string[]>();
  r.placement.workerOf.forEach((w, t) => {
    const worker = platform.workers[w]!;
    if (worker.kind !== 'cpu') return;
    const list = cpuTasks.get(worker.name) ?? [];
    cpuTasks.set(worker.name, list);
    list.push(graph.taskNames[t]!);
  });
  return { makespan: r.result.makespanS, cpuTasks, packTasks: hfp.planStats?.packTasks };
}

describe('hfp with CPUs: chain plans', () => {
  // 4 x 4 GEMM of 64 x 64 single tiles (48 tiles of 16 KiB, 768 KiB) on 2 GPUs of 256 KiB: a
  // chain plan. GPU tasks take 5.2 us (1e11 flop/s), copies are fast: the GPUs' plans are 8
  // chains of 4 tasks each, 168 us of work.
  const { graph } = generateWorkload('gemm', { tiles: 4, tileSize: 64 });
  const machine = (cpus: number, cpuRate: number) =>
    testPlatform({
      gpus: 2,
      cpus,
      gpuCapacity: 256 * 1024,
      gpuRate: 1e11,
      cpuRate,
      bandwidth: 1e11,
      latency: 1e-6,
    });
  const alone = run(graph, machine(0, 1e10));

  test('GPUs alone: every task in the chain plan', () => {
    assert.equal(alone.packTasks, 64);
    assert.equal(alone.cpuTasks.size, 0);
  });

  test('a CPU that ends one chain before the GPUs would takes exactly that chain, and the run ends earlier', () => {
    // CPU at 2e10 flop/s: a chain takes 105 us, under the GPUs' 168 us of plan each; a second
    // one would end at 210 us, after the GPUs' (147 + 168) / 2 us left: one chain, the last of
    // GPU 0's plan.
    const r = run(graph, machine(1, 2e10));
    assert.deepEqual(Object.fromEntries(r.cpuTasks), {
      cpu0: ['GEMM(3,1,0)', 'GEMM(3,1,1)', 'GEMM(3,1,2)', 'GEMM(3,1,3)'],
    });
    assert.ok(r.makespan < alone.makespan, `${r.makespan} vs ${alone.makespan}`);
  });

  test('two such CPUs take one chain each, from the end of both plans', () => {
    // The second CPU's chain ends at 105 us, before the GPUs' (147 + 168) / 2 us.
    const r = run(graph, machine(2, 2e10));
    assert.deepEqual(Object.fromEntries(r.cpuTasks), {
      cpu0: ['GEMM(3,1,0)', 'GEMM(3,1,1)', 'GEMM(3,1,2)', 'GEMM(3,1,3)'],
      cpu1: ['GEMM(3,0,0)', 'GEMM(3,0,1)', 'GEMM(3,0,2)', 'GEMM(3,0,3)'],
    });
    assert.ok(r.makespan < alone.makespan, `${r.makespan} vs ${alone.makespan}`);
  });

  test('CPUs too slow to end a chain before the GPUs (210 us against 168) take nothing: the GPUs-only run', () => {
    for (const cpus of [1, 2]) {
      const r = run(graph, machine(cpus, 1e10));
      assert.equal(r.cpuTasks.size, 0);
      assert.equal(r.makespan, alone.makespan);
    }
  });

  test('run time: a CPU steals the last chain when it ends it first, and not a second one', () => {
    // 2 x 2 GEMM, every chain (2 tasks) on GPU 0, none on GPU 1; GPU task 1 s, CPU task 1.5 s
    // or 2 s (worker 2). The GPUs reach GPU 0's last chain at 8 / 2 = 4 s (GPU 1 would steal).
    const g2 = generateWorkload('gemm', { tiles: 2, tileSize: 8 }).graph;
    const chains = findChains(g2)!;
    const platform = testPlatform({ gpus: 2, cpus: 1, gpuCapacity: 1e9 });
    for (const [cpuTime, expected] of [
      [1.5, 6],
      [2, -1],
    ] as const) {
      const ctx = {
        graph: g2,
        platform,
        taskDuration: (_t: number, w: number) => (w === 2 ? cpuTime : 1),
        transferTime: () => 0,
        canRun: () => true,
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
      for (const t of [0, 2, 4, 6]) runner.push(t);
      // CPU time 1.5: chain 3 ends at 3 on the CPU, before 4: stolen. Time 2: 4 is not
      // earlier than 4, nothing.
      assert.equal(runner.pop(2), expected);
      if (expected < 0) continue;
      assert.deepEqual([...runner.planned(0)], [0, 2, 4, 1, 3, 5]);
      // A second chain would end at 1.5 + 3 = 4.5, after the GPUs' 6 / 2 = 3 left.
      runner.push(7);
      assert.equal(runner.pop(2), 7);
      assert.equal(runner.pop(2), -1);
    }
  });
});

describe('hfp with CPUs: dependencies and strips', () => {
  test("Cholesky on seed 000's V100 node: the CPUs take POTRFs only (faster there), the run ends earlier", () => {
    const { graph } = generateWorkload('cholesky', { tiles: 8, tileSize: 256 });
    graph.setBottomLevelPriorities();
    const gpus = simulate({
      graph,
      platform: resolvePlatform('v100x2', { gpus: 2, gpuMem: 8 * 1024 ** 2 }),
      scheduler: 'hfp',
    });
    const platform = resolvePlatform('v100x2', { gpus: 2, cpus: 4, gpuMem: 8 * 1024 ** 2 });
    const r = run(graph, platform);
    const names = [...r.cpuTasks.values()].flat();
    assert.ok(names.length > 0, 'no CPU task');
    assert.deepEqual(
      names.filter((n) => !n.startsWith('POTRF')),
      [],
    );
    assert.ok(r.makespan < gpus.report.makespanS, `${r.makespan} vs ${gpus.report.makespanS}`);
  });

  test('matrix product strips with CPUs 250 times slower than the GPUs: none ends a task first', () => {
    const { graph } = generateWorkload('matmul2d', { tiles: 10, tileSize: 960, inner: 3840 });
    const platform = resolvePlatform('v100x2', { gpus: 2, cpus: 4, gpuMem: 100 * 1024 ** 2 });
    const r = run(graph, platform);
    assert.equal(r.cpuTasks.size, 0);
  });

  test("a plan's tail: a CPU 10 times slower takes 12 of 256 tasks, from the plans' ends, and the run ends earlier", () => {
    // 16 x 16 product of 64 x 64 blocks (32 inputs, 512 KiB) on 2 GPUs of 240 KiB: planned
    // ahead (hfp/greedy.ts), 128 tasks of 5.2 us per GPU; a CPU task takes 52 us. The CPU takes
    // a plan's last task while it ends it before that plan's GPU would: 12 times.
    const { graph } = generateWorkload('matmul2d', { tiles: 16, tileSize: 64, inner: 64 });
    const machine = (cpus: number, cpuRate: number) =>
      testPlatform({
        gpus: 2,
        cpus,
        gpuCapacity: 240 * 1024,
        gpuRate: 1e11,
        cpuRate,
        bandwidth: 1e11,
        latency: 1e-6,
      });
    const gpus = run(graph, machine(0, 1e10));
    const r = run(graph, machine(1, 1e10));
    assert.equal(r.cpuTasks.get('cpu0')?.length, 12);
    // The last rows of the product: the ends of the GPUs' plans.
    assert.deepEqual(
      r.cpuTasks.get('cpu0')!.filter((n) => !/^GEMM\(1[45],/.test(n)),
      [],
    );
    assert.ok(r.makespan < gpus.makespan, `${r.makespan} vs ${gpus.makespan}`);
    // 200 times slower (1.05 ms a task, against 0.67 ms of plan per GPU): nothing, the same run.
    const slow = run(graph, machine(2, 5e8));
    assert.equal(slow.cpuTasks.size, 0);
    assert.equal(slow.makespan, gpus.makespan);
  });
});
