/**
 * Issue 26 item 2: the dm family with tasks it has no estimate for (no flop count, nothing
 * measured) spreads them over the workers, as StarPU's greedy placement for uncalibrated
 * codelets does, instead of sending them all to the first worker; it says so once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import { AccessMode } from '../src/core/types.ts';
import { Runtime } from '../src/exec/runtime.ts';
import { simulate } from '../src/sim/simulate.ts';
import { testPlatform } from './helpers/platforms.ts';

const KERNELS = new URL('./helpers/kernels.ts', import.meta.url);

/** `n` independent tasks of codelet 'inc', each on its own datum, with `flops` each. */
function independent(n: number, flops: number): TaskGraph {
  const g = new TaskGraph();
  const c = g.addCodelet({ name: 'inc', kinds: ['cpu', 'gpu'] });
  for (let i = 0; i < n; i++) g.submit(c, [[g.addHandle(512), AccessMode.RW]], { flops });
  return g;
}

describe('dm family without duration estimates', () => {
  for (const sched of ['dm', 'dmda', 'dmdar', 'dmdas']) {
    test(`${sched}: 64 tasks of no flops spread 32/32 over 2 CPU workers, with flops placed as before`, () => {
      const platform = testPlatform({ cpus: 2, gpus: 0, gpuCapacity: 0 });
      const spread = simulate({ graph: independent(64, 0), platform, scheduler: sched }).report;
      assert.deepEqual(
        spread.workers.map((w) => w.tasks),
        [32, 32],
      );
      // Known durations: the usual earliest-completion placement, unchanged.
      const known = simulate({ graph: independent(64, 1e9), platform, scheduler: sched }).report;
      assert.deepEqual(
        known.workers.map((w) => w.tasks),
        [32, 32],
      );
    });
  }

  test('a Runtime program with dmdar and no flop counts uses every CPU worker, and says why once', {
    timeout: 60_000,
  }, async () => {
    const warnings: string[] = [];
    const rt = await Runtime.create({
      cpus: 2,
      scheduler: 'dmdar',
      perfModelDir: mkdtempSync(join(tmpdir(), 'locus-models-')),
      onWarning: (m) => warnings.push(m),
    });
    try {
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
      const arrays = Array.from({ length: 64 }, () => new Float64Array(64));
      for (const a of arrays) rt.submit(inc, [[rt.data(a), 'RW']]);
      const report = await rt.wait();
      const tasks = report.workers.map((w) => w.tasks);
      assert.equal(
        tasks.reduce((a, b) => a + b, 0),
        64,
      );
      assert.ok(
        tasks.every((t) => t > 0),
        `tasks per worker: ${tasks.join(', ')}`,
      );
      assert.deepEqual(warnings, [
        "dmdar: codelet 'inc' has no duration estimate on cpu workers (no flop count and no measurements yet): its tasks go to the worker with the fewest queued tasks, to be measured, as StarPU does while calibrating; give the codelet flops, or run it once with the models recorded, for dmdar's placement",
      ]);
    } finally {
      await rt.close();
    }
  });
});
