/**
 * `locus replay` on task records of real StarPU runs (test/fixtures/starpu-rec: Cholesky, LU and
 * SGEMM recorded CPU-only with StarPU master and FxT, README there): the replayed graph has the
 * trace's application tasks, and the dependencies Locus infers from the recorded accesses are
 * exactly the trace's DependsOn edges; it replays under every dynamic scheduler; with the
 * recorded durations under dmdar, the scheduler that recorded it, on 2 CPUs, its makespan is
 * within 10% of the recorded one.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { resolvePlatform } from '../src/platform/presets.ts';
import { compilePlatform } from '../src/platform/schema.ts';
import { importStarpuPlatform } from '../src/platform/starpu/import.ts';
import { readTasksRec, replay } from '../src/replay/replay.ts';
import { replayGraph } from '../src/replay/replay-graph.ts';
import { parseTasksRec } from '../src/replay/tasks-rec.ts';
import { createScheduler, SCHEDULERS } from '../src/sched/index.ts';

const file = (name: string) => fileURLToPath(new URL(`./fixtures/starpu-rec/${name}`, import.meta.url));
const RECORDS = [
  { name: 'cholesky-cpu2-dmdar.rec.gz', tasks: 364 },
  { name: 'lu-cpu2-dmdar.rec.gz', tasks: 204 },
  { name: 'sgemm-cpu2-dmdar.rec.gz', tasks: 16 },
];

describe('replaying StarPU runs', () => {
  for (const r of RECORDS) {
    test(`${r.name}: the trace's tasks, and the accesses imply exactly its dependencies`, () => {
      const rec = parseTasksRec(readTasksRec(file(r.name)), r.name);
      const app = rec.tasks.filter((t) => t.submitted).sort((a, b) => a.submitOrder - b.submitOrder);
      assert.equal(app.length, r.tasks);
      // The trace's edges between application tasks, by submission index.
      const index = new Map(app.map((t, i) => [t.jobId, i]));
      const recorded = new Set<string>();
      app.forEach((t, i) => {
        for (const d of t.dependsOn) if (index.has(d)) recorded.add(`${index.get(d)}->${i}`);
      });
      // Locus's graph from the accesses alone (DependsOn cleared).
      const inferred = replayGraph({ ...rec, tasks: rec.tasks.map((t) => ({ ...t, dependsOn: [] })) }).graph;
      assert.equal(inferred.taskCount, r.tasks);
      const edges = new Set<string>();
      for (let t = 0; t < inferred.taskCount; t++)
        for (const s of inferred.successors(t)) edges.add(`${t}->${s}`);
      assert.deepEqual([...edges].sort(), [...recorded].sort());
    });

    test(`${r.name}: replays under every dynamic scheduler; dmdar with the recorded durations is within 10%`, () => {
      const platform = resolvePlatform('local', { cpus: 2 });
      const dynamic = Object.keys(SCHEDULERS).filter((s) => createScheduler(s).dynamic === true);
      assert.ok(dynamic.length >= 8, dynamic.join(', '));
      for (const s of dynamic) {
        const out = replay({ file: file(r.name), platform, scheduler: s, durations: 'recorded' });
        assert.equal(out.report.tasks, r.tasks, s);
        assert.ok(out.report.makespanS > 0, s);
      }
      const dmdar = replay({ file: file(r.name), platform, scheduler: 'dmdar', durations: 'recorded' });
      const ratio = dmdar.report.makespanS / dmdar.recorded.makespanS;
      assert.ok(Math.abs(ratio - 1) < 0.1, `replay / recorded = ${ratio}`);
      assert.deepEqual(
        dmdar.recorded.workers.map((w) => w.worker),
        [0, 1],
      );
    });
  }

  test("StarPU's SimGrid runs on sirocco, replayed on the imported sirocco under the same scheduler: within 5%", async () => {
    const dir = fileURLToPath(new URL('./fixtures/starpu-sampling', import.meta.url));
    const { platform: spec } = await importStarpuPlatform({
      dir,
      host: 'sirocco',
      cpus: 0,
      gpus: 2,
      gpuMemory: 500 * 2 ** 20,
    });
    const platform = compilePlatform(spec, 'sirocco');
    for (const sched of ['dmdar', 'eager']) {
      const out = replay({
        file: file(`cholesky-simgrid-sirocco-${sched}.rec.gz`),
        platform,
        scheduler: sched,
      });
      assert.equal(out.report.tasks, 220);
      const ratio = out.report.makespanS / out.recorded.makespanS;
      assert.ok(Math.abs(ratio - 1) < 0.05, `${sched}: replay / recorded = ${ratio}`);
    }
  });
});
