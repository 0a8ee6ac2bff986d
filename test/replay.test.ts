/**
 * `locus replay` (src/replay/): a StarPU task record becomes the task graph it records
 * (dependencies from the accesses in submission order plus the recorded DependsOn edges, one
 * handle per address and size, scratch data left out, wont-use hints in place), replayed under
 * Locus's policies with the platform's or the record's durations, beside the recorded run.
 * Unknown fields are ignored; a malformed line is one error naming its line; gzipped records
 * read. (Records of real StarPU runs: test/fixtures/starpu-rec, in replay-starpu.test.ts.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { AccessMode, LocusError } from '../src/core/types.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { replay } from '../src/replay/replay.ts';
import { replayGraph } from '../src/replay/replay-graph.ts';
import { parseTasksRec } from '../src/replay/tasks-rec.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A record in StarPU's layout: potrf, two trsm, a gemm, out of submission order, with extras. */
const REC = `Name: POTRF
Model: chol_model_potrf
JobId: 11
SubmitOrder: 1
Priority: 3
Tag: 0
WorkerId: 0
MemoryNode: 0
SubmitTime: 1.000000
StartTime: 10.000000
EndTime: 12.000000
Footprint: 617e5fe6
GFlop: 0.295373
Handles: 55a0
Modes: RW
Sizes: 3686400
FutureField: ignored

Name: TRSM
Model: chol_model_trsm
JobId: 13
SubmitOrder: 3
Priority: 2
WorkerId: 0
StartTime: 12.000000
EndTime: 15.000000
GFlop: 0.884736
Handles: 55a0 55c0 77f0
Modes: R RW S
Sizes: 3686400 3686400 4096

Name: TRSM
Model: chol_model_trsm
JobId: 12
SubmitOrder: 2
Priority: 2
WorkerId: 1
StartTime: 12.000000
EndTime: 16.000000
GFlop: 0.884736
Handles: 55a0 55b0
Modes: R RW
Sizes: 3686400 3686400

Control: WontUse
JobId: 20
SubmitOrder: 4
SubmitTime: 17.000000
Handles: 55a0

Name: GEMM
Model: chol_model_gemm
JobId: 14
SubmitOrder: 5
DependsOn: 12 13 99
WorkerId: 1
StartTime: 16.000000
EndTime: 17.500000
GFlop: 1.769472
Handles: 55b0 55c0 55d0
Modes: R R RWC
Sizes: 3686400 3686400 3686400
`;

describe('StarPU task records', () => {
  test('the graph: submission order, accesses and modes, DependsOn, scratch left out, hints, the recorded run', () => {
    const rec = parseTasksRec(REC, 'x.rec');
    assert.equal(rec.tasks.length, 4);
    assert.deepEqual(rec.hints, [{ submitOrder: 4, handle: '55a0' }]);
    const r = replayGraph(rec);
    const g = r.graph;
    assert.deepEqual(
      Array.from({ length: g.taskCount }, (_, t) => g.codelets[g.taskCodelet.data[t]!]!.name),
      ['potrf', 'trsm', 'trsm', 'gemm'],
    );
    assert.deepEqual(g.accesses(2), [
      [0, AccessMode.R],
      [2, AccessMode.RW],
    ]);
    assert.deepEqual(g.accesses(3), [
      [1, AccessMode.R],
      [2, AccessMode.R],
      [3, AccessMode.RW],
    ]);
    assert.deepEqual(g.successors(0), [1, 2]);
    assert.deepEqual(g.predecessors(3), [1, 2]);
    assert.equal(g.taskPriority.data[0], 3);
    assert.equal(g.taskFlops.data[3], 1.769472e9);
    assert.equal(g.hintCount, 1);
    assert.deepEqual(r.notes, [
      '1 scratch data left out (per-task temporary buffers)',
      '1 dependencies on jobs not in the record (control tasks, other ranks) left out',
    ]);
    assert.deepEqual(Array.from(r.recordedWorker), [0, 1, 0, 1]);
    assert.deepEqual(Array.from(r.recordedSeconds), [0.002, 0.004, 0.003, 0.0015]);
    assert.equal(r.recordedMakespanS, 0.0075);
  });

  test('replayed with the recorded durations on 2 CPUs: the critical path of the record', () => {
    const platform = resolvePlatform('local', { cpus: 2 });
    const r = replay({ file: REC, text: true, platform, scheduler: 'eager', durations: 'recorded' });
    // POTRF 2 ms, then the two TRSMs in parallel (4 ms the longer), then GEMM 1.5 ms.
    assert.ok(Math.abs(r.report.makespanS - 0.0075) < 1e-9, String(r.report.makespanS));
    assert.equal(r.report.tasks, 4);
    assert.deepEqual(r.recorded.workers, [
      { worker: 0, tasks: 2, busyS: 0.005 },
      { worker: 1, tasks: 2, busyS: 0.0055 },
    ]);
  });

  test('a malformed line is one error naming its line; a record without tasks is refused', () => {
    assert.throws(
      () => parseTasksRec('JobId: 1\nHandles: 1\nModes: R\nSizes: 8\n\nnot a field\n', 'bad.rec'),
      (e: unknown) =>
        e instanceof LocusError &&
        e.message === "bad.rec: line 6: 'not a field' is not a 'Field: value' line",
    );
    assert.throws(
      () => parseTasksRec('JobId: 1\nHandles: 1 2\nModes: R\nSizes: 8\n', 'short.rec'),
      (e: unknown) =>
        e instanceof LocusError && /line 1: task 1: 2 Handles, 1 Modes and 1 Sizes/.test(e.message),
    );
    assert.throws(
      () =>
        replay({
          file: 'Control: WontUse\nHandles: 1\n',
          text: true,
          platform: resolvePlatform('local', {}),
        }),
      (e: unknown) => e instanceof LocusError && /no task record in it/.test(e.message),
    );
  });

  test('locus replay reads a gzipped record, prints the comparison, and refuses bad input in one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-replay-'));
    const file = join(dir, 'tasks.rec.gz');
    writeFileSync(file, gzipSync(REC));
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['bin/locus.mjs', 'replay', ...args], { cwd: root, encoding: 'utf8' });
    const ok = run(file, '--platform', 'local', '--cpus', '2', '--durations', 'recorded', '--json');
    assert.equal(ok.status, 0, ok.stderr);
    const j = JSON.parse(ok.stdout) as { tasks: number; makespanS: number; recorded: { makespanS: number } };
    assert.equal(j.tasks, 4);
    assert.equal(j.recorded.makespanS, 0.0075);
    const text = run(file, '--cpus', '2', '--durations', 'recorded');
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /recorded run: makespan 7\.5 ms; replay \/ recorded: 1\.000/);
    for (const [args, message] of [
      [[join(dir, 'missing.rec')], /missing\.rec: cannot read/],
      [[file, '--durations', 'guess'], /--durations must be 'platform' or 'recorded'/],
    ] as const) {
      const r = run(...args);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, message);
    }
    writeFileSync(join(dir, 'fake.rec.gz'), 'not gzip');
    const fake = run(join(dir, 'fake.rec.gz'));
    assert.equal(fake.status, 2);
    assert.match(fake.stderr, /not a gzip file/);
  });
});
