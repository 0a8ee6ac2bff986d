/**
 * DARTS's host level out of core (issue 30, src/sched/darts/host-level.ts): with a disk below
 * host memory and no GPU, DARTS plans host memory for the CPU workers as seed 000's Algorithm 2
 * plans a GPU's, LUF evicts host memory by the host's plan, and the chosen data are prefetched
 * from the disk. Exact counts on a small matrix product worked by hand. And the real runs'
 * read-ahead (src/exec/read-ahead.ts), simulated here so that its reads are exact.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TransferKind } from '../src/core/engine.ts';
import { TaskGraph } from '../src/core/graph.ts';
import { PlatformModel } from '../src/core/model.ts';
import { AccessMode } from '../src/core/types.ts';
import { createEviction } from '../src/evict/index.ts';
import { withReadAhead } from '../src/exec/read-ahead.ts';
import { attachDisk, withHostMemory } from '../src/platform/disk.ts';
import { DartsScheduler } from '../src/sched/darts/darts.ts';
import type { TaskData } from '../src/sched/darts/task-data.ts';
import { HfpScheduler } from '../src/sched/hfp.ts';
import { createScheduler } from '../src/sched/index.ts';
import { Simulator } from '../src/sim/simulator.ts';
import { testPlatform } from './helpers/platforms.ts';
import { checkedRun } from './helpers/run.ts';

const { R } = AccessMode;
const MB = 1e6;
const DISK = { name: 'disk', capacity: 1e9, readBandwidth: 1e9, writeBandwidth: 1e9, latency: 1e-5 };

/** 4 row blocks A0..A3 (handles 0-3), 4 column blocks B0..B3 (4-7), 16 tasks A_i x B_j, row-major. */
function product(): TaskGraph {
  const g = new TaskGraph();
  const k = g.addCodelet({ name: 'k', kinds: ['cpu', 'gpu'] });
  const a = Array.from({ length: 4 }, () => g.addHandle(MB));
  const b = Array.from({ length: 4 }, () => g.addHandle(MB));
  for (let i = 0; i < 4; i++)
    for (let j = 0; j < 4; j++)
      g.submit(
        k,
        [
          [a[i]!, R],
          [b[j]!, R],
        ],
        { flops: 1e8 },
      );
  return g;
}

/** One CPU worker, host memory of 3 MB (three blocks), the disk below it. */
function cpuOnly(cpus = 1) {
  return attachDisk(withHostMemory(testPlatform({ gpus: 0, gpuCapacity: 0, cpus }), 3 * MB), DISK);
}

