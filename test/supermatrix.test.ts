/** SuperMatrix (seed 002): critical-path priority queues, modes, LU with partial pivoting. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import { AccessMode } from '../src/core/types.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { SuperMatrixScheduler } from '../src/sched/supermatrix.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { testPlatform } from './helpers/platforms.ts';

describe('supermatrix', () => {
  test('critical tasks: those on a longest path, by hand', () => {
    // a (2 Gflop) -> c (1), b (1) -> c, c -> d (1): the longest path is a, c, d.
    const g = new TaskGraph();
    const k = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    const [x, y] = [g.addHandle(8), g.addHandle(8)];
    g.submit(k, [[x, AccessMode.W]], { flops: 2e9 }); // a
    g.submit(k, [[y, AccessMode.W]], { flops: 1e9 }); // b
    g.submit(
      k,
      [
        [x, AccessMode.RW],
        [y, AccessMode.R],
      ],
      { flops: 1e9 },
    ); // c
    g.submit(k, [[x, AccessMode.RW]], { flops: 1e9 }); // d
    const s = new SuperMatrixScheduler(true);
    simulate({
      graph: g,
      platform: testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 2, cpuRate: 1e9 }),
      scheduler: s,
    });
    assert.deepEqual(
      [0, 1, 2, 3].map((t) => s.isCritical(t)),
      [true, false, true, true],
    );
  });

  test('lupp: the graph of seed 002 (panel, interchanges + trsm per column, gemm)', () => {
    const wl = generateWorkload('lupp', { tiles: 3 });
    // panels 3, swap+trsm 2 + 1, gemm 4 + 1, interchanges on L: 2 + 1
    assert.equal(wl.graph.taskCount, 3 + 3 + 5 + 3);
    assert.deepEqual(wl.graph.accesses(0).length, 4); // the pivots and the whole first column
    assert.equal(wl.graph.taskNames[13], 'LASWP(2,1)');
    assert.equal(wl.graph.taskNames[1], 'LASWP_TRSM(0,1)');
  });

  test('tsl: LU with priorities takes about 20% less time than without (seed 002)', () => {
    const platform = resolvePlatform('tsl');
    const run = (sched: string) =>
      simulate({ graph: generateWorkload('lupp', { tiles: 16 }).graph, platform, scheduler: sched }).report
        .makespanS;
    const withPrio = run('supermatrix');
    const without = run('supermatrix-noprio');
    assert.ok(withPrio < 0.85 * without, `${withPrio} vs ${without}`);
  });

  test('tsl: hybrid beats multiGPU on a large LU', () => {
    const run = (cpus: number) =>
      simulate({
        graph: generateWorkload('lupp', { tiles: 32 }).graph,
        platform: resolvePlatform('tsl', { cpus }),
        scheduler: 'supermatrix',
      }).report.makespanS;
    const hybrid = run(4);
    const multiGpu = run(0);
    assert.ok(hybrid < multiGpu, `${hybrid} vs ${multiGpu}`);
  });
});
