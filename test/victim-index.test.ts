import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RankHeaps } from '../src/core/data/rank-heaps.ts';
import type { EvictionPolicy } from '../src/core/policy.ts';
import { Rng } from '../src/core/rng.ts';
import { FifoEviction } from '../src/evict/fifo.ts';
import { LruEviction } from '../src/evict/lru.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { WalkingFifo, WalkingLru } from './helpers/walking-eviction.ts';

/** Wraps a policy to record its victims as "node:handle". */
function recording(policy: EvictionPolicy): { policy: EvictionPolicy; victims: string[] } {
  const victims: string[] = [];
  const inner = policy.victim.bind(policy);
  policy.victim = (node, allow, peek) => {
    const v = inner(node, allow, peek);
    victims.push(`${node}:${v}`);
    return v;
  };
  return { policy, victims };
}

const WORKLOADS: [string, Parameters<typeof generateWorkload>[1], number][] = [
  ['random', { tasks: 1500, data: 120, degree: 3, tileSize: 512 }, 24],
  ['cholesky', { tiles: 12, tileSize: 512 }, 12],
  ['matmul2d', { tiles: 24, tileSize: 256, inner: 1024 }, 8],
];

// Issue 25: the engine's eviction index takes exactly the victims of the list walk.
describe('LRU and FIFO from the eviction index: the victims of a list walk', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['eager', {}],
    ['dmda', {}],
    ['dmdar', {}],
    ['dmdas', {}],
    ['heft-tmdp-pr', {}],
    ['ws', {}],
    ['prio', {}],
    ['random', {}],
    ['dmdar', { cleanFirst: false }],
    ['dmda', { minClean: 30 }],
    ['eager', { gpuLookahead: 0 }],
  ];
  for (const [sched, options] of cases) {
    for (const evict of ['lru', 'fifo']) {
      for (const [workload, params, gpuMiB] of WORKLOADS) {
        const label = Object.keys(options).length > 0 ? ` ${JSON.stringify(options)}` : '';
        test(`${sched}+${evict}${label}, ${workload}, 2 GPUs of ${gpuMiB} MiB`, () => {
          const wl = generateWorkload(workload, params);
          if (workload === 'cholesky') wl.graph.setBottomLevelPriorities();
          const platform = resolvePlatform('v100x2', { gpuMem: gpuMiB * 2 ** 20, cpus: 2 });
          const run = (policy: EvictionPolicy) => {
            const r = recording(policy);
            const { report } = simulate({
              graph: wl.graph,
              platform,
              scheduler: sched,
              eviction: r.policy,
              ...options,
            });
            return { victims: r.victims, report };
          };
          const fast = run(evict === 'lru' ? new LruEviction('always') : new FifoEviction('always'));
          const walked = run(evict === 'lru' ? new WalkingLru() : new WalkingFifo());
          assert.ok(
            walked.victims.length > 20,
            `only ${walked.victims.length} victims: the test needs evictions`,
          );
          assert.deepEqual(fast.victims, walked.victims);
          assert.equal(fast.report.bytesToDevices, walked.report.bytesToDevices);
          assert.equal(fast.report.evictions, walked.report.evictions);
          assert.equal(fast.report.makespanS, walked.report.makespanS);
        });
      }
    }
  }
});

describe('RankHeaps', () => {
  test('tops, moves, re-keys and removals match a sorted reference', () => {
    const rng = new Rng(7);
    const slots = 200;
    const heaps = new RankHeaps(3, 16);
    heaps.grow(slots);
    const ref = new Map<number, [number, number]>(); // slot -> [heap, key]
    for (let step = 0; step < 20_000; step++) {
      const s = rng.int(slots);
      if (rng.int(4) === 0) {
        heaps.remove(s);
        ref.delete(s);
      } else {
        const id = rng.int(3);
        const key = rng.int(1000);
        heaps.place(s, id, key);
        ref.set(s, [id, key]);
      }
      for (let id = 0; id < 3; id++) {
        let best = Number.POSITIVE_INFINITY;
        for (const [, [i, k]] of ref) if (i === id && k < best) best = k;
        const top = heaps.top(id);
        if (best === Number.POSITIVE_INFINITY) assert.equal(top, -1);
        else assert.equal(ref.get(top)![1], best, `step ${step}, heap ${id}`);
      }
      assert.equal(heaps.heapOf(s), ref.get(s)?.[0] ?? -1);
    }
  });
});

describe("LRU's switch to the index", () => {
  const wl = generateWorkload('matmul2d', { tiles: 100, tileSize: 256 });
  const platform = resolvePlatform('v100x2', { gpuMem: 100e6 });
  for (const [sched, switches] of [
    ['eager', false],
    ['dmda', true],
  ] as const) {
    test(`${sched}: walks ${switches ? 'grow long: the index takes over' : 'stay short: no index'}, same victims`, () => {
      const auto = recording(new LruEviction('auto'));
      const never = recording(new LruEviction('never'));
      simulate({ graph: wl.graph, platform, scheduler: sched, eviction: auto.policy });
      simulate({ graph: wl.graph, platform, scheduler: sched, eviction: never.policy });
      assert.equal((auto.policy as LruEviction).usesIndex, switches);
      assert.equal((never.policy as LruEviction).usesIndex, false);
      assert.ok(never.victims.length > 1000, `only ${never.victims.length} searches`);
      assert.deepEqual(auto.victims, never.victims);
    });
  }
});
