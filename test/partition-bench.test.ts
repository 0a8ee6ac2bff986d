/**
 * Every benchmark split any way equals its unsplit run bit for bit: random device counts,
 * random ratios per kernel and per iteration (zeros included), simulated and real.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { BENCHMARKS, benchmarkSequence } from '../src/partition/benchmarks.ts';
import { partitionDevices } from '../src/partition/devices.ts';
import { runPartitioned, runSequential } from '../src/partition/runner.ts';
import type { PartitionStrategy } from '../src/partition/strategy.ts';
import { resolvePlatform } from '../src/platform/index.ts';

const SIZES = { jacobi: 16, fdtd2d: 12, '2spmv': 300, nbody: 300 } as const;
const ITERATIONS = 3;

/** Hands out the given ratio tables one iteration after the other. */
function scripted(tables: number[][][]): PartitionStrategy {
  let i = 0;
  return {
    name: 'scripted',
    initial: () => tables[0]!,
    next: () => ({ ratios: tables[++i]!, solveSeconds: 0 }),
  };
}

/** Weights (some 0) to ratios summing to 1; all 0 gives everything to the first device. */
function normalise(w: number[]): number[] {
  const s = w.reduce((a, b) => a + b, 0);
  return s === 0 ? w.map((_, i) => (i === 0 ? 1 : 0)) : w.map((x) => x / s);
}

function assertSame(ref: Record<string, ArrayLike<number>>, got: Record<string, ArrayLike<number>>): void {
  for (const [name, a] of Object.entries(ref)) {
    const b = got[name]!;
    for (let i = 0; i < a.length; i++)
      if (!Object.is(a[i], b[i])) assert.fail(`${name}[${i}]: split ${b[i]}, unsplit ${a[i]}`);
  }
}

describe('split runs equal the unsplit run bit for bit', () => {
  const platform = resolvePlatform('tsl'); // 4 GPUs and a CPU device
  const all = partitionDevices(platform);
  for (const bench of BENCHMARKS) {
    const sequence = benchmarkSequence(bench, { size: SIZES[bench], seed: 3 });
    const reference = runSequential(sequence, ITERATIONS);
    const m = sequence.kernels.length;
    test(bench, () => {
      const arb = fc.integer({ min: 1, max: all.length }).chain((n) =>
        fc.record({
          n: fc.constant(n),
          tables: fc.array(
            fc.array(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: n, maxLength: n }), {
              minLength: m,
              maxLength: m,
            }),
            {
              minLength: ITERATIONS,
              maxLength: ITERATIONS,
            },
          ),
          mode: fc.constantFrom('simulated' as const, 'real' as const),
        }),
      );
      fc.assert(
        fc.property(arb, ({ n, tables, mode }) => {
          const r = runPartitioned({
            sequence,
            platform,
            devices: all.slice(all.length - n),
            strategy: scripted(tables.map((t) => t.map(normalise))),
            iterations: ITERATIONS,
            mode,
            // The single-thread path here; the device threads: partition-threads.test.ts.
            threads: false,
          });
          assertSame(reference, r.buffers);
          for (const it of r.iterations) assert.ok(it.seconds > 0);
        }),
        { numRuns: 25, seed: 7 },
      );
    });
  }
});

describe('nbody start', () => {
  test('every quarter of the bins holds particles at the start (no device of a uniform split starts idle)', () => {
    const s = benchmarkSequence('nbody', { size: 8000 });
    const start = s.buffers.find((b) => b.name === 'start')!.init as Int32Array;
    const bins = start.length - 1;
    const counts = [0, 1, 2, 3].map((q) => {
      const lo = Math.floor((q * bins) / 4);
      const hi = Math.floor(((q + 1) * bins) / 4);
      return start[hi]! - start[lo]!;
    });
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      8000,
    );
    // Seed 1, 15 x 15 bins (37 particles a bin): the corner blob's 2000 particles lie in the
    // first 8 of 15 bin rows (about 1000 in each of the first two quarters), the other 6000
    // spread evenly (about 1500 a quarter).
    assert.equal(bins, 225);
    assert.deepEqual(counts, [2531, 2434, 1526, 1509]);
  });
});
