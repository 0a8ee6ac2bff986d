import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EvictionPolicy } from '../src/core/policy.ts';
import { BeladyEviction } from '../src/evict/belady.ts';
import { LufEviction } from '../src/evict/luf.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { createScheduler } from '../src/sched/index.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { NaiveBelady, NaiveLuf } from './helpers/naive-eviction.ts';

/** Wraps a policy to record its victims as "node:handle". */
function recording(policy: EvictionPolicy): { policy: EvictionPolicy; victims: string[] } {
  const victims: string[] = [];
  const inner = policy.victim.bind(policy);
  policy.victim = (node, allow) => {
    const v = inner(node, allow);
    victims.push(`${node}:${v}`);
    return v;
  };
  return { policy, victims };
}

const WORKLOADS: [string, Parameters<typeof generateWorkload>[1], string][] = [
  ['random', { tasks: 1500, data: 120, degree: 3, tileSize: 512 }, '24MiB'],
  ['cholesky', { tiles: 12, tileSize: 512 }, '12MiB'],
  ['matmul2d', { tiles: 24, tileSize: 256, inner: 1024 }, '8MiB'],
];

// Issue 12 item 3: the indexed next uses choose exactly the victims of a rescan.
describe("Belady and LUF from the schedulers' plan index: the victims of a full rescan", () => {
  for (const sched of ['prio', 'dmda', 'dm', 'ws', 'darts']) {
    for (const evict of ['belady', 'luf']) {
      if (evict === 'luf' && sched === 'darts') continue; // DARTS's own counts: unchanged path
      for (const [workload, params, gpuMem] of WORKLOADS) {
        test(`${sched}+${evict}, ${workload}, 2 GPUs of ${gpuMem}`, () => {
          const wl = generateWorkload(workload, params);
          if (workload === 'cholesky') wl.graph.setBottomLevelPriorities();
          const platform = resolvePlatform('v100x2', {
            gpuMem: Number.parseInt(gpuMem, 10) * 2 ** 20,
            cpus: 2,
          });
          const run = (policy: EvictionPolicy) => {
            const r = recording(policy);
            const { report } = simulate({ graph: wl.graph, platform, scheduler: sched, eviction: r.policy });
            return { victims: r.victims, report };
          };
          const fast = run(evict === 'belady' ? new BeladyEviction() : new LufEviction());
          const naive = run(evict === 'belady' ? new NaiveBelady() : new NaiveLuf());
          assert.ok(
            naive.victims.length > 20,
            `only ${naive.victims.length} victims: the test needs evictions`,
          );
          assert.deepEqual(fast.victims, naive.victims);
          assert.equal(fast.report.bytesToDevices, naive.report.bytesToDevices);
          assert.equal(fast.report.makespanS, naive.report.makespanS);
        });
      }
    }
  }
});

describe('Belady and LUF do not rescan the planned queues', () => {
  for (const [sched, evict] of [
    ['prio', 'belady'],
    ['dmda', 'belady'],
    ['ws', 'belady'],
    ['darts', 'belady'],
    ['prio', 'luf'],
    ['dmda', 'luf'],
  ]) {
    test(`${sched}+${evict}: victims on GPUs read no plannedTasks`, () => {
      const scheduler = createScheduler(sched!);
      let scans = 0;
      const planned = scheduler.plannedTasks!.bind(scheduler);
      scheduler.plannedTasks = (w) => {
        scans++;
        return planned(w);
      };
      const wl = generateWorkload('random', { tasks: 1500, data: 120, degree: 3, tileSize: 512 });
      const platform = resolvePlatform('v100x2', { gpuMem: 24 * 2 ** 20, gpus: 2, cpus: 0 });
      const { report } = simulate({ graph: wl.graph, platform, scheduler, eviction: evict });
      assert.ok(report.evictions > 500, `${report.evictions} evictions`);
      assert.equal(scans, 0);
    });
  }
});
