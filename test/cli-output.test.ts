/**
 * Issue 26 item 11: when the output cannot be written (`locus run --json > /dev/full`), the
 * command says so in one line and exits with 2, instead of a stack trace and exit code 1.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

const FULL = '/dev/full';
const ENV = { ...process.env, LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-models-')) };

/** Runs `locus ARGS` with its standard output on /dev/full (every write fails with ENOSPC). */
function intoFullDevice(...args: string[]) {
  const fd = openSync(FULL, 'w');
  try {
    const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], {
      encoding: 'utf8',
      stdio: ['ignore', fd, 'pipe'],
      env: ENV,
    });
    return { code: r.status, err: r.stderr };
  } finally {
    closeSync(fd);
  }
}

describe('an output that cannot be written', { skip: existsSync(FULL) ? false : `no ${FULL} here` }, () => {
  for (const args of [
    ['run', '--workload', 'matmul2d', '--tiles', '4', '--json'],
    ['run', '--workload', 'matmul2d', '--tiles', '4'],
    ['policies'],
  ]) {
    test(`locus ${args.join(' ')} > ${FULL}: one line, exit code 2`, () => {
      const r = intoFullDevice(...args);
      assert.equal(r.code, 2, r.err);
      assert.equal(
        r.err,
        'locus: cannot write the output: ENOSPC: no space left on device, write; send it to a file or pipe that can take it\n',
      );
    });
  }
});
