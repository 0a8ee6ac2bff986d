/**
 * The inputs the playground is checked on (in Node and in Chromium) and the reports
 * `locus run --json` gives for them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandLine } from '../../src/playground/command-line.ts';
import type { PlaygroundRun } from '../../src/playground/simulate-run.ts';

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

/** A platform file's text: the preset `name`'s, as `locus platforms NAME --json` writes it. */
export function presetFile(name: string): string {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', 'platforms', name, '--json'], {
    encoding: 'utf8',
    env: ENV,
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** `locus run --json` for a run (a pasted platform file goes to a file), its wall-clock figures left out. */
export function cliReport(run: PlaygroundRun): Record<string, unknown> {
  const args = commandLine(run).split(' ').slice(1);
  if ('file' in run.platform) {
    const file = join(mkdtempSync(join(tmpdir(), 'locus-platform-')), 'platform.json');
    writeFileSync(file, run.platform.file);
    args[args.indexOf('platform.json')] = file;
  }
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args, '--json'], { encoding: 'utf8', env: ENV });
  assert.equal(r.status, 0, r.stderr);
  return withoutWallClock(JSON.parse(r.stdout));
}

/** A report without wallS and schedulingS (they vary from run to run). */
export function withoutWallClock(report: object): Record<string, unknown> {
  const { wallS: _w, schedulingS: _s, ...rest } = report as Record<string, unknown>;
  return rest;
}
