import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LocusError } from '../src/core/types.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';

const sorted = (events: unknown[]) => events.map((e) => JSON.stringify(e)).sort();

// Issue 12 item 12: --trace streams the trace to disk as the run goes.
describe('Chrome trace streamed to a file', () => {
  test('the streamed file holds exactly the events of the in-memory trace, and parses', () => {
    const wl = generateWorkload('cholesky', { tiles: 6 });
    const platform = resolvePlatform('v100x2', { gpuMem: 100 * 2 ** 20 });
    const file = join(mkdtempSync(join(tmpdir(), 'locus-trace-')), 't.json');
    const opts = { graph: wl.graph, platform, scheduler: 'dmdar', idle: { ea1: true, ea2: false } };
    const memory = simulate({ ...opts, trace: true }).trace!.toJSON();
    const streamed = simulate({ ...opts, traceFile: file });
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(parsed.displayTimeUnit, 'ms');
    assert.ok(memory.traceEvents.length > 100);
    assert.equal(parsed.traceEvents.length, memory.traceEvents.length);
    assert.deepEqual(sorted(parsed.traceEvents), sorted(memory.traceEvents));
    assert.throws(() => streamed.trace!.toJSON(), /streams to/);
  });

  test('an unwritable trace file is refused in one line before the run', () => {
    const wl = generateWorkload('matmul2d', { tiles: 2 });
    assert.throws(
      () =>
        simulate({
          graph: wl.graph,
          platform: resolvePlatform('v100x2'),
          traceFile: '/nonexistent-dir/t.json',
        }),
      (e: unknown) =>
        e instanceof LocusError &&
        e.code === 'LOCUS_FILE_WRITE_FAILED' &&
        /^cannot write the trace file \/nonexistent-dir\/t\.json: /.test(e.message),
    );
  });
});
