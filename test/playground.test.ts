/**
 * The playground's runs (src/playground/simulate-run.ts, what its web worker calls) give the
 * report `locus run --json` gives for the same inputs, to the last digit (the wall-clock
 * figures aside).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { commandLine } from '../src/playground/command-line.ts';
import { simulateRun } from '../src/playground/simulate-run.ts';
import { cliReport, PLAYGROUND_CASES, presetFile, withoutWallClock } from './helpers/playground-cases.ts';

describe('a playground run', () => {
  for (const run of PLAYGROUND_CASES) {
    test(`equals ${commandLine(run)} --json`, async () => {
      const { report, page } = await simulateRun(run);
      assert.deepEqual(withoutWallClock(JSON.parse(JSON.stringify(report))), cliReport(run));
      assert.equal(page.columns.taskStart.length, report.tasks);
    });
  }

  for (const run of [
    { workload: 'random', params: { tasks: 300, data: 40, degree: 3 }, policy: 'dmdar' },
    { workload: 'taskbench', params: { pattern: 'stencil_1d', width: 8, steps: 12 }, policy: 'darts' },
    { workload: 'cholesky', params: { tiles: 6, precision: 'double' as const }, policy: 'dmdas' },
  ]) {
    test(`with other workload options: ${run.workload} ${JSON.stringify(run.params)}`, async () => {
      const full = { ...run, platform: { preset: 'v100x2' }, seed: 2 };
      const { report } = await simulateRun(full);
      assert.deepEqual(withoutWallClock(JSON.parse(JSON.stringify(report))), cliReport(full));
    });
  }

  test('with a pasted platform file, equals locus run --platform FILE --json', async () => {
    const run = {
      platform: { file: presetFile('hannibal'), gpuMem: 200 * 2 ** 20 },
      workload: 'cholesky',
      params: { tiles: 6 },
      policy: 'dmdas',
      seed: 1,
    };
    const { report } = await simulateRun(run);
    assert.equal(report.platform, 'hannibal');
    assert.deepEqual(withoutWallClock(JSON.parse(JSON.stringify(report))), cliReport(run));
  });

  test('bad input: a LocusError naming it', async () => {
    await assert.rejects(simulateRun({ ...PLAYGROUND_CASES[0]!, policy: 'nope' }), { name: 'LocusError' });
    await assert.rejects(
      simulateRun({ ...PLAYGROUND_CASES[0]!, platform: { preset: 'nowhere' } }),
      /unknown platform 'nowhere'/,
    );
    await assert.rejects(simulateRun({ ...PLAYGROUND_CASES[0]!, platform: { file: '{"name": 1}' } }), {
      name: 'LocusError',
    });
  });
});
