/**
 * Issue 27 item 1: when the engine refuses submitted tasks (an error raised only as they reach
 * it), every promise and callback the Runtime API handed out settles with that error (wait,
 * task.done, onDone, close, acquire, sync), in simulated and real mode, and the worker threads
 * do not keep the process alive afterwards.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Runtime, type RuntimeOptions } from '../src/exec/runtime.ts';

process.env.LOCUS_PERFMODEL_DIR = mkdtempSync(join(tmpdir(), 'locus-models-'));

const KERNELS = new URL('./helpers/kernels.ts', import.meta.url);

/** Options that make the engine refuse the first tasks it is handed, and the error it gives. */
const TRIGGERS: { name: string; options: RuntimeOptions; length: number; error: RegExp }[] = [
  {
    name: 'eviction luf under random',
    options: { scheduler: 'random', eviction: 'luf', cpus: 2 },
    length: 4,
    error: /eviction luf needs a scheduler that plans tasks ahead/,
  },
  {
    name: 'static without GPUs',
    options: { scheduler: 'static', cpus: 2 },
    length: 4,
    error: /scheduler static binds tasks to GPUs: the platform has none/,
  },
  {
    name: 'GPU memory too small for a task',
    options: { platform: 'local', cpus: 1, gpus: 1, gpuMemory: '1KiB', scheduler: 'dmda' },
    length: 1024,
    error: /needs 8.00 KiB of data at once but the largest memory of a worker able to run inc holds 1.00 KiB/,
  },
];

/** How the application observes the failure. */
const POINTS = ['wait', 'done', 'onDone', 'close', 'acquire', 'sync'] as const;

/** Runs one trigger in one mode and observes it at `point`; resolves with the error seen. */
async function observe(
  mode: 'real' | 'simulated',
  trigger: (typeof TRIGGERS)[number],
  point: (typeof POINTS)[number],
): Promise<unknown> {
  const rt = await Runtime.create({ ...trigger.options, mode, onWarning: () => {} });
  const x = rt.data(new Float64Array(trigger.length), { name: 'x' });
  const codelet = rt.codelet({
    name: 'inc',
    kernel: { module: KERNELS, export: 'inc' },
    ...(trigger.name.startsWith('GPU') ? { kinds: ['gpu'] as const } : {}),
  });
  let seen: unknown;
  let calls = 0;
  const tasks = [0, 1, 2].map(() =>
    rt.submit(codelet, [[x, 'RW']], {
      onDone: (e) => {
        calls++;
        if (point === 'onDone') seen = e;
      },
    }),
  );
  try {
    if (point === 'wait') await rt.wait();
    else if (point === 'done') await tasks[0]!.done;
    else if (point === 'acquire') await rt.acquire(x);
    else if (point === 'sync') await rt.sync();
    else if (point === 'onDone') {
      // The callback is called once the engine refused the tasks: wait for it (bounded).
      for (let i = 0; i < 200 && calls < 3; i++) await new Promise((r) => setTimeout(r, 10));
    }
  } catch (e) {
    seen = e;
  }
  let closeError: unknown;
  await rt.close().catch((e: unknown) => {
    closeError = e;
  });
  // close() reports the error only when no earlier promise or callback received it.
  if (point === 'close') seen = closeError;
  else
    assert.equal(closeError, undefined, 'close() did not rethrow an error the application already received');
  assert.equal(calls, 3, 'every onDone callback was called once');
  for (const t of tasks) assert.equal(t.state, 'failed');
  await Promise.all(tasks.map((t) => assert.rejects(t.done, trigger.error)));
  return seen;
}

for (const mode of ['simulated', 'real'] as const) {
  describe(`a refused task settles every promise and callback (${mode})`, { timeout: 120_000 }, () => {
    for (const trigger of TRIGGERS) {
      for (const point of POINTS) {
        test(`${trigger.name}: ${point}`, async () => {
          const seen = await observe(mode, trigger, point);
          assert.ok(seen instanceof Error, `${point} got the error (got ${String(seen)})`);
          assert.match(seen.message, trigger.error);
        });
      }
    }
  });
}

/** Runs `source` (an ES module importing the runtime) in a child process; its exit status and output. */
function runScript(source: string) {
  const dir = mkdtempSync(join(tmpdir(), 'locus-fatal-'));
  const file = join(dir, 'program.mts');
  writeFileSync(file, source);
  return spawnSync(process.execPath, ['--import', 'tsx', file], {
    encoding: 'utf8',
    timeout: 60_000,
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: { ...process.env, LOCUS_PERFMODEL_DIR: dir },
  });
}

const RUNTIME = new URL('../src/exec/runtime.ts', import.meta.url).href;

describe('a program ends on its own', { timeout: 120_000 }, () => {
  for (const mode of ['simulated', 'real'] as const) {
    test(`the documented try/finally pattern prints the error and exits (${mode})`, () => {
      const r = runScript(`
        import { Runtime } from ${JSON.stringify(RUNTIME)};
        const rt = await Runtime.create({ mode: '${mode}', scheduler: 'random', eviction: 'luf', cpus: 2 });
        try {
          const x = rt.data(new Float64Array(4));
          const c = rt.codelet({ name: 'inc', kernel: { module: ${JSON.stringify(KERNELS.href)}, export: 'inc' } });
          for (let i = 0; i < 3; i++) rt.submit(c, [[x, 'RW']]);
        } finally {
          await rt.close();
        }
      `);
      assert.equal(r.error, undefined, 'the program ended before the timeout');
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /eviction luf needs a scheduler that plans tasks ahead/);
    });
  }

  test('a real program that forgets close() exits once its work is done (issue 26 item 7)', () => {
    const r = runScript(`
      import { Runtime } from ${JSON.stringify(RUNTIME)};
      const rt = await Runtime.create({ cpus: 2 });
      const a = new Float64Array(4);
      const x = rt.data(a);
      const c = rt.codelet({ name: 'inc', kernel: { module: ${JSON.stringify(KERNELS.href)}, export: 'inc' } });
      for (let i = 0; i < 5; i++) rt.submit(c, [[x, 'RW']]);
      await rt.wait();
      await rt.sync();
      console.log('value', a[0]);
    `);
    assert.equal(r.error, undefined, 'the program ended before the timeout');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'value 5');
  });
});
