/**
 * scripts/device-check.sh on the adapter found here (lavapipe on CI), in its `--quick` sizes:
 * every step runs and lands in the one JSON (adapter, SGEMM, Figure 2 real and simulated on the
 * platform calibrated in the same run), the matmul2d runs move data under the scaled-down caps,
 * and a bad --budget is one line with exit code 2. Skipped, with the reason, where no adapter
 * is found.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { noAdapter } from './helpers/webgpu.ts';

const skip = noAdapter === undefined ? {} : { skip: noAdapter };

describe('scripts/device-check.sh --quick', { timeout: 300_000, ...skip }, () => {
  test('writes one JSON with every step measured and no error', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'locus-device-check-')), 'check.json');
    const r = spawnSync('bash', ['scripts/device-check.sh', '--quick', '--out', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    const j = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(j.format, 'locus-device-check');
    assert.deepEqual(j.errors, []);
    assert.equal(typeof j.adapter.vendor, 'string');
    assert.equal(j.sgemm.length, 1);
    assert.ok(j.sgemm[0].gflops > 0);
    // The blocked TRSM and the earlier one, 3 variants each, both matching the CPU reference.
    assert.deepEqual(
      j.trsm.map((r: { kernel: string; variant: number }) => `${r.kernel} ${r.variant}`),
      ['blocked 0', 'row 0', 'blocked 1', 'row 1', 'blocked 2', 'row 2'],
    );
    for (const r of j.trsm) assert.ok(r.error < 1e-4 && r.ms > 0, JSON.stringify(r));
    // 3 sizes x 3 policies, real and simulated, in the same order.
    assert.equal(j.fig2.real.length, 9);
    assert.equal(j.fig2.sim.length, 9);
    for (const [i, row] of j.fig2.real.entries()) {
      const sim = j.fig2.sim[i];
      assert.equal(sim.tiles, row.tiles);
      assert.equal(sim.sched, row.sched);
      assert.equal(row.tasks, row.tiles * row.tiles);
      assert.equal(sim.tasks, row.tasks);
      // No CPU worker: every task on the two logical devices, never over their cap.
      assert.deepEqual(
        row.workers.map((w: { kind: string }) => w.kind),
        ['gpu', 'gpu'],
      );
      for (const n of row.peakBytes) assert.ok(n.peakBytes <= n.capacityBytes, `${n.name} over its cap`);
    }
    // The largest size does not fit the caps: every policy evicts.
    for (const row of j.fig2.real.filter((x: { tiles: number }) => x.tiles === 6))
      assert.ok(row.evictions > 0);
    assert.match(j.calibration.platform.description, /WebGPU calibration/);
    // examples/hybrid.mjs on 2 logical GPUs and 2 CPU threads: right, and on both kinds.
    assert.ok(j.hybrid.residual < 1e-4, `hybrid residual ${j.hybrid.residual}`);
    assert.deepEqual([...new Set(j.hybrid.workers.map((w: { kind: string }) => w.kind))].sort(), [
      'cpu',
      'gpu',
    ]);
  });

  test('a bad --budget is one line, exit code 2', () => {
    const r = spawnSync(process.execPath, ['scripts/device-check.mjs', '--budget', 'soon'], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /--budget soon/);
  });
});
