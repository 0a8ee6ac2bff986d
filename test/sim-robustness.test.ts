import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { LocusError } from '../src/core/types.ts';
import { compilePlatform } from '../src/platform/schema.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';

/** One host, `gpus` GPUs of 500 MiB, two CPU cores; rates and bandwidths as given. */
function platformFile(o: { gpuRate: number; cpuRate: number; up: number; down: number; gpus?: number }) {
  const gpus = o.gpus ?? 1;
  const memoryNodes: object[] = [{ name: 'ram', kind: 'host', capacity: 'unlimited' }];
  const workers: object[] = [{ name: 'cpu', kind: 'cpu', memory: 'ram', rate: o.cpuRate, count: 2 }];
  const links: object[] = [];
  for (let g = 0; g < gpus; g++) {
    memoryNodes.push({ name: `gpu${g}`, kind: 'gpu', capacity: '500MiB' });
    workers.push({ name: `gpu${g}`, kind: 'gpu', memory: `gpu${g}`, rate: o.gpuRate });
    links.push({ from: 'ram', to: `gpu${g}`, bandwidth: o.up });
    links.push({ from: `gpu${g}`, to: 'ram', bandwidth: o.down });
  }
  return { name: 'fuzz', memoryNodes, workers, links };
}

describe('simulator: extreme figures end or are refused in one line', () => {
  // Item 1 of issue 12: at a virtual time of ~1e8 s the floating-point step exceeds the old
  // absolute 1e-9 s completion tolerance, and a transfer never completed (the loop spun).
  for (const workload of ['cholesky', 'lu', 'random']) {
    test(`a 1 B/s link (${workload}, 6 tiles): the run finishes`, () => {
      const platform = compilePlatform(platformFile({ gpuRate: 12e12, cpuRate: 50e9, up: 1, down: 1 }), 't');
      const wl = generateWorkload(workload, { tiles: 6 });
      const { report } = simulate({ graph: wl.graph, platform, scheduler: 'eager' });
      assert.equal(report.tasks, wl.graph.taskCount);
      assert.ok(report.makespanS > 1e7, `makespan ${report.makespanS}`);
    });
  }

  test('a rate of 1e-300 flop/s (infinite durations) is refused in one line', () => {
    const platform = compilePlatform(
      platformFile({ gpuRate: 12e12, cpuRate: 1e-300, up: 1e10, down: 1e10 }),
      't',
    );
    const wl = generateWorkload('cholesky', { tiles: 4 });
    assert.throws(
      () => simulate({ graph: wl.graph, platform, scheduler: 'eager' }),
      (e: unknown) =>
        e instanceof LocusError &&
        e.code === 'LOCUS_SIMULATION_FAILED' &&
        !e.message.includes('\n') &&
        /must be finite/.test(e.message) &&
        /cpu0/.test(e.message),
    );
  });

  test('a latency of 1e308 s is refused by the schema, and by the simulator in a Platform object', () => {
    const file = platformFile({ gpuRate: 12e12, cpuRate: 50e9, up: 1e10, down: 1e10 });
    (file.links[0] as { latency?: string }).latency = '1e308s';
    assert.throws(
      () => compilePlatform(file, 'p.json'),
      /^LocusError: p\.json: links\[0\]\.latency: '1e308s' is more than 1000 s \(the limit\)$/,
    );
    (file.links[0] as { latency?: string }).latency = '1ms';
    const platform = compilePlatform(file, 'p.json');
    const links = platform.links.map((l) => ({ ...l, latency: 1e308 }));
    const wl = generateWorkload('cholesky', { tiles: 4 });
    assert.throws(
      () => simulate({ graph: wl.graph, platform: { ...platform, links }, scheduler: 'eager' }),
      (e: unknown) =>
        e instanceof LocusError &&
        e.code === 'LOCUS_SIMULATION_FAILED' &&
        /not a finite time/.test(e.message) &&
        !e.message.includes('\n'),
    );
  });

  // The fuzz test of issue 12: rates (flop/s) and bandwidths (B/s) from 1e-3 to 1e15.
  test('random platform figures from 1e-3 to 1e15: refused in one line or finished', () => {
    const outcomes = { finished: 0, refused: 0 };
    const figure = fc.double({ min: -3, max: 15, noNaN: true }).map((e) => 10 ** e);
    fc.assert(
      fc.property(
        figure,
        figure,
        figure,
        figure,
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom('cholesky', 'lu', 'random', 'matmul2d', 'stencil'),
        fc.constantFrom('eager', 'dmda', 'prio', 'darts', 'ws'),
        (gpuRate, cpuRate, up, down, gpus, workload, scheduler) => {
          let platform: ReturnType<typeof compilePlatform>;
          let wl: ReturnType<typeof generateWorkload>;
          try {
            platform = compilePlatform(platformFile({ gpuRate, cpuRate, up, down, gpus }), 'fuzz.json');
            wl = generateWorkload(workload, { tiles: 3 });
            const { report } = simulate({ graph: wl.graph, platform, scheduler });
            assert.equal(report.tasks, wl.graph.taskCount);
            assert.ok(Number.isFinite(report.makespanS));
            outcomes.finished++;
          } catch (e) {
            if (!(e instanceof LocusError)) throw e;
            assert.ok(!e.message.includes('\n'), e.message);
            outcomes.refused++;
          }
        },
      ),
      { numRuns: 150, seed: 12 },
    );
    console.log(outcomes);
    assert.ok(outcomes.finished > 0);
  });
});
