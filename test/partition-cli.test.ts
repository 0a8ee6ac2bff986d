/** `locus partition`: the JSON report, and one-line errors with exit code 2 on bad input. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';

function locus(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', 'partition', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('locus partition', () => {
  test('--json: speed-up against the best single device, per-iteration times, bytes and ratios', () => {
    const r = locus(
      '--bench',
      'jacobi',
      '--size',
      '64',
      '--iterations',
      '3',
      '--platform',
      'hannibal',
      '--json',
    );
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual(j.devices, ['gpu0', 'gpu1', 'gpu2', 'cpu']);
    assert.equal(j.perIteration.length, 3);
    assert.equal(j.singleDevice.length, 4);
    const best = Math.min(...j.singleDevice.map((s: { seconds: number }) => s.seconds));
    assert.equal(j.bestSingleDevice.seconds, best);
    assert.equal(j.speedup, best / j.seconds);
    // Uniform: a quarter of the 64 rows each; then only halo rows move: 3 borders, one row each way, each D2H then H2D (12 rows of 64 x 8 bytes).
    assert.deepEqual(j.perIteration[1].ratios, [
      [0.25, 0.25, 0.25, 0.25],
      [0.25, 0.25, 0.25, 0.25],
    ]);
    assert.equal(j.perIteration[1].bytes, 6 * 2 * 64 * 8);
    assert.equal(j.perIteration[1].deviceSeconds.length, 4);
  });

  test('real mode with a slowed device runs and checks its result', () => {
    const r = locus(
      '--bench',
      '2spmv',
      '--size',
      '500',
      '--iterations',
      '2',
      '--mode',
      'real',
      '--slow-device',
      'gpu1',
      '--slowdown',
      '2',
      '--json',
    );
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.slowDevice, 'gpu1');
    assert.equal(j.checked, 'bit-identical to the unsplit run');
  });

  test('real mode on the main thread (--single-thread) checks its result', () => {
    const r = locus(
      '--bench',
      'fdtd2d',
      '--size',
      '32',
      '--iterations',
      '2',
      '--mode',
      'real',
      '--single-thread',
      '--json',
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).checked, 'bit-identical to the unsplit run');
  });

  const bad: [string, string[], RegExp][] = [
    ['no benchmark', [], /--bench is required/],
    ['unknown benchmark', ['--bench', 'lu'], /unknown benchmark 'lu'/],
    ['unknown strategy', ['--bench', 'jacobi', '--strategy', 'greedy'], /unknown strategy 'greedy'/],
    ['bad iterations', ['--bench', 'jacobi', '--iterations', '0'], /not a positive integer/],
    ['bad mode', ['--bench', 'jacobi', '--mode', 'fast'], /--mode must be simulated \(or sim\) or real/],
    [
      'slowdown in simulation',
      ['--bench', 'jacobi', '--slow-device', 'gpu0', '--slowdown', '2'],
      /apply to --mode real/,
    ],
    [
      'unknown slow device',
      ['--bench', 'jacobi', '--mode', 'real', '--slow-device', 'gpu9', '--slowdown', '2'],
      /no device 'gpu9'/,
    ],
    [
      'bad slowdown',
      ['--bench', 'jacobi', '--mode', 'real', '--slow-device', 'gpu0', '--slowdown', '0.5'],
      /not a slowdown factor/,
    ],
    [
      'single thread in simulation',
      ['--bench', 'jacobi', '--single-thread'],
      /--single-thread applies to --mode real/,
    ],
    ['size too small', ['--bench', 'jacobi', '--size', '3'], /size must be an integer >= 8/],
    ['unknown platform', ['--bench', 'jacobi', '--platform', 'nowhere'], /nowhere/],
  ];
  for (const [what, args, message] of bad) {
    test(`${what}: one line, exit 2`, () => {
      const r = locus(...args);
      assert.equal(r.code, 2, r.out);
      assert.match(r.err, message);
      assert.equal(r.err.trim().split('\n').length, 1, r.err);
    });
  }

  test('adaptive-comm and oracle run, check their result and report the LP solve time', () => {
    for (const s of ['adaptive', 'adaptive-comm', 'oracle']) {
      const r = locus('--bench', 'jacobi', '--strategy', s, '--iterations', '4', '--size', '256', '--json');
      assert.equal(r.code, 0, r.err);
      const out = JSON.parse(r.out);
      assert.equal(out.strategy, s);
      assert.equal(out.checked, 'bit-identical to the unsplit run');
      assert.equal(out.perIteration.length, 4);
      // The LP runs after every iteration but the last; the oracle solves nothing.
      const solved = out.perIteration.filter((it: { solveSeconds: number }) => it.solveSeconds > 0).length;
      assert.equal(solved, s === 'oracle' ? 0 : 3, s);
    }
  });
});
