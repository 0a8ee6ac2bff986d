/**
 * Distributed task insertion: the pure planner (src/cluster/insert-plan.ts) on a 4 x 4-tile
 * Cholesky over a 2 x 2 grid against a plan derived by hand, on other workloads against an
 * independent rule, and `locus run --mode real --cluster mpi` under mpirun (-np 4) for
 * cholesky, lu and jacobi against the single-process run (skipped where mpirun or the addon is
 * missing; every run bounded by a timeout and SIGKILL).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { blockCyclic2d, cyclic1d, parseDistribution, squarestGrid } from '../src/cluster/distribution.ts';
import { InsertionPlanner, type Transfer } from '../src/cluster/insert-plan.ts';
import type { Codelet } from '../src/core/graph.ts';
import { AccessMode, LocusError } from '../src/core/types.ts';
import { WORKLOADS } from '../src/workloads/index.ts';
import type { DataSpec, SubmitAccess, Submitter, TaskSpec } from '../src/workloads/submitter.ts';
import { mpiSkip } from './helpers/mpi.ts';

/** Feeds a workload to a planner and records every task's plan. */
class PlanSubmitter implements Submitter {
  // As the cluster's submitter (jacobi gives block coordinates to runs that compute); no
  // kernel runs and no initial value is made here.
  readonly computes = true;
  readonly names: string[] = [];
  readonly tasks: { name: string; executor: number; accesses: [number, number][] }[] = [];
  readonly transfers: (Transfer & { task: string })[] = [];
  constructor(readonly planner: InsertionPlanner) {}
  data(spec: DataSpec): number {
    this.names.push(spec.name);
    return this.planner.declare(spec.length * 8, spec.block);
  }
  codelet(_c: Codelet): number {
    return 0;
  }
  submit(_c: number, accesses: readonly SubmitAccess[], task: TaskSpec = {}): void {
    const plan = this.planner.task(accesses);
    const name = task.name ?? `task ${this.tasks.length}`;
    this.tasks.push({ name, executor: plan.executor, accesses: accesses.map(([h, m]) => [h, m]) });
    for (const t of plan.transfers) this.transfers.push({ ...t, task: name });
  }
}

function plan(
  workload: string,
  params: Record<string, unknown>,
  size: number,
  dist = blockCyclic2d(...squarestGrid(size)),
) {
  const g = WORKLOADS[workload]!;
  const s = new PlanSubmitter(new InsertionPlanner(size, dist));
  g.submit(s, g.instance(params));
  return s;
}

describe('data distributions', () => {
  test('squarest grids and block-cyclic owners', () => {
    assert.deepEqual(squarestGrid(4), [2, 2]);
    assert.deepEqual(squarestGrid(6), [2, 3]);
    assert.deepEqual(squarestGrid(7), [1, 7]);
    assert.deepEqual(squarestGrid(1), [1, 1]);
    const d = blockCyclic2d(2, 3);
    assert.equal(d({ index: 0, block: [3, 4] }), 1 * 3 + 1);
    assert.equal(cyclic1d(4)({ index: 9, block: [6, 1] }), 2);
    assert.equal(cyclic1d(4)({ index: 9 }), 1);
    assert.throws(
      () => parseDistribution('2d:3x3', 4),
      (e: unknown) => e instanceof LocusError && /3 x 3 grid has 9 ranks/.test(e.message),
    );
    assert.throws(
      () => parseDistribution('diag', 4),
      (e: unknown) => e instanceof LocusError && /2d, 2d:PxQ or 1d/.test(e.message),
    );
  });

  test('a distribution that names a rank out of range is one clear error', () => {
    const p = new InsertionPlanner(4, () => 4);
    assert.throws(
      () => p.declare(8, [0, 0]),
      (e: unknown) => e instanceof LocusError && /on rank 4: ranks are 0 \.\. 3/.test(e.message),
    );
  });
});