describe("DARTS's host level out of core", () => {
  test('a CPU-only machine plans host memory: two rows of A resident, B streamed (11 reads, not 21)', () => {
    // Without the host level the CPU takes the highest-priority pool task (all equal: the pool's
    // order, row by row from the last) and nothing is planned on the host, so LUF evicts there
    // in LRU order: each row reads its A block and all of B again, 1 + 4 x 5 = 21 reads. With it: the
    // first task (A0, B0) is the fallback (no datum frees a task); then A1 frees (A1, B0) (ties:
    // most unprocessed readers, then the lowest id), B1, B2, B3 each free two tasks (A0 and A1
    // resident, the used B evicted: LUF's victim is the datum no planned task reads); then A2
    // frees (A2, B3), A3 frees (A3, B3) and has more unprocessed readers than any B, and B0, B1,
    // B2 free two tasks each: 2 + 1 + 3 + 2 + 3 = 11 reads.
    const g = product();
    const off = checkedRun(g, cpuOnly(), {
      sched: new DartsScheduler({ dartsHostLevel: false }),
      eviction: 'luf',
    });
    assert.deepEqual(off.checker.violations, []);
    assert.equal(off.stats.bytesFromDisk, 21 * MB);
    const darts = new DartsScheduler();
    const on = checkedRun(g, cpuOnly(), { sched: darts, eviction: 'luf' });
    assert.deepEqual(on.checker.violations, []);
    assert.equal(on.stats.bytesFromDisk, 11 * MB);
    assert.ok(on.stats.peakMemory[0]! <= 3 * MB);
    // On by default without GPUs: one fallback, 9 decisions (A1, B1-B3, A2, A3, B0-B2).
    assert.deepEqual(darts.hostStats, { decisions: 9, planned: 15, fallbacks: 1, prefetches: 9, waits: 0 });
    // Each decision's datum was requested ahead, as a prefetch.
    assert.equal(on.stats.transfersByKind[TransferKind.PREFETCH], 9);
    assert.equal(off.stats.transfersByKind[TransferKind.PREFETCH], 0);
  });

  test("hfp's Belady eviction follows the same host plan", () => {
    const g = product();
    const hfp = new HfpScheduler();
    const r = checkedRun(g, cpuOnly(), { sched: hfp });
    assert.deepEqual(r.checker.violations, []);
    assert.equal(r.stats.bytesFromDisk, 11 * MB);
    const off = checkedRun(g, cpuOnly(), { sched: new HfpScheduler({ dartsHostLevel: false }) });
    assert.equal(off.stats.bytesFromDisk, 21 * MB);
  });

  test('CPU workers wait rather than plan tasks whose data do not fit beside the running ones', () => {
    // Two CPU workers, three blocks of host memory: a second task beside one running needs a
    // fourth block unless it shares an input. The second worker waits (16 times over the run)
    // rather than plan a task whose data do not fit, and the plan and the reads are those of
    // one worker: the same 9 decisions, 11 reads.
    const g = product();
    const darts = new DartsScheduler();
    const r = checkedRun(g, cpuOnly(2), { sched: darts, eviction: 'luf' });
    assert.deepEqual(r.checker.violations, []);
    assert.ok(r.stats.peakMemory[0]! <= 3 * MB);
    assert.equal(r.stats.bytesFromDisk, 11 * MB);
    assert.deepEqual(darts.hostStats, { decisions: 9, planned: 15, fallbacks: 1, prefetches: 9, waits: 16 });
    assert.equal(
      r.stats.tasksRun.reduce((x, y) => x + y, 0),
      16,
    );
  });

  test("tasks planned on the host stay in their inputs' reader lists while tasks are submitted", () => {
    // A 12 x 12 product submitted through a window of 16 tasks, three CPU workers, five blocks
    // of host memory. Each submission appends readers to the data's lists, which drop the tasks
    // DARTS took when they must grow; a task the host level planned is taken from the pool but
    // may still go back to it (LUF's unplan finds it through those lists), so it must stay
    // listed until the host hands it out. Checked after every submission and pop (this run
    // dropped such a task 10 times before the fix).
    const n = 12;
    const g = new TaskGraph();
    const k = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    const a = Array.from({ length: n }, () => g.addHandle(MB));
    const b = Array.from({ length: n }, () => g.addHandle(MB));
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++)
        g.submit(
          k,
          [
            [a[i]!, R],
            [b[j]!, R],
          ],
          { flops: 1e8 },
        );
    const platform = attachDisk(
      withHostMemory(testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 3 }), 5 * MB),
      DISK,
    );
    const darts = new DartsScheduler();
    const data = (): TaskData => (darts as unknown as { data: TaskData }).data;
    const unlisted: string[] = [];
    const check = (): void => {
      const d = data();
      for (let w = 0; w < platform.workers.length; w++) {
        for (const p of darts.plannedTasks(w)) {
          for (let i = d.inStart[p]!; i < d.inStart[p + 1]!; i++) {
            const h = d.inHandle.data[i]!;
            if (!d.readersOf(h).subarray(0, d.readerCount[h]!).includes(p))
              unlisted.push(`task ${p}, datum ${h}`);
          }
        }
      }
    };
    const pop = darts.pop.bind(darts);
    darts.pop = (worker: number): number => {
      const t = pop(worker);
      check();
      return t;
    };
    const submitted = darts.submitted.bind(darts);
    darts.submitted = (from: number, to: number): void => {
      submitted(from, to);
      check();
    };
    const sim = new Simulator({
      graph: g,
      platform,
      scheduler: darts,
      eviction: createEviction('luf'),
      model: new PlatformModel(platform, g),
      submitWindow: 16,
    });
    sim.run();
    assert.equal(sim.engine.finishedTasks, n * n);
    assert.ok(darts.hostStats!.planned > 100);
    assert.deepEqual(unlisted, []);
  });

  test('beside GPUs it is off unless asked for; without a disk it does not exist', () => {
    const g = product();
    const mixed = attachDisk(
      withHostMemory(testPlatform({ gpus: 1, gpuCapacity: 2 * MB, cpus: 1, gpuRate: 1e12 }), 3 * MB),
      DISK,
    );
    const byDefault = new DartsScheduler();
    checkedRun(g, mixed, { sched: byDefault, eviction: 'luf' });
    assert.equal(byDefault.hostStats, undefined);
    const asked = new DartsScheduler({ dartsHostLevel: true });
    const r = checkedRun(g, mixed, { sched: asked, eviction: 'luf' });
    assert.deepEqual(r.checker.violations, []);
    assert.ok(asked.hostStats !== undefined);
    const inRam = new DartsScheduler({ dartsHostLevel: true });
    checkedRun(g, testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 1 }), { sched: inRam, eviction: 'luf' });
    assert.equal(inRam.hostStats, undefined);
  });
});

