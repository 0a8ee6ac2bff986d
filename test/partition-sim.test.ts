/**
 * Simulated split runs: a sub-kernel's time is the work in its own sub-range (non-zeros of its
 * rows, for the sparse products) over its device's rate for the codelet, and an iteration lasts
 * at least its slowest sub-kernel.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jacobiSequence } from '../src/partition/bench/jacobi.ts';
import { spmv2Sequence } from '../src/partition/bench/spmv2.ts';
import { deviceRate, LAUNCH_SECONDS, launchSeconds, partitionDevices } from '../src/partition/devices.ts';
import { FixedRatiosStrategy } from '../src/partition/fixed.ts';
import { BusCalibration, runPartitioned } from '../src/partition/runner.ts';
import { splitRange } from '../src/partition/split.ts';
import { resolvePlatform } from '../src/platform/index.ts';

describe('simulated sub-kernel times', () => {
  test('2SpMV: each sub-kernel takes its launch cost plus its non-zeros over its device rate', () => {
    const platform = resolvePlatform('hannibal', { gpus: 2 });
    const devices = partitionDevices(platform);
    const sequence = spmv2Sequence(400, 32, 5);
    const ratios = [
      [0.5, 0.3, 0.2],
      [0.1, 0.6, 0.3],
    ];
    const r = runPartitioned({
      sequence,
      platform,
      devices,
      strategy: new FixedRatiosStrategy(ratios),
      iterations: 2,
    });
    for (const it of r.iterations) {
      sequence.kernels.forEach((kernel, k) => {
        const rowptr = sequence.buffers.find((b) => b.name === (k === 0 ? 'A.rowptr' : 'B.rowptr'))!.init;
        splitRange(kernel.workGroups, ratios[k]!).forEach(([lo, hi], d) => {
          const nnz = rowptr[hi]! - rowptr[lo]!;
          const expected =
            launchSeconds(platform, devices[d]!) + nnz / deviceRate(platform, devices[d]!, 'spmv');
          const got = it.observation.seconds[k]![d]!;
          assert.ok(
            Math.abs(got - expected) <= 1e-12 * expected,
            `kernel ${k} device ${d}: ${got} vs ${expected}`,
          );
          assert.ok(it.seconds >= got);
        });
      });
    }
  });

  test('the strategy is told the ratios once rounded to whole work-groups (libsplit real granularities)', () => {
    const platform = resolvePlatform('sbac18', {});
    const devices = partitionDevices(platform).slice(0, 3);
    // 10 rows at [0.34, 0.33, 0.33]: boundaries round(3.4) = 3 and round(6.7) = 7.
    const r = runPartitioned({
      sequence: jacobiSequence(10),
      platform,
      devices,
      strategy: new FixedRatiosStrategy([
        [0.34, 0.33, 0.33],
        [0.34, 0.33, 0.33],
      ]),
      iterations: 2,
    });
    for (const it of r.iterations)
      assert.deepEqual(it.observation.ratios, [
        [0.3, 0.4, 0.3],
        [0.3, 0.4, 0.3],
      ]);
    // So, less the launch cost, seconds / (ng x) is the same for every device of a regular
    // kernel on equal GPUs.
    const [s0, s1, s2] = r.iterations[1]!.observation.seconds[1]!.map((s) => s - LAUNCH_SECONDS.gpu);
    assert.ok(Math.abs(s0! / 3 - s1! / 4) <= 1e-9 * s0! && Math.abs(s0! - s2!) <= 1e-12 * s0!);
  });

  test('a sub-kernel costs its launch even for one work-group: GPU 3 us, CPU device 20 us', () => {
    const platform = resolvePlatform('sbac18', {});
    const devices = partitionDevices(platform);
    assert.deepEqual(
      devices.map((d) => launchSeconds(platform, d)),
      [3e-6, 3e-6, 3e-6, 20e-6],
    );
    const sequence = jacobiSequence(8);
    const r = runPartitioned({
      sequence,
      platform,
      devices,
      strategy: new FixedRatiosStrategy([
        [0.125, 0.125, 0.125, 0.625],
        [0.125, 0.125, 0.125, 0.625],
      ]),
      iterations: 1,
    });
    const copy = r.iterations[0]!.observation.seconds[1]!;
    devices.forEach((d, i) => {
      const rows = i < 3 ? 1 : 5;
      const expected = launchSeconds(platform, d) + (8 * rows) / deviceRate(platform, d, 'jacobi-copy');
      assert.ok(Math.abs(copy[i]! - expected) <= 1e-12, `${d.name}: ${copy[i]} vs ${expected}`);
    });
  });
});

describe('BusCalibration (real mode Omega_d)', () => {
  test('seconds over bytes of the copies measured per device; the fallback where none', () => {
    const bus = new BusCalibration(3);
    bus.add(0, 0.002, 1000);
    bus.add(0, 0.006, 3000);
    bus.add(2, 0.001, 4000);
    bus.add(2, 0, 0);
    assert.deepEqual(bus.secondsPerByte([1, 2, 3]), [0.008 / 4000, 2, 0.001 / 4000]);
  });
});