describe('insertion planner', () => {
  test('4 x 4-tile Cholesky on a 2 x 2 grid: executors and messages as derived by hand', () => {
    const s = plan('cholesky', { tiles: 4, tileSize: 4, precision: 'double' }, 4);
    // Owner of A[i,j]: (i mod 2) 2 + (j mod 2).
    const byRank = [0, 1, 2, 3].map((r) => s.tasks.filter((t) => t.executor === r).map((t) => t.name));
    assert.deepEqual(byRank, [
      ['POTRF(0)', 'TRSM(2,0)', 'SYRK(2,0)', 'SYRK(2,1)', 'POTRF(2)'],
      ['GEMM(2,1,0)', 'TRSM(2,1)'],
      ['TRSM(1,0)', 'TRSM(3,0)', 'GEMM(3,2,0)', 'GEMM(3,2,1)', 'TRSM(3,2)'],
      [
        'SYRK(1,0)',
        'GEMM(3,1,0)',
        'SYRK(3,0)',
        'POTRF(1)',
        'TRSM(3,1)',
        'SYRK(3,1)',
        'SYRK(3,2)',
        'POTRF(3)',
      ],
    ]);
    const msgs = s.transfers.map((t) => `${t.task}: ${s.names[t.handle]} ${t.from}->${t.to}`);
    assert.deepEqual(msgs, [
      'TRSM(1,0): A[0,0] 0->2',
      // TRSM(3,0) on rank 2 reads the cached A[0,0]: no message.
      'SYRK(1,0): A[1,0] 2->3',
      'GEMM(2,1,0): A[2,0] 0->1',
      'GEMM(2,1,0): A[1,0] 2->1',
      'GEMM(3,1,0): A[3,0] 2->3',
      'GEMM(3,2,0): A[2,0] 0->2',
      'TRSM(2,1): A[1,1] 3->1',
      'SYRK(2,1): A[2,1] 1->0',
      'GEMM(3,2,1): A[3,1] 3->2',
      'GEMM(3,2,1): A[2,1] 1->2',
      'TRSM(3,2): A[2,2] 0->2',
      'SYRK(3,2): A[3,2] 2->3',
    ]);
    const tileBytes = 4 * 4 * 8;
    assert.deepEqual(
      s.planner.counts.map((c) => [c.tasks, c.messagesSent, c.messagesReceived, c.bytesSent / tileBytes]),
      [
        [5, 4, 1, 4],
        [2, 2, 3, 2],
        [5, 4, 5, 4],
        [8, 2, 3, 2],
      ],
    );
    // Rank 0 already holds A[2,1] (received for SYRK(2,1)): the gather skips it.
    assert.deepEqual(
      s.planner.gather(0).map((t) => `${s.names[t.handle]} ${t.from}`),
      ['A[1,0] 2', 'A[1,1] 3', 'A[3,0] 2', 'A[3,1] 3', 'A[3,2] 2', 'A[3,3] 3'],
    );
  });

  test('tags are unique per (handle, version)', () => {
    const s = plan('lu', { tiles: 6, tileSize: 2, precision: 'double' }, 6);
    const tagOf = new Map<number, string>();
    for (const t of s.transfers) {
      const prev = tagOf.get(t.tag);
      const key = `${t.handle}:${t.from}`;
      // The same tag again is the same version of the same handle (sent to another rank).
      if (prev !== undefined) assert.equal(prev.split(':')[0], key.split(':')[0]);
      tagOf.set(t.tag, key);
    }
    assert.ok(tagOf.size > 0);
  });

  // Independent rule: one message per (version of a handle, rank other than its producer that
  // reads that version), whatever the order of the reads.
  for (const [workload, params, size, dist] of [
    ['cholesky', { tiles: 7, tileSize: 2 }, 4, undefined],
    ['lu', { tiles: 6, tileSize: 2 }, 6, undefined],
    ['jacobi', { tiles: 8, tileSize: 4, iterations: 5 }, 4, cyclic1d(4)],
    ['lu', { tiles: 5, tileSize: 2 }, 3, ({ index }: { index: number }) => (index * 7) % 3],
  ] as const) {
    test(`${workload} on ${size} ranks: messages = distinct (version, remote reader) pairs`, () => {
      const s = plan(workload, params, size, dist);
      const owner = (h: number) => s.planner.owner(h);
      const version = new Map<number, { producer: number; readers: Set<number> }>();
      const cur = (h: number) => {
        const v = version.get(h) ?? { producer: owner(h), readers: new Set<number>() };
        version.set(h, v);
        return v;
      };
      let expected = 0;
      const tasks = new Array<number>(size).fill(0);
      for (const t of s.tasks) {
        const w = t.accesses.find(([, m]) => m & AccessMode.W);
        const exec = owner((w ?? t.accesses[0]!)[0]);
        assert.equal(t.executor, exec, t.name);
        tasks[exec]!++;
        for (const [h, m] of t.accesses) {
          if (!(m & AccessMode.R)) continue;
          const v = cur(h);
          if (v.producer !== exec && !v.readers.has(exec)) {
            v.readers.add(exec);
            expected++;
          }
        }
        for (const [h, m] of t.accesses)
          if (m & AccessMode.W) version.set(h, { producer: exec, readers: new Set() });
      }
      assert.equal(s.transfers.length, expected);
      assert.deepEqual(
        s.planner.counts.map((c) => c.tasks),
        tasks,
      );
      assert.equal(
        s.planner.counts.reduce((a, c) => a + c.messagesSent, 0),
        expected,
      );
      assert.equal(
        s.planner.counts.reduce((a, c) => a + c.messagesReceived, 0),
        expected,
      );
      for (const t of s.transfers) assert.notEqual(t.from, t.to);
    });
  }
});

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env, LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-models-')) };
const skip = mpiSkip;
const RUN_TIMEOUT_MS = 240_000;
const CLI = [
  '--import',
  'tsx',
  'src/cli/index.ts',
  'run',
  '--mode',
  'real',
  '--check',
  '--json',
  '--no-record',
];