describe('read-ahead from the disk (src/exec/read-ahead.ts)', () => {
  test('the inputs of ready tasks not popped yet are read into host memory beside the running task', () => {
    // One CPU worker (pipeline 1), six independent tasks each reading its own 1 MB datum, host
    // memory of 3 MB. Without read-ahead each read starts when its task is popped, after the
    // previous task ends: six reads on demand, none overlapping a task. With it (window 2) the
    // reads of the next ready tasks go while one runs: every read is one ahead (the first task's
    // too, read as it becomes ready, before the worker pops it), the same six reads in all, and
    // the run ends sooner by the reads it overlaps.
    const g = new TaskGraph();
    const k = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    for (let i = 0; i < 6; i++) g.submit(k, [[g.addHandle(MB), R]], { flops: 1e8 });
    const plain = checkedRun(g, cpuOnly(), { sched: 'eager' });
    const stats = { requests: 0, bytes: 0 };
    const ahead = checkedRun(g, cpuOnly(), {
      sched: withReadAhead(createScheduler('eager'), { window: 2, stats }),
    });
    assert.deepEqual(ahead.checker.violations, []);
    assert.equal(plain.stats.transfersByKind[TransferKind.PREFETCH], 0);
    assert.deepEqual(stats, { requests: 6, bytes: 6 * MB });
    assert.equal(ahead.stats.transfersByKind[TransferKind.PREFETCH], 6);
    assert.equal(ahead.stats.bytesFromDisk, 6 * MB);
    assert.equal(plain.stats.bytesFromDisk, 6 * MB);
    assert.ok(ahead.stats.peakMemory[0]! <= 3 * MB);
    assert.ok(ahead.result.makespanS < plain.result.makespanS);
  });

  test('without a disk it does nothing: the run is the same', () => {
    const g = product();
    const p = testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 2 });
    const stats = { requests: 0, bytes: 0 };
    const plain = checkedRun(g, p, { sched: 'eager' });
    const ahead = checkedRun(g, p, { sched: withReadAhead(createScheduler('eager'), { stats }) });
    assert.equal(stats.requests, 0);
    assert.equal(ahead.result.makespanS, plain.result.makespanS);
    assert.equal(ahead.result.events, plain.result.events);
  });
});

