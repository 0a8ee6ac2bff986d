/**
 * The inputs the playground is checked on (in Node and in Chromium) and the reports
 * `locus run --json` gives for them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandLine, type PlaygroundRun } from '../../src/playground/simulate-run.ts';

const ENV = { ...process.env, LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-models-')) };

/** Three inputs: matmul2d N=20 under eager and darts+luf; cholesky N=8 under dmdar, 100 MiB GPUs. */
export const PLAYGROUND_CASES: PlaygroundRun[] = [
  { platform: { preset: 'v100x2' }, workload: 'matmul2d', params: { tiles: 20 }, policy: 'eager', seed: 1 },
  {
    platform: { preset: 'v100x2' },
    workload: 'matmul2d',
    params: { tiles: 20 },
    policy: 'darts+luf',
    seed: 1,
  },
  {
    platform: { preset: 'v100x2', gpuMem: 100 * 2 ** 20 },
    workload: 'cholesky',
    params: { tiles: 8 },
    policy: 'dmdar',
    seed: 3,
  },
];

/** `locus run --json` for a run, its wall-clock figures left out. */
export function cliReport(run: PlaygroundRun): Record<string, unknown> {
  const args = commandLine(run).split(' ').slice(1);
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args, '--json'], { encoding: 'utf8', env: ENV });
  assert.equal(r.status, 0, r.stderr);
  return withoutWallClock(JSON.parse(r.stdout));
}

/** A report without wallS and schedulingS (they vary from run to run). */
export function withoutWallClock(report: object): Record<string, unknown> {
  const { wallS: _w, schedulingS: _s, ...rest } = report as Record<string, unknown>;
  return rest;
}
