/**
 * hfp's fewest-missing-data planner (src/sched/hfp/greedy.ts): exact orders and loads on
 * hand-built task sets, and the plan hfp keeps on random tasks of many inputs.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolvePlatform } from '../src/platform/presets.ts';
import { planGreedy } from '../src/sched/hfp/greedy.ts';
import { HfpScheduler } from '../src/sched/hfp.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';

/** planGreedy's input for unit-size data and the given tasks' inputs. */
function unitInput(tasks: number[][], handles: number, capacity: number[]) {
  const start = new Int32Array(tasks.length + 1);
  tasks.forEach((ins, t) => {
    start[t + 1] = start[t]! + ins.length;
  });
  return {
    n: tasks.length,
    start,
    inputs: Int32Array.from(tasks.flat()),
    size: new Array<number>(handles).fill(1),
    handles,
    capacity,
    duration: () => 1,
    work: capacity.map(() => 0),
  };
}

describe('hfp fewest-missing planner', () => {
  test('the matrix product keeps its strip packages', () => {
    // matmul2d N = 40 on 2 GPUs of 32 MiB with 1 MiB blocks (tile 256 x inner 1024, single).
    const { graph } = generateWorkload('matmul2d', { tiles: 40, tileSize: 256, inner: 1024 });
    const platform = resolvePlatform('v100x2', { gpus: 2, gpuMem: 32 * 2 ** 20 });
    const hfp = new HfpScheduler();
    simulate({ graph, platform, scheduler: hfp });
    const stats = hfp.planStats!;
    assert.equal(stats.packed, true);
    assert.equal(stats.packTasks, 1600);
  });

  test('one GPU holding 2 of 4 data: every datum loaded once, tasks in completion order', () => {
    // t0 = {0, 1}, t1 = {0, 1}, t2 = {2, 3}, t3 = {1, 2}.
    const r = planGreedy(
      unitInput(
        [
          [0, 1],
          [0, 1],
          [2, 3],
          [1, 2],
        ],
        4,
        [2],
      ),
    );
    // Loads 0 and 1 (t0's missing data have the most readers), runs t1 and t0; loads 2
    // (completes t3) evicting 0 (no reader left), runs t3; loads 3 evicting 1, runs t2.
    assert.deepEqual(r.order, [[1, 0, 3, 2]]);
    assert.equal(r.loadedBytes, 4);
  });

  test('two GPUs: the less loaded one plans next; a task whose inputs do not fit is left out', () => {
    // t3 reads 3 data, more than a GPU's 2.
    const r = planGreedy(
      unitInput(
        [
          [0, 1],
          [2, 3],
          [0, 1],
          [0, 1, 2],
        ],
        4,
        [2, 2],
      ),
    );
    assert.deepEqual(r.order, [[2, 0], [1]]);
    assert.equal(r.loadedBytes, 4);
  });

  test('random tasks of 5 inputs at 3 times the GPUs memory: every task planned, fewer bytes than dmdar', () => {
    const { graph } = generateWorkload('random', { tasks: 400, degree: 5, data: 200, tileSize: 256 });
    const platform = resolvePlatform('v100x2', { gpus: 2, gpuMem: 8 * 2 ** 20 });
    const hfp = new HfpScheduler();
    const r = simulate({ graph, platform, scheduler: hfp }).report;
    assert.equal(
      r.workers.reduce((n, w) => n + w.tasks, 0),
      400,
    );
    // Tasks of 5 inputs: no package is built, the fewest-missing planner plans all 400.
    const stats = hfp.planStats!;
    assert.equal(stats.packTasks, 0);
    assert.equal(stats.packed, false);
    const dmdar = simulate({ graph, platform, scheduler: 'dmdar' }).report;
    assert.ok(r.bytesToDevices < dmdar.bytesToDevices, `${r.bytesToDevices} vs ${dmdar.bytesToDevices}`);
  });
});
