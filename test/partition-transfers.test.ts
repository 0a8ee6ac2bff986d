/**
 * Bytes moved between kernels equal the exact set difference of the instantiated regions,
 * derived by hand for Jacobi on a 6 x 6 grid split 3 ways (rows [0,2) [2,4) [4,6)).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jacobiSequence } from '../src/partition/bench/jacobi.ts';
import { partitionDevices } from '../src/partition/devices.ts';
import { FixedRatiosStrategy } from '../src/partition/fixed.ts';
import { runPartitioned } from '../src/partition/runner.ts';
import { resolvePlatform } from '../src/platform/index.ts';

const ROW = 6 * 8; // one row of 6 float64

function run(mode: 'simulated' | 'real') {
  const platform = resolvePlatform('hannibal', { gpus: 2 });
  const devices = partitionDevices(platform); // gpu0, gpu1, cpu
  assert.equal(devices.length, 3);
  const third = [1 / 3, 1 / 3, 1 / 3];
  return runPartitioned({
    sequence: jacobiSequence(6),
    platform,
    devices,
    strategy: new FixedRatiosStrategy([third, third]),
    iterations: 3,
    mode,
  });
}

describe('Jacobi split 3 ways: transfers', () => {
  for (const mode of ['simulated', 'real'] as const) {
    test(`${mode}: first iteration loads each device's rows with their halo, then only border rows move`, () => {
      const r = run(mode);
      // Iteration 0: stencil reads rows [0,3), [1,5), [3,6) of u, all valid on the host only.
      const first = r.iterations[0]!.observation.transfers;
      assert.deepEqual(
        first.map((t) => [t.producer, t.consumer, t.device, t.direction, t.bytes]),
        [
          [-1, 0, 0, 'h2d', 3 * ROW],
          [-1, 0, 1, 'h2d', 4 * ROW],
          [-1, 0, 2, 'h2d', 3 * ROW],
        ],
      );
      assert.equal(r.iterations[0]!.bytes, 10 * ROW);
      // Later iterations: device d owns rows R_d (written by copy, kernel 1); the stencil needs
      // R_d plus halo; the difference is row 2 for d0 (from d1), rows 1 and 4 for d1 (from d0
      // and d2), row 3 for d2 (from d1): each back to the host (D2H), then out (H2D).
      for (const it of r.iterations.slice(1)) {
        const got = it.observation.transfers.map((t) => [
          t.producer,
          t.consumer,
          t.device,
          t.direction,
          t.bytes,
        ]);
        assert.deepEqual(
          got.sort(),
          [
            [1, 0, 1, 'd2h', ROW], // row 2 for d0
            [1, 0, 0, 'h2d', ROW],
            [1, 0, 0, 'd2h', ROW], // row 1 for d1
            [1, 0, 2, 'd2h', ROW], // row 4 for d1
            [1, 0, 1, 'h2d', 2 * ROW],
            [1, 0, 1, 'd2h', ROW], // row 3 for d2 (merged with row 2's D2H from d1)
            [1, 0, 2, 'h2d', ROW],
          ]
            .reduce<(string | number)[][]>((acc, t) => {
              const same = acc.find((a) => a.slice(0, 4).join() === t.slice(0, 4).join());
              if (same) same[4] = (same[4] as number) + (t[4] as number);
              else acc.push([...t]);
              return acc;
            }, [])
            .sort(),
        );
        assert.equal(it.bytes, 8 * ROW);
      }
    });
  }
});
