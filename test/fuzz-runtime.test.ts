/**
 * Issue 27's seeded fuzz of the Runtime API against a sequential run: random task graphs
 * (checksum kernels on int32 data, R/W/RW accesses) submitted to a real runtime (worker
 * threads, 0 to 2 emulated GPUs with small memories) under random schedulers and eviction
 * policies; the data after wait({ sync: true }) equal those of running the kernels one after
 * the other in submission order, bit for bit. One case in eight draws a refusal trigger
 * (eviction luf under random) instead: then every task's promise, wait() and close() settle,
 * with the error. LOCUS_FUZZ sets the number of cases (LOCUS_FUZZ_SEED the seed).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { AccessMode } from '../src/core/types.ts';
import { EVICTION_POLICIES } from '../src/evict/index.ts';
import { Runtime, type Task } from '../src/exec/runtime.ts';
import { createScheduler } from '../src/sched/index.ts';
import { fuzzRuns, fuzzSeed } from './helpers/fuzz.ts';
import { checksum } from './helpers/kernels.ts';
import { graphSpecArb } from './helpers/random-graphs.ts';

process.env.LOCUS_PERFMODEL_DIR = mkdtempSync(join(tmpdir(), 'locus-models-'));

const KERNELS = new URL('./helpers/kernels.ts', import.meta.url);
const MODES = ['R', 'W', 'RW'] as const;
const MODE_BITS = { R: AccessMode.R, W: AccessMode.W, RW: AccessMode.RW };

/** Schedulers that take tasks while they run (the real runs' usual choices). */
const SCHEDULERS = ['eager', 'random', 'dm', 'dmda', 'dmdar', 'dmdas', 'ws', 'prio', 'darts', 'hfp'];

const caseArb = fc.record({
  spec: graphSpecArb,
  cpus: fc.integer({ min: 1, max: 2 }),
  gpus: fc.integer({ min: 0, max: 2 }),
  extraMemory: fc.integer({ min: 0, max: 8 }),
  sched: fc.constantFrom(...SCHEDULERS),
  eviction: fc.constantFrom(...Object.keys(EVICTION_POLICIES)),
  seed: fc.integer({ min: 0, max: 1000 }),
  trigger: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
});

test('the Runtime API computes what a sequential run computes, or settles everything with the error', async () => {
  let compared = 0;
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(caseArb, async (c) => {
      const refusing = c.trigger;
      const scheduler = refusing ? 'random' : c.sched;
      const eviction = refusing ? 'luf' : c.eviction;
      fc.pre(refusing || eviction !== 'luf' || createScheduler(scheduler).plannedTasks !== undefined);
      // Data of 250 to 1000 int32 words; the emulated GPUs hold the largest task and more.
      const lengths = c.spec.sizes.map((s) => s * 250);
      const tasks = c.spec.tasks.map((t) => {
        const seen = new Set<number>();
        const accesses: [number, (typeof MODES)[number]][] = [];
        for (const [h, m] of t.accesses) {
          const d = h % lengths.length;
          if (!seen.has(d)) accesses.push([d, MODES[m]!]);
          seen.add(d);
        }
        return { accesses, gpuOnly: t.kinds.length === 1 && t.kinds[0] === 'gpu' && c.gpus > 0 };
      });
      const footprint = Math.max(...tasks.map((t) => t.accesses.reduce((s, [d]) => s + 4 * lengths[d]!, 0)));
      const initial = lengths.map((n, d) =>
        Int32Array.from({ length: n }, (_, i) => Math.imul(d + 1, i + 7)),
      );
      // The sequential run.
      const expected = initial.map((a) => a.slice());
      tasks.forEach((t, id) => {
        checksum(
          t.accesses.map(([d]) => expected[d]!),
          Float64Array.from([id, ...t.accesses.map(([, m]) => MODE_BITS[m])]),
        );
      });
      const rt = await Runtime.create({
        cpus: c.cpus,
        gpus: c.gpus,
        gpuMemory: footprint + c.extraMemory * 1000,
        scheduler,
        eviction,
        seed: c.seed,
        onWarning: () => {},
      });
      const arrays = initial.map((a) => a.slice());
      const data = arrays.map((a, d) => rt.data(a, { name: `d${d}` }));
      const both = rt.codelet({ name: 'checksum', kernel: { module: KERNELS, export: 'checksum' } });
      const gpu =
        c.gpus > 0
          ? rt.codelet({
              name: 'checksumGpu',
              kinds: ['gpu'],
              kernel: { module: KERNELS, export: 'checksum' },
            })
          : both;
      const submitted: Task[] = [];
      let called = 0;
      tasks.forEach((t, id) => {
        submitted.push(
          rt.submit(
            t.gpuOnly ? gpu : both,
            t.accesses.map(([d, m]) => [data[d]!, m] as const),
            { args: [id, ...t.accesses.map(([, m]) => MODE_BITS[m])], onDone: () => called++ },
          ),
        );
      });
      if (refusing) {
        await assert.rejects(rt.wait(), /eviction luf needs a scheduler that plans tasks ahead/);
        for (const t of submitted) await assert.rejects(t.done, /eviction luf needs a scheduler/);
        await rt.close();
        assert.equal(called, submitted.length, 'every onDone was called');
        refused++;
        return;
      }
      try {
        await rt.wait({ sync: true });
        for (const t of submitted) await t.done;
      } finally {
        await rt.close();
      }
      assert.equal(called, submitted.length, 'every onDone was called');
      for (const [d, a] of arrays.entries()) assert.deepEqual(a, expected[d], `datum d${d}`);
      compared++;
    }),
    { numRuns: fuzzRuns(25), seed: fuzzSeed() },
  );
  assert.ok(compared > 0 && refused > 0, `${compared} runs compared, ${refused} refusals settled`);
});
