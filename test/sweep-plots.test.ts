/**
 * Issue 26 item 10: sweep plots as paper figures. The throughput axis spans the data (the
 * peak line is drawn only when it falls in that range; the caption gives it otherwise), the
 * images carry no title (a caption file beside each), curves that coincide keep every marker
 * visible (hollow markers of different shapes and sizes), and the plots use GiB as the tables do.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  gflopsSpec,
  type PlotModel,
  peakShown,
  plotCaptions,
  plotModel,
  policyStyle,
  transfersSpec,
} from '../src/report/plots.ts';
import { runSweep } from '../src/report/sweep.ts';

/** The layers of a spec, as JSON values. */
function layers(spec: unknown): Record<string, unknown>[] {
  return (spec as { layer: Record<string, unknown>[] }).layer;
}

/** The y scale of the first layer that sets one. */
function yScale(spec: unknown): Record<string, unknown> {
  for (const l of layers(spec)) {
    const y = (l.encoding as { y?: { scale?: Record<string, unknown> } } | undefined)?.y;
    if (y?.scale) return y.scale;
  }
  throw new Error('no y scale');
}

const model = plotModel(
  runSweep({ workload: 'matmul2d', sizes: [4, 8], policies: ['eager', 'dmdar'], reps: 1 }),
  {
    title: 'Tiny sweep',
    kernel: 'gemm',
  },
);

describe('sweep plots as paper figures', () => {
  test('the throughput axis spans the data; a peak far above is left to the caption', () => {
    const ys = model.points.map((p) => p.gflops);
    const far: PlotModel = { ...model, peak: { gflops: 10 * Math.max(...ys), label: 'peak gemm: far' } };
    assert.equal(peakShown(far), false);
    const scale = yScale(gflopsSpec(far));
    assert.deepEqual(scale.domain, [Math.min(...ys), Math.max(...ys)]);
    assert.equal(scale.zero, false);
    assert.ok(!JSON.stringify(gflopsSpec(far)).includes('peak gemm: far'), 'no peak line drawn');
    assert.match(plotCaptions(far).gflops, / Not drawn, above the range shown: peak gemm: far\./);
    // A peak just above the data is drawn, and the axis reaches it.
    const near: PlotModel = { ...model, peak: { gflops: Math.max(...ys) * 1.01, label: 'peak gemm: near' } };
    assert.equal(peakShown(near), true);
    assert.ok(JSON.stringify(gflopsSpec(near)).includes('peak gemm: near'));
    assert.deepEqual(yScale(gflopsSpec(near)).domain, [Math.min(...ys), near.peak!.gflops]);
    assert.match(plotCaptions(near).gflops, / Dashed horizontal line: peak gemm: near\./);
  });

  test('no title in the images; the captions name the figure, the sweep and the marks', () => {
    for (const spec of [gflopsSpec(model), transfersSpec(model)]) {
      assert.equal((spec as { title?: unknown }).title, undefined);
    }
    const c = plotCaptions(model);
    assert.ok(
      c.gflops.startsWith(
        'Tiny sweep: throughput (GFlop/s) against the working set (GiB), one curve per policy. matmul2d ',
      ),
      c.gflops,
    );
    assert.ok(
      c.transfers.startsWith(
        'Tiny sweep: data transferred to the GPUs (GiB) against the working set (GiB), one curve per policy.',
      ),
      c.transfers,
    );
    assert.match(c.transfers, / Dashed curve: bus limit: 12\.38 GB\/s \(host-bus\) x minimum compute time\./);
  });

  test('curves that coincide keep their markers: hollow, of different shapes and sizes', () => {
    const eager = policyStyle('eager');
    const dmdar = policyStyle('dmdar');
    assert.notEqual(eager.shape, dmdar.shape);
    assert.notEqual(eager.size, dmdar.size);
    const points = layers(gflopsSpec(model)).find((l) => (l.mark as { type?: string }).type === 'point')!;
    assert.equal((points.mark as { filled?: boolean }).filled, false);
    const size = (points.encoding as { size: { scale: { domain: string[]; range: number[] } } }).size.scale;
    assert.deepEqual(size.domain, ['eager', 'dmdar']);
    assert.deepEqual(size.range, [eager.size, dmdar.size]);
  });

  test('one unit: GiB on both axes of the plots, and in the sweep tables', () => {
    const g = JSON.stringify(gflopsSpec(model));
    const t = JSON.stringify(transfersSpec(model));
    assert.ok(g.includes('Working set (GiB)') && t.includes('Working set (GiB)'));
    assert.ok(t.includes('Data transferred to the GPUs (GiB)'));
    assert.ok(!`${g}${t}`.includes('MiB'));
    assert.equal(
      model.points[0]!.ws,
      runSweep({ workload: 'matmul2d', sizes: [4], policies: ['eager'], reps: 1 }).sizes[0]!.workingSetBytes /
        2 ** 30,
    );
  });

  test('locus sweep writes a caption beside each plot and prints GiB in its tables', () => {
    const out = mkdtempSync(join(tmpdir(), 'locus-sweep-'));
    const r = spawnSync(
      process.execPath,
      ['bin/locus.mjs', 'sweep', '-w', 'matmul2d', '--sizes', '4,8', '--sched', 'eager,dmdar', '--out', out],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /\n {2}4 +0\.\d\d GiB /);
    assert.match(r.stdout, /transferred to the GPUs \(GiB\)/);
    for (const name of ['gflops', 'transfers']) {
      const caption = readFileSync(join(out, `${name}.caption.txt`), 'utf8');
      assert.match(caption, /^matmul2d sweep: .* one curve per policy\. matmul2d .*\.\n$/);
      assert.ok(!readFileSync(join(out, `${name}.svg`), 'utf8').includes('matmul2d sweep'));
    }
    assert.match(r.stdout, /gflops\.caption\.txt/);
  });
});
