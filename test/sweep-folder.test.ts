/**
 * Issue 26 item 6 and issue 27 item 4: `locus sweep` neither overwrites nor silently continues
 * an earlier sweep in its output folder; --resume refuses runs whose settings are unknown
 * (settings.json missing) instead of mixing two settings in runs.csv; a malformed runs.csv is
 * one line naming the file; a run refused after its trace check leaves the trace file as it was.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Runs the built CLI; its exit code and output. */
function locus(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Asserts one error line matching `re` and exit code 2. */
function refused(r: ReturnType<typeof locus>, re: RegExp): void {
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, re);
  assert.equal(r.err.trim().split('\n').length, 1, r.err);
}

describe('locus sweep output folder', { timeout: 300_000 }, () => {
  const sweep = (dir: string, ...more: string[]) =>
    locus('sweep', '-w', 'cholesky', '--sizes', '3', '--out', dir, '--no-plots', '--no-progress', ...more);

  test('an earlier sweep is refused without --resume or --force, overwritten with --force', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-sweep-'));
    assert.equal(sweep(dir).code, 0);
    const before = readFileSync(join(dir, 'runs.csv'), 'utf8');
    refused(
      sweep(dir, '--sched', 'dmda'),
      /^locus: .* holds an earlier sweep \(runs\.csv, settings\.json, summary\.csv\): give --resume to continue it, --force to overwrite it, or --out another folder\n$/,
    );
    assert.equal(readFileSync(join(dir, 'runs.csv'), 'utf8'), before, 'the earlier runs are untouched');
    refused(
      sweep(dir, '--resume', '--force'),
      /^locus: --resume continues the earlier sweep and --force overwrites it: give one\n$/,
    );
    const forced = sweep(dir, '--sched', 'dmda', '--force');
    assert.equal(forced.code, 0, forced.err);
    assert.match(readFileSync(join(dir, 'runs.csv'), 'utf8'), /,dmda,/);
  });

  test('--resume with settings.json missing refuses the runs of unknown settings', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-sweep-'));
    assert.equal(sweep(dir, '--no-clean-first').code, 0);
    rmSync(join(dir, 'settings.json'));
    const before = readFileSync(join(dir, 'runs.csv'), 'utf8');
    refused(
      sweep(dir, '--sizes', '3,4', '--resume'),
      /^locus: .*settings\.json is missing: the settings of the runs in runs\.csv beside it are unknown, so they cannot be resumed; start over with --force/,
    );
    assert.equal(readFileSync(join(dir, 'runs.csv'), 'utf8'), before, 'no row of other settings was added');
    assert.equal(existsSync(join(dir, 'settings.json')), false, 'settings.json was not rewritten');
  });

  test('a corrupt settings.json does not suggest removing it to skip the check', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-sweep-'));
    assert.equal(sweep(dir).code, 0);
    writeFileSync(join(dir, 'settings.json'), '{');
    refused(
      sweep(dir, '--resume'),
      /^locus: cannot read .*settings\.json: .*; restore it, or start over with --force/,
    );
  });

  test('a malformed runs.csv is one line naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-sweep-'));
    assert.equal(sweep(dir).code, 0);
    const runs = join(dir, 'runs.csv');
    writeFileSync(runs, `${readFileSync(runs, 'utf8')}"unterminated\n`);
    refused(
      sweep(dir, '--resume'),
      new RegExp(`^locus: ${runs.replaceAll('/', '\\/')}: CSV text ends inside a quoted field`),
    );
  });
});

describe('locus run --trace', () => {
  test('a run refused after its trace check neither creates nor empties the trace file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-trace-'));
    const kept = join(dir, 'kept.json');
    writeFileSync(kept, 'an earlier trace');
    const big = ['run', '-w', 'cholesky', '--tiles', '300', '--tile-size', '20000'];
    refused(locus(...big, '--trace', kept), /^locus: the data .* do not fit in host memory/);
    assert.equal(readFileSync(kept, 'utf8'), 'an earlier trace');
    const fresh = join(dir, 'fresh.json');
    refused(locus(...big, '--trace', fresh), /^locus: the data .* do not fit in host memory/);
    assert.equal(existsSync(fresh), false);
    refused(
      locus('run', '-w', 'cholesky', '--tiles', '3', '--trace', join(dir, 'no-such-dir', 't.json')),
      /^locus: --trace .*: cannot write the trace: folder .* does not exist\n$/,
    );
    refused(
      locus('run', '-w', 'cholesky', '--tiles', '3', '--trace', dir),
      /^locus: --trace .*: cannot write the trace: .* is a folder\n$/,
    );
  });
});