describe("DARTS's host level in a long session", () => {
  test('a simulated Runtime that recycles finished tasks runs the same as one that does not', async () => {
    // Two batches of 5,000 tasks (past the engine's minimum compaction), 12 data of 8 KiB,
    // host memory for 5 of them above a disk: the host level's tables shift with the tasks.
    const { Runtime } = await import('../src/exec/runtime.ts');
    const kernels = new URL('./helpers/kernels.ts', import.meta.url);
    const run = async (recycle: boolean) => {
      const darts = new DartsScheduler();
      const rt = await Runtime.create({
        mode: 'simulated',
        cpus: 2,
        gpus: 0,
        hostMem: 5 * 8192,
        disk: {},
        scheduler: darts,
        eviction: 'luf',
        recycle,
        perfModels: 'off',
      });
      const inc = rt.codelet({ name: 'inc', kernel: { module: kernels, export: 'inc' } });
      const x = Array.from({ length: 12 }, (_, i) => rt.data(new Float64Array(1024), { name: `x${i}` }));
      let r: Awaited<ReturnType<typeof rt.wait>> | undefined;
      for (let b = 0; b < 2; b++) {
        for (let i = 0; i < 5000; i++) {
          const n = b * 5000 + i;
          rt.submit(inc, [
            [x[n % 12]!, 'RW'],
            [x[(n * 7 + 1) % 12]!, 'R'],
          ]);
        }
        r = await rt.wait();
      }
      const retired = (rt as unknown as { graph: { retired: number } }).graph.retired;
      await rt.close();
      return { r: r!, retired, stats: { ...darts.hostStats! } };
    };
    const kept = await run(false);
    const recycled = await run(true);
    assert.ok(kept.stats.decisions > 0);
    assert.equal(kept.retired, 0);
    assert.ok(recycled.retired > 0, 'the engine recycled tasks');
    assert.deepEqual(recycled.stats, kept.stats);
    assert.equal(recycled.r.tasks, 10000);
    assert.equal(recycled.r.makespanS, kept.r.makespanS);
    assert.equal(recycled.r.bytesFromDisk, kept.r.bytesFromDisk);
    assert.equal(recycled.r.bytesToDisk, kept.r.bytesToDisk);
  });
});

describe("hfp's staging of its GPUs' plans in host memory (src/sched/hfp/host-staging.ts)", () => {
  /** 12 row blocks and 12 column blocks of 1 MB, 144 tasks A_i x B_j of 0.2 ms on a 1 TFlop/s GPU. */
  function product12(): TaskGraph {
    const g = new TaskGraph();
    const k = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const a = Array.from({ length: 12 }, () => g.addHandle(MB));
    const b = Array.from({ length: 12 }, () => g.addHandle(MB));
    for (const x of a)
      for (const y of b)
        g.submit(
          k,
          [
            [x, R],
            [y, R],
          ],
          { flops: 2e8 },
        );
    return g;
  }
  // One GPU of 16 MB (the 24 blocks do not fit: hfp packs), 12 MB of host memory, a disk at
  // half the GPU link's bandwidth (a read straight from the disk to the GPU goes at the disk's
  // speed, holding the link).
  const platform = () =>
    attachDisk(withHostMemory(testPlatform({ gpus: 1, gpuCapacity: 16 * MB, cpus: 0 }), 12 * MB), {
      ...DISK,
      readBandwidth: 5e8,
    });

  test("the blocks the GPU's packages stream are read into host memory ahead: the same reads, sooner", () => {
    const g = product12();
    const off = new HfpScheduler({ hfpHostStaging: 0 });
    const a = checkedRun(g, platform(), { sched: off });
    const on = new HfpScheduler();
    const b = checkedRun(g, platform(), { sched: on });
    assert.deepEqual(b.checker.violations, []);
    assert.equal(on.planStats!.packed, true);
    assert.equal(off.stagingStats, undefined);
    // Every block the plan loads from the disk (28 of them) is read ahead into host memory.
    assert.deepEqual(on.stagingStats, { requests: 28, bytes: 28 * MB });
    assert.equal(a.stats.bytesFromDisk, 28 * MB);
    assert.equal(b.stats.bytesFromDisk, 28 * MB);
    assert.ok(b.stats.peakMemory[0]! <= 12 * MB);
    assert.ok(b.result.makespanS < a.result.makespanS);
  });

  test('without a disk there is nothing to stage', () => {
    const hfp = new HfpScheduler();
    checkedRun(product12(), testPlatform({ gpus: 1, gpuCapacity: 16 * MB, cpus: 0 }), { sched: hfp });
    assert.equal(hfp.stagingStats, undefined);
  });
});
