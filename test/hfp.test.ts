/**
 * hfp's behaviour beyond the conformance suite: strip packages move fewer bytes than DARTS+LUF
 * on the 2-D matrix product under memory pressure; a datum read by every task does not pin the
 * work on one GPU; CPU workers take part; and the random workload's `shared` option.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolvePlatform } from '../src/platform/presets.ts';
import { HfpScheduler } from '../src/sched/hfp.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { oracleRun } from './conformance/harness.ts';

const MiB = 2 ** 20;

describe('hfp', () => {
  test("seed 000's Fig. 2 setting at N = 100: fewer bytes than darts+luf, every task once", () => {
    // 2 GPUs of 500 MiB, 200 input blocks of 14.06 MiB (2.7 times the GPUs' memory).
    const { graph } = generateWorkload('matmul2d', { tiles: 100 });
    const platform = resolvePlatform('v100x2', { gpus: 2, gpuMem: 500 * MiB });
    const hfp = simulate({ graph, platform, scheduler: 'hfp' }).report;
    const darts = simulate({ graph, platform, scheduler: 'darts', eviction: 'luf' }).report;
    assert.equal(
      hfp.workers.reduce((n, w) => n + w.tasks, 0),
      100 * 100,
    );
    assert.ok(hfp.bytesToDevices < darts.bytesToDevices, `${hfp.bytesToDevices} vs ${darts.bytesToDevices}`);
    // Every input block crosses at least once.
    assert.ok(hfp.bytesToDevices >= 200 * 960 * 3840 * 4);
  });

  test('a strip package starts in square shells: 2 loads, then 2 more per shell of tasks', () => {
    // matmul2d N = 40 on 2 GPUs of 32 MiB with 1 MiB blocks: GPU 0's first package holds rows of A.
    const { graph } = generateWorkload('matmul2d', { tiles: 40, tileSize: 256, inner: 1024 });
    const platform = resolvePlatform('v100x2', { gpus: 2, gpuMem: 32 * MiB });
    const hfp = new HfpScheduler();
    const r = oracleRun('hfp strips', graph, platform, { scheduler: hfp, eviction: hfp.evictionPolicy() });
    const gpu0 = r.placement.order.filter((t) => r.placement.workerOf[t] === 0);
    assert.deepEqual(
      gpu0.slice(0, 9).map((t) => graph.taskNames[t]),
      ['0,0', '0,1', '1,0', '1,1', '0,2', '1,2', '2,0', '2,1', '2,2'].map((ij) => `GEMM(${ij})`),
    );
  });

  test('one datum read by every task: all 4 GPUs compute', () => {
    const { graph } = generateWorkload('random', {
      tasks: 400,
      data: 200,
      degree: 2,
      shared: 1,
      tileSize: 256,
    });
    const platform = resolvePlatform('v100x2', { gpus: 4, gpuMem: 16 * MiB });
    const r = simulate({ graph, platform, scheduler: 'hfp' }).report;
    assert.equal(r.workers.length, 4);
    for (const w of r.workers) assert.ok(w.tasks > 0, `${w.name} ran no task`);
    assert.equal(
      r.workers.reduce((n, w) => n + w.tasks, 0),
      400,
    );
  });

  test('CPUs and GPUs together: the CPU workers run tasks too', () => {
    const { graph } = generateWorkload('cholesky', { tiles: 8, tileSize: 256 });
    graph.setBottomLevelPriorities();
    const platform = resolvePlatform('v100x2', { gpus: 2, cpus: 4, gpuMem: 8 * MiB });
    const r = simulate({ graph, platform, scheduler: 'hfp' }).report;
    assert.equal(
      r.workers.reduce((n, w) => n + w.tasks, 0),
      graph.taskCount,
    );
    assert.ok(r.workers.some((w) => w.kind === 'cpu' && w.tasks > 0));
  });
});

describe('random workload: shared data', () => {
  test('every task reads the shared datum, then `degree` others; tiles stands for data', () => {
    const w = generateWorkload('random', { tasks: 10, tiles: 7, degree: 3, shared: 1, tileSize: 4 });
    const g = w.graph;
    assert.equal(g.taskCount, 10);
    // 7 data + 1 shared + 10 outputs.
    assert.equal(g.handleCount, 18);
    for (let t = 0; t < 10; t++) {
      const acc = g.accesses(t);
      assert.equal(acc.length, 5);
      assert.equal(g.handleLabel(acc[0]![0]), 'S[0]');
    }
    assert.equal(w.params.data, 7);
    assert.equal(w.params.shared, 1);
  });
});
