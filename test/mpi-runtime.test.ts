/**
 * The library's distributed runs (`Runtime.create({ cluster: 'mpi' })`, src/cluster/cluster-runtime.ts):
 * examples/mpi-cholesky.ts as a job of one rank (no mpirun), on 4 ranks block-cyclic 2-D and
 * on 3 ranks cyclic 1-D under `mpirun --allow-run-as-root --oversubscribe`: rank 0's gathered
 * tiles factor the matrix, and rank 0 ran and received exactly what owner computes gives it.
 * The cluster options are refused in one line where they do not apply. The mpirun cases skip
 * with a reason where mpirun or the addon is absent.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LocusError } from '../src/core/types.ts';
import { Runtime } from '../src/exec/runtime.ts';
import { mpiSkip } from './helpers/mpi.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env, LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-models-')) };
const TIMEOUT_MS = 180_000;

/** Runs the example on `np` ranks (no mpirun for 1) and returns rank 0's JSON line. */
function cholesky(np: number, ...args: string[]): Record<string, unknown> {
  const node = [process.execPath, '--import', 'tsx', 'examples/mpi-cholesky.ts', '--json', ...args];
  const [cmd, ...argv] =
    np === 1 ? node : ['mpirun', '--allow-run-as-root', '--oversubscribe', '-np', String(np), ...node];
  const r = spawnSync(cmd!, argv, {
    cwd: root,
    encoding: 'utf8',
    env,
    timeout: TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  assert.equal(r.signal, null, `the run did not end within ${TIMEOUT_MS} ms\n${r.stdout}\n${r.stderr}`);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('{'));
  assert.equal(lines.length, 1, `one JSON line, from rank 0:\n${r.stdout}`);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

describe('Runtime.create({ cluster: "mpi" })', () => {
  test('a job of one rank runs everything and factors the matrix', { skip: mpiSkip }, () => {
    const r = cholesky(1);
    assert.equal(r.ranks, 1);
    assert.ok((r.residual as number) <= 1e-10, `residual ${r.residual}`);
    // 4 x 4 tiles: 4 POTRF, 6 TRSM, 6 SYRK, 4 GEMM, all on rank 0; no message.
    assert.deepEqual(r.rank0, {
      tasks: 20,
      messagesSent: 0,
      bytesSent: 0,
      messagesReceived: 0,
      bytesReceived: 0,
      registered: 10,
    });
  });

  test('4 ranks, 2-D block cyclic: owner computes, the tiles read elsewhere travel', {
    skip: mpiSkip,
  }, () => {
    const r = cholesky(4);
    assert.equal(r.distribution, '2d:2x2');
    assert.ok((r.residual as number) <= 1e-10, `residual ${r.residual}`);
    // Block (i, j) is on rank (i mod 2) 2 + (j mod 2). Rank 0 owns A(0,0), A(2,0), A(2,2): it
    // runs POTRF(0), TRSM(2,0), SYRK(2,0), SYRK(2,1), POTRF(2); it receives L(2,1) (rank 1's)
    // for SYRK(2,1); it sends L(0,0) to rank 2 once (TRSM(1,0), then cached for TRSM(3,0)),
    // L(2,0) to rank 1 (GEMM(2,1,0)) and rank 2 (GEMM(3,2,0)), L(2,2) to rank 2 (TRSM(3,2)):
    // 4 messages of 64 x 64 doubles.
    assert.deepEqual(r.rank0, {
      tasks: 5,
      messagesSent: 4,
      bytesSent: 4 * 64 * 64 * 8,
      messagesReceived: 1,
      bytesReceived: 64 * 64 * 8,
      registered: 4,
    });
  });

  test('3 ranks, 1-D cyclic over block rows, 6 x 6 tiles of 32', { skip: mpiSkip }, () => {
    const r = cholesky(3, '--distribution', '1d', '--tiles', '6', '--tile', '32');
    assert.equal(r.distribution, '1d');
    assert.ok((r.residual as number) <= 1e-10, `residual ${r.residual}`);
    // Rank 0 owns block rows 0 and 3, and runs the tasks that write them: POTRF(0); TRSM(3,0);
    // GEMM(3,1,0), TRSM(3,1); GEMM(3,2,0), GEMM(3,2,1), TRSM(3,2); SYRK(3,0..2), POTRF(3): 11.
    assert.equal((r.rank0 as { tasks: number }).tasks, 11);
  });

  test('cluster options are refused in one line where they do not apply', async () => {
    await assert.rejects(
      Runtime.create({ distribution: '2d' }),
      (e: unknown) =>
        e instanceof LocusError && e.code === 'LOCUS_OPTION_CONFLICT' && /cluster: 'mpi'/.test(e.message),
    );
    await assert.rejects(
      Runtime.create({ cluster: 'mpi', backend: 'simulated' }),
      (e: unknown) =>
        e instanceof LocusError && e.code === 'LOCUS_OPTION_CONFLICT' && !e.message.includes('\n'),
    );
    await assert.rejects(
      Runtime.create({ cluster: 'tcp' as 'mpi' }),
      (e: unknown) => e instanceof LocusError && e.code === 'LOCUS_OPTION_INVALID',
    );
  });
});
