/**
 * `locus sweep --figure seed003`: the rows behind seed 003's Figures 2 and 3 and their plots.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolvePlatform } from '../src/platform/index.ts';
import { devicesSpec, runSeed003, speedupSpec } from '../src/report/seed003.ts';

describe('seed003 figure', () => {
  test('one speed-up row per benchmark and strategy; one device row per N-body iteration, device and plotted strategy', () => {
    const platform = resolvePlatform('sbac18', {});
    const seen: string[] = [];
    const r = runSeed003({
      platform,
      iterations: 3,
      benches: ['jacobi', 'nbody'],
      sizes: { jacobi: 32, nbody: 400 },
      onRun: (b, s) => seen.push(`${b}/${s}`),
    });
    assert.deepEqual(seen, [
      'jacobi/uniform',
      'jacobi/adaptive',
      'jacobi/adaptive-comm',
      'jacobi/oracle',
      'nbody/uniform',
      'nbody/adaptive',
      'nbody/adaptive-comm',
      'nbody/oracle',
    ]);
    assert.equal(r.speedup.length, 8);
    for (const row of r.speedup) assert.ok(row.speedup > 0 && Number.isFinite(row.speedup));
    // 2 strategies (uniform, adaptive-comm) x 3 iterations x 4 devices (3 GPUs and the CPU).
    assert.equal(r.nbodyDevices.length, 2 * 3 * 4);
    assert.deepEqual([...new Set(r.nbodyDevices.map((d) => d.strategy))], ['uniform', 'adaptive-comm']);
    assert.deepEqual([...new Set(r.nbodyDevices.map((d) => d.device))], ['gpu0', 'gpu1', 'gpu2', 'cpu']);
    // The rows are the runs' own numbers.
    const uniform = r.runs.find((x) => x.bench === 'nbody' && x.strategy === 'uniform')!;
    assert.deepEqual(
      r.nbodyDevices.filter((d) => d.strategy === 'uniform' && d.iteration === 1).map((d) => d.seconds),
      uniform.perIteration[1]!.deviceSeconds,
    );
    const s2 = speedupSpec(r.speedup, 'sbac18') as { data: { values: unknown[] } };
    assert.equal(s2.data.values.length, 8);
    const s3 = devicesSpec(r.nbodyDevices, 'sbac18') as { data: { values: unknown[] } };
    assert.equal(s3.data.values.length, 24);
  });
});
