/**
 * The cluster layer (src/cluster, native/locus_mpi.c): the one-line error where the addon is
 * missing, overlapping ticket acquires (what the MPI-like API builds on), and real runs under
 * `mpirun --allow-run-as-root --oversubscribe`: the API program on 2 ranks, the MPI ring of
 * seed 001's Figure 2 on 4, and a rank that exits or stalls mid-run (every rank stops with a
 * clear error, never a hang). The mpirun tests skip with a reason where mpirun or the addon is absent.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadMpi } from '../src/cluster/index.ts';
import { launcherRank, writeErrorLine } from '../src/cluster/launcher.ts';
import { LocusError } from '../src/core/types.ts';
import { Runtime } from '../src/exec/runtime.ts';
import { mpiSkip } from './helpers/mpi.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env, LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-models-')) };
const skip = mpiSkip;
const MPIRUN_TIMEOUT_MS = 180_000;

/** Runs `mpirun -np N node --import tsx <args>` from the repository root; never hangs. */
function mpirun(np: number, ...args: string[]) {
  const r = spawnSync(
    'mpirun',
    [
      '--allow-run-as-root',
      '--oversubscribe',
      '-np',
      String(np),
      process.execPath,
      '--import',
      'tsx',
      ...args,
    ],
    { cwd: root, encoding: 'utf8', env, timeout: MPIRUN_TIMEOUT_MS, killSignal: 'SIGKILL' },
  );
  assert.equal(r.signal, null, `mpirun did not end within ${MPIRUN_TIMEOUT_MS} ms\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** The JSON lines a run printed, by rank order of appearance. */
function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('cluster without mpirun', () => {
  test('a missing addon is one LocusError line naming the file and the fix', () => {
    const saved = process.env.LOCUS_MPI_ADDON;
    process.env.LOCUS_MPI_ADDON = join(tmpdir(), 'no-such-dir', 'locus_mpi.node');
    try {
      assert.throws(
        () => loadMpi(),
        (e: unknown) =>
          e instanceof LocusError &&
          e.code === 'LOCUS_MPI_UNAVAILABLE' &&
          !e.message.includes('\n') &&
          /no-such-dir.*is missing.*native\/build\.mjs/.test(e.message),
      );
    } finally {
      if (saved === undefined) delete process.env.LOCUS_MPI_ADDON;
      else process.env.LOCUS_MPI_ADDON = saved;
    }
  });

  test('ticket acquires overlap on one datum; a writer after them waits for both releases', async () => {
    // Its real run records task times: into the test's model folder, not ~/.locus.
    const rt = await Runtime.create({ cpus: 1, perfModelDir: env.LOCUS_PERFMODEL_DIR });
    try {
      const x = rt.data(new Float64Array(4), { name: 'x' });
      const first = rt.acquireTicket(x, 'R');
      const second = rt.acquireTicket(x, 'R');
      await Promise.all([first.data, second.data]);
      const module = new URL('./fixtures/mpi-kernels.ts', import.meta.url).href;
      const scale = rt.codelet({ name: 'scale', kernel: { module, export: 'scale' } });
      const writer = rt.submit(scale, [[x, 'RW']], { args: [2] });
      const third = rt.acquireTicket(x, 'R');
      let thirdGot = false;
      void third.data.then(() => {
        thirdGot = true;
      });
      rt.releaseTicket(first.ticket);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(rt.taskState(writer.id), 'pending');
      assert.equal(thirdGot, false);
      rt.releaseTicket(second.ticket);
      await third.data;
      assert.equal(rt.taskState(writer.id), 'finished');
      assert.throws(() => rt.releaseTicket(first.ticket), /acquire ticket \d+ is not held/);
      rt.releaseTicket(third.ticket);
    } finally {
      await rt.close();
    }
  });
});

describe('error lines under an MPI launcher', () => {
  /** What writeErrorLine writes on stderr, and when. */
  async function written(env: NodeJS.ProcessEnv, code: string) {
    const out: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((s: string) => out.push(s) > 0) as typeof process.stderr.write;
    try {
      const p = writeErrorLine('locus: bad input\n', code, env, 50);
      const before = [...out];
      await p;
      return { before, after: out };
    } finally {
      process.stderr.write = write;
    }
  }

  test('the rank comes from Open MPI, PMIx or MPICH; none outside a job', () => {
    assert.equal(launcherRank({ OMPI_COMM_WORLD_RANK: '3' }), 3);
    assert.equal(launcherRank({ PMIX_RANK: '2' }), 2);
    assert.equal(launcherRank({ PMI_RANK: '1' }), 1);
    assert.equal(launcherRank({}), undefined);
  });

  test('outside a job and on rank 0 the line comes at once', async () => {
    for (const env of [{}, { OMPI_COMM_WORLD_RANK: '0' }]) {
      const w = await written(env, 'LOCUS_OPTION_INVALID');
      assert.deepEqual(w.before, ['locus: bad input\n']);
    }
  });

  test('another rank: an input error comes late (mpirun ends it first); a rank-only error at once, naming it', async () => {
    const late = await written({ OMPI_COMM_WORLD_RANK: '2' }, 'LOCUS_OPTION_INVALID');
    assert.deepEqual(late, { before: [], after: ['locus: bad input\n'] });
    const own = await written({ OMPI_COMM_WORLD_RANK: '2' }, 'LOCUS_MPI_FAILED');
    assert.deepEqual(own.before, ['locus: rank 2: bad input\n']);
  });
});

describe('cluster under mpirun', { skip, timeout: 600_000 }, () => {
  test('the MPI-like API on data handles, 2 ranks', () => {
    const r = mpirun(2, 'test/mpi-api.program.ts');
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const lines = jsonLines(r.stdout);
    assert.equal(lines.length, 2, r.stdout);
    const r0 = lines.find((l) => l.rank === 0)!;
    const r1 = lines.find((l) => l.rank === 1)!;
    const spinError =
      'LOCUS_MPI_FAILED: Mpi.init: spinUs must be a number of microseconds from 0 to 1000000, got -1';
    assert.deepEqual(r0, {
      rank: 0,
      size: 2,
      thread: 'multiple',
      spinError,
      isendDone: [true, true],
      detached: 6,
      // the sum of i + 1 over 5000 round trips
      pingpong: { sum: (5000 * 4999) / 2 + 5000, immediateRan: true },
      blocking: { sum: (1000 * 999) / 2 + 1000, error: 'none' },
    });
    assert.deepEqual(r1, {
      rank: 1,
      size: 2,
      thread: 'multiple',
      spinError,
      testBefore: false,
      a: 10,
      b: 2,
      comm: [7, 9],
      array: [1, 2, 3],
      callbacks: 1,
      sizeError: 'LOCUS_MPI_FAILED: MPI request (peer 0, tag 11) failed: MPI_ERR_TRUNCATE: message truncated',
      pingpong: { sum: 5000 * 1024, immediateRan: true }, // bytes received: 5000 x 1 KB
      blocking: {
        sum: 1000 * 16, // bytes received: 1000 x 4 ints
        error: 'LOCUS_MPI_FAILED: MPI receive from 0, tag 31 failed: MPI_ERR_TRUNCATE: message truncated',
      },
    });
  });

  test('the MPI ring (seed 001, Figure 2), 4 ranks: the token is loops x ranks', () => {
    for (const loops of [5, 3]) {
      const r = mpirun(4, 'examples/mpi-ring.ts', '--loops', String(loops));
      assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
      assert.deepEqual(jsonLines(r.stdout), [
        { token: loops * 4, expected: loops * 4, ranks: 4, loops, thread: 'multiple' },
      ]);
    }
  });

  test('a rank that exits mid-run (code 3) stops every rank: mpirun names it', () => {
    const r = mpirun(4, 'examples/mpi-ring.ts', '--exit-rank', '2', '--exit-after', '2', '--timeout', '60');
    assert.equal(r.status, 3, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /rank 2: exiting on purpose at loop 2/);
    assert.match(r.stderr, /exited with non-zero status/);
    assert.deepEqual(jsonLines(r.stdout), []);
  });

  test('a rank that exits mid-run with code 0 (no finalize) stops every rank', () => {
    const r = mpirun(4, 'examples/mpi-ring.ts', '--exit-rank', '1', '--exit-after', '1', '--exit-code', '0');
    assert.notEqual(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /exited without calling "finalize"|exiting improperly/);
    assert.deepEqual(jsonLines(r.stdout), []);
  });

  for (const [what, args, line] of [
    [
      'a bad --distribution',
      ['--distribution', 'diag'],
      /--distribution must be 2d, 2d:PxQ or 1d \(got 'diag'\)/,
    ],
    ['a bad --tiles', ['--tiles', '0'], /--tiles .*'0' is not a positive integer/],
    ['a grid of another size', ['--distribution', '2d:3x3'], /a 3 x 3 grid has 9 ranks but the job has 4/],
  ] as const) {
    test(`${what} on 4 ranks: one error line (rank 0's) and exit code 2`, () => {
      const r = mpirun(
        4,
        'src/cli/index.ts',
        'run',
        '--mode',
        'real',
        '--cluster',
        'mpi',
        '-w',
        'cholesky',
        '--tile-size',
        '8',
        ...args,
      );
      assert.equal(r.status, 2, `${r.stdout}\n${r.stderr}`);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('locus:'));
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, line);
      assert.equal(r.stdout, '');
    });
  }

  test('a blocking receive from a silent peer: the watchdog aborts the job with one clear line', () => {
    const r = mpirun(2, 'test/mpi-block-stall.program.ts');
    assert.notEqual(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('locus:'));
    assert.deepEqual(lines, [
      'locus: rank 1: no MPI message completed in 2 s in a blocking send or receive (a peer died or the ranks do not match their sends and receives): aborting the job',
    ]);
  });

  test('a rank alive but silent: the watchdog aborts the job with one clear line', () => {
    const r = mpirun(4, 'examples/mpi-ring.ts', '--stall-rank', '1', '--timeout', '5');
    assert.notEqual(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(
      r.stderr,
      /locus: rank \d: no MPI message completed in 5 s with \d+ requests in flight \(a peer died or the ranks do not match their sends and receives\): aborting the job/,
    );
    assert.deepEqual(jsonLines(r.stdout), []);
  });
});