/** Runs `command args`, bounded by a timeout and SIGKILL; returns its JSON report and stderr. */
function run(command: string, args: string[]) {
  const r = spawnSync(command, args, {
    cwd: root,
    encoding: 'utf8',
    env,
    timeout: RUN_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  assert.equal(
    r.signal,
    null,
    `${command} did not end within ${RUN_TIMEOUT_MS} ms\n${r.stdout}\n${r.stderr}`,
  );
  assert.equal(r.status, 0, `${command} ${args.join(' ')} exited with ${r.status}\n${r.stdout}\n${r.stderr}`);
  // One report: rank 0's (the other ranks print nothing).
  return JSON.parse(r.stdout) as {
    residual: number;
    tasks: number;
    nodes: { peakBytes: number }[];
    cluster?: { ranks: number; perRank: Record<string, number>[]; total: Record<string, number> };
  };
}

/** Runs the CLI under `mpirun -np 4` with `--cluster mpi` and `args`. */
function run4(args: readonly string[]) {
  return run('mpirun', [
    '--allow-run-as-root',
    '--oversubscribe',
    '-np',
    '4',
    process.execPath,
    ...CLI,
    '--cluster',
    'mpi',
    ...args,
  ]);
}

/**
 * Independent rule of what each rank registers: the data it owns, receives, or accesses in a
 * task it runs; as [number of data, their bytes] per rank.
 */
function registered(p: ReturnType<typeof plan>, bytes: (h: number) => number): [number, number][] {
  const sets = Array.from({ length: p.planner.size }, () => new Set<number>());
  for (let h = 0; h < p.planner.handleCount; h++) sets[p.planner.owner(h)]!.add(h);
  for (const t of p.transfers) sets[t.to]!.add(t.handle);
  for (const t of p.tasks) for (const [h] of t.accesses) sets[t.executor]!.add(h);
  return sets.map((s) => [s.size, [...s].reduce((a, h) => a + bytes(h), 0)]);
}

describe('distributed runs under mpirun -np 4', { skip }, () => {
  for (const [workload, args, params, dist] of [
    ['cholesky', ['--tiles', '6', '--tile-size', '16'], { tiles: 6, tileSize: 16 }, undefined],
    ['lu', ['--tiles', '5', '--tile-size', '16'], { tiles: 5, tileSize: 16 }, undefined],
    [
      'jacobi',
      ['--tiles', '8', '--tile-size', '8', '--iterations', '4'],
      { tiles: 8, tileSize: 8, iterations: 4 },
      cyclic1d(4),
    ],
  ] as const) {
    test(`${workload}: the same result as one process, the planned messages`, {
      timeout: 2 * RUN_TIMEOUT_MS,
    }, () => {
      const one = run(process.execPath, [...CLI, '-w', workload, ...args]);
      const four = run4(['-w', workload, ...args]);
      // Both equal the sequential run bit for bit, hence each other.
      assert.equal(one.residual, 0);
      assert.equal(four.residual, 0);
      const p = plan(workload, { ...params, precision: 'double' }, 4, dist);
      const c = four.cluster!;
      assert.equal(c.ranks, 4);
      assert.deepEqual(
        c.perRank.map((r) => [r.tasks, r.messagesSent, r.messagesReceived]),
        p.planner.counts.map((r) => [r.tasks, r.messagesSent, r.messagesReceived]),
      );
      assert.equal(c.total.tasks, p.tasks.length);
      // Rank 0's report counts its application tasks, not the acquires posting its messages.
      assert.equal(four.tasks, c.perRank[0]!.tasks);
      assert.equal(c.total.bytesSent, c.total.bytesReceived);
      assert.equal(c.total.gatherMessages, p.planner.gather(0).length);
      // Each rank registers only what it owns, receives or accesses in its own tasks.
      const bytes = sizes(workload, params);
      assert.deepEqual(
        c.perRank.map((r) => [r.handles, r.peakBytes]),
        registered(p, (h) => bytes[h]!),
      );
    });
  }

  test('cholesky 4 x 4 tiles of 4 on a 2 x 2 grid: each rank registers what it owns and receives', {
    timeout: RUN_TIMEOUT_MS,
  }, () => {
    const r = run4(['-w', 'cholesky', '--tiles', '4', '--tile-size', '4']);
    assert.equal(r.residual, 0);
    const c = r.cluster!;
    // Owned (block-cyclic 2 x 2): rank 0 A00 A20 A22, rank 1 A21, rank 2 A10 A30 A32, rank 3
    // A11 A31 A33; received (the messages of the hand-derived plan above): rank 0 A21, rank 1
    // A20 A10 A11, rank 2 A00 A20 A31 A21 A22, rank 3 A10 A30 A32. Every task writes a tile of
    // its executor. A tile is 4 x 4 doubles: 128 bytes.
    assert.deepEqual(
      c.perRank.map((x) => x.handles),
      [4, 4, 8, 6],
    );
    assert.deepEqual(
      c.perRank.map((x) => x.peakBytes),
      [4 * 128, 4 * 128, 8 * 128, 6 * 128],
    );
    // Rank 0 then gathers the 6 tiles it lacks: all 10.
    assert.deepEqual(
      c.perRank.map((x) => x.finalBytes),
      [10 * 128, 4 * 128, 8 * 128, 6 * 128],
    );
    // Rank 0's runtime (its report, taken before the gather) holds as many bytes.
    assert.equal(r.nodes[0]!.peakBytes, 4 * 128);
  });
});

/** Bytes of every datum of a workload, in declaration order. */
function sizes(workload: string, params: Record<string, unknown>): number[] {
  const g = WORKLOADS[workload]!;
  const out: number[] = [];
  const s: Submitter = {
    computes: true,
    data: (spec) => out.push(spec.length * 8) - 1,
    codelet: () => 0,
    submit: () => {},
  };
  g.submit(s, g.instance({ ...params, precision: 'double' }));
  return out;
}
