/**
 * Issue 26 item 4: a trace file appears whole or not at all. Streamed traces go to a hidden
 * temporary file renamed at the end; Ctrl-C or SIGTERM during `locus run --trace` completes a
 * trace of what ran (simulated) or leaves no file (real), says which in one line, and exits
 * with the signal's code (130, 143).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LocusError } from '../src/core/types.ts';
import { checkWritable, writeFileAtomic } from '../src/trace/atomic-file.ts';
import { TraceFile } from '../src/trace/trace-file.ts';

const ENV: NodeJS.ProcessEnv = {
  ...process.env,
  LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-models-')),
};

/** Starts `locus run ARGS`; resolves with its exit code and stderr once it exits. */
function start(
  args: string[],
  env = ENV,
): { child: ChildProcess; done: Promise<{ code: number | null; err: string }> } {
  const child = spawn(process.execPath, ['bin/locus.mjs', 'run', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  });
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const done = new Promise<{ code: number | null; err: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, err })),
  );
  return { child, done };
}

/** A fresh path for the readiness file of test/helpers/signal-ready.mjs. */
function readyFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'locus-ready-')), 'ready');
}

/** ENV plus the hook that writes `ready` once the run listens for SIGINT and SIGTERM. */
function readyEnv(ready: string): NodeJS.ProcessEnv {
  const hook = new URL('./helpers/signal-ready.mjs', import.meta.url).href;
  return {
    ...ENV,
    LOCUS_TEST_SIGNAL_READY: ready,
    NODE_OPTIONS: `${ENV.NODE_OPTIONS ?? ''} --import ${hook}`,
  };
}

/** Resolves once `file` exists (test/helpers/signal-ready.mjs: the run listens for SIGTERM). */
async function appears(file: string): Promise<void> {
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 20));
}

/** Resolves once a temporary trace file exists in `dir` (the simulation has started). */
async function partialAppears(dir: string): Promise<void> {
  while (!readdirSync(dir).some((f) => f.endsWith('.partial'))) await new Promise((r) => setTimeout(r, 20));
}

describe('trace files whole or absent', () => {
  test('a streamed trace is written under a temporary name: an aborted one leaves the path as it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-trace-'));
    const file = join(dir, 't.json');
    writeFileSync(file, 'earlier');
    const aborted = new TraceFile(file);
    aborted.event({ name: 'a', ph: 'i', ts: 0 });
    assert.deepEqual(readdirSync(dir).length, 2);
    aborted.abort();
    assert.deepEqual(readdirSync(dir), ['t.json']);
    assert.equal(readFileSync(file, 'utf8'), 'earlier');
    const done = new TraceFile(file);
    done.event({ name: 'b', ph: 'i', ts: 1 });
    done.close();
    assert.deepEqual(readdirSync(dir), ['t.json']);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).traceEvents, [{ name: 'b', ph: 'i', ts: 1 }]);
  });

  test('writeFileAtomic and checkWritable fail in one line and leave nothing behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-trace-'));
    writeFileAtomic(join(dir, 'a.json'), '{}');
    assert.deepEqual(readdirSync(dir), ['a.json']);
    checkWritable(join(dir, 'b.json'));
    assert.deepEqual(readdirSync(dir), ['a.json']);
    assert.throws(
      () => checkWritable(dir, `--trace ${dir}: cannot write the trace`),
      (e: unknown) =>
        e instanceof LocusError && e.message === `--trace ${dir}: cannot write the trace: ${dir} is a folder`,
    );
    assert.throws(
      () => writeFileAtomic(join(dir, 'none', 'c.json'), '{}'),
      (e: unknown) =>
        e instanceof LocusError &&
        e.code === 'LOCUS_FILE_WRITE_FAILED' &&
        e.message.startsWith(`cannot write ${join(dir, 'none', 'c.json')}: ENOENT`) &&
        !e.message.includes('\n'),
    );
    assert.deepEqual(readdirSync(dir), ['a.json']);
  });

  for (const [signal, code, verb] of [
    ['SIGINT', 130, 'interrupted'],
    ['SIGTERM', 143, 'terminated \\(SIGTERM\\)'],
  ] as const) {
    test(`${signal} during a simulated run with --trace: a trace of what ran, one line, exit ${code}`, {
      timeout: 60_000,
    }, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'locus-trace-'));
      const file = join(dir, 't.json');
      // 171,700 tasks: many seconds of simulation, stopped within its first ones.
      const ready = readyFile();
      const run = start(['-w', 'cholesky', '-n', '100', '--trace', file], readyEnv(ready));
      await partialAppears(dir);
      await appears(ready);
      run.child.kill(signal);
      const { code: exit, err } = await run.done;
      assert.equal(exit, code, err);
      assert.match(
        err,
        new RegExp(
          `^locus: ${verb}: the simulation stopped after (\\d+) of 171700 tasks; the trace of what ran is in ${file.replace(/[.]/g, '\\.')}\n$`,
        ),
      );
      const ended = Number(/after (\d+) of/.exec(err)![1]);
      assert.ok(ended < 171700, err);
      assert.deepEqual(readdirSync(dir), ['t.json']);
      const trace = JSON.parse(readFileSync(file, 'utf8'));
      // One complete event per ended task (the only events with a task's flop count).
      const tasks = trace.traceEvents.filter(
        (e: { ph: string; args?: { flops?: number } }) => e.ph === 'X' && e.args?.flops !== undefined,
      );
      assert.equal(tasks.length, ended);
    });
  }

  test('SIGTERM during a real run with --trace: no trace file, one line, exit 143', {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-trace-'));
    const file = join(dir, 't.json');
    // The JavaScript kernels: seconds of work, where the native ones may finish first.
    const ready = readyFile();
    const run = start(
      ['--mode', 'real', '-w', 'gemm', '--tiles', '12', '--tile-size', '256', '--cpus', '2', '--trace', file],
      { ...readyEnv(ready), LOCUS_KERNELS: 'js' },
    );
    // The run listens for SIGTERM before its runtime starts the threads; a little later tasks run.
    await appears(ready);
    await new Promise((r) => setTimeout(r, 300));
    run.child.kill('SIGTERM');
    const { code, err } = await run.done;
    assert.equal(code, 143, err);
    assert.equal(err, `locus: terminated (SIGTERM); worker threads stopped; no trace written to ${file}\n`);
    assert.equal(existsSync(file), false);
    assert.deepEqual(readdirSync(dir), []);
  });
});
