/**
 * Threaded real mode (one worker thread per emulated device, sub-kernels concurrent on shared
 * memories): every benchmark on 2, 3 and 4 devices, uneven and moving ratios, a slowed device,
 * equals the unsplit run bit for bit. No timing assertions.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LocusError } from '../src/core/types.ts';
import { BENCHMARKS, benchmarkSequence } from '../src/partition/benchmarks.ts';
import { partitionDevices } from '../src/partition/devices.ts';
import { runPartitioned, runSequential } from '../src/partition/runner.ts';
import type { PartitionStrategy } from '../src/partition/strategy.ts';
import { resolvePlatform } from '../src/platform/index.ts';

const SIZES = { jacobi: 24, fdtd2d: 16, '2spmv': 400, nbody: 400 } as const;
const ITERATIONS = 3;

/** Ratios that change every iteration: iteration i gives device d a weight (d + i) % n + 1, kernel k shifts it once more. */
function moving(n: number, m: number): PartitionStrategy {
  const table = (i: number) =>
    Array.from({ length: m }, (_, k) => {
      const w = Array.from({ length: n }, (_, d) => ((d + i + k) % n) + 1);
      const s = w.reduce((a, b) => a + b, 0);
      return w.map((x) => x / s);
    });
  let i = 0;
  return { name: 'moving', initial: () => table(0), next: () => ({ ratios: table(++i), solveSeconds: 0 }) };
}

describe('threaded real mode equals the unsplit run bit for bit', () => {
  const platform = resolvePlatform('tsl'); // 4 GPUs and a CPU device
  const all = partitionDevices(platform);
  for (const bench of BENCHMARKS) {
    const sequence = benchmarkSequence(bench, { size: SIZES[bench], seed: 5 });
    const reference = runSequential(sequence, ITERATIONS);
    for (const n of [2, 3, 4]) {
      test(`${bench} on ${n} devices`, { timeout: 120_000 }, () => {
        const r = runPartitioned({
          sequence,
          platform,
          devices: all.slice(0, n),
          strategy: moving(n, sequence.kernels.length),
          iterations: ITERATIONS,
          mode: 'real',
          slowDevice: 0,
          slowdown: 2,
          threads: true,
        });
        assert.equal(r.iterations.length, ITERATIONS);
        for (const [name, a] of Object.entries(reference)) {
          const b = r.buffers[name]!;
          assert.equal(b.length, a.length, name);
          for (let i = 0; i < a.length; i++)
            if (!Object.is(a[i], b[i])) assert.fail(`${name}[${i}]: threaded ${b[i]}, unsplit ${a[i]}`);
        }
        for (const it of r.iterations) {
          assert.equal(it.deviceSeconds.length, n);
          assert.equal(it.observation.seconds.length, sequence.kernels.length);
          for (const row of it.observation.seconds) assert.equal(row.length, n);
        }
      });
    }
  }

  test('a sequence without a source cannot run on device threads: one LocusError', () => {
    const { source: _, ...bare } = benchmarkSequence('jacobi', { size: 16 });
    assert.throws(
      () =>
        runPartitioned({
          sequence: bare,
          platform,
          devices: all.slice(0, 2),
          strategy: moving(2, bare.kernels.length),
          iterations: 1,
          mode: 'real',
          threads: true,
        }),
      (e: unknown) => e instanceof LocusError && /has no source/.test(e.message),
    );
  });
});
