/**
 * LocusError codes: every code is documented in docs/errors.md and every documented code
 * exists; representative errors of the library (Runtime, simulate, platform loading) carry the
 * right code and name no CLI flag; the CLI prints one line without the code and exits with 2.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { cliMessage, forFlag } from '../src/cli/errors.ts';
import { TaskGraph } from '../src/core/graph.ts';
import { AccessMode, LOCUS_ERROR_CODES, LocusError, type LocusErrorCode } from '../src/core/types.ts';
import { Runtime } from '../src/exec/runtime.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { parsePlatformFile } from '../src/platform/schema.ts';
import { parseMapping } from '../src/sched/mapping.ts';
import { simulate } from '../src/sim/simulate.ts';
import { parseIdlePolicy } from '../src/trace/energy.ts';
import { generateWorkload } from '../src/workloads/index.ts';

/** Asserts that `f` throws (or rejects with) a one-line LocusError with `code`, naming no flag. */
function throwsCode(f: () => unknown, code: LocusErrorCode, message: RegExp): void {
  assert.throws(f, (e: unknown) => check(e, code, message));
}

async function rejectsCode(f: () => Promise<unknown>, code: LocusErrorCode, message: RegExp): Promise<void> {
  await assert.rejects(f, (e: unknown) => check(e, code, message));
}

function check(e: unknown, code: LocusErrorCode, message: RegExp): true {
  assert.ok(e instanceof LocusError, `expected a LocusError, got ${String(e)}`);
  assert.equal(e.code, code, e.message);
  assert.match(e.message, message);
  assert.ok(!e.message.includes('\n'), `several lines: ${e.message}`);
  assert.ok(!/(^|\s)--[a-z]/.test(e.message), `a library message names a CLI flag: ${e.message}`);
  return true;
}

/** A graph of one task on a 1 KiB datum under a codelet of `kinds`. */
function oneTask(kinds: ('cpu' | 'gpu')[] = ['cpu', 'gpu']): TaskGraph {
  const g = new TaskGraph();
  const c = g.addCodelet({ name: 'k', kinds });
  const h = g.addHandle(1024, { name: 'x' });
  g.submit(c, [[h, AccessMode.RW]], { name: 'T', flops: 1e9 });
  return g;
}

describe('the codes', () => {
  test('every code is documented in docs/errors.md, and every documented code exists', () => {
    const text = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
    const documented = [...text.matchAll(/^\| `(LOCUS_[A-Z_]+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual([...documented].sort(), [...LOCUS_ERROR_CODES].sort());
    assert.equal(new Set(documented).size, documented.length, 'a code is documented twice');
    // The API reference and the README link the page.
    assert.match(readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8'), /\]\(errors\.md\)/);
    assert.match(readFileSync(new URL('../README.md', import.meta.url), 'utf8'), /\]\(docs\/errors\.md\)/);
  });

  test('a code is a readonly own property, shown by util.inspect as Node shows its own codes', () => {
    const e = new LocusError('LOCUS_OPTION_INVALID', 'bad', { cause: 'why' });
    assert.equal(e.code, 'LOCUS_OPTION_INVALID');
    assert.equal(e.message, 'bad');
    assert.equal(e.name, 'LocusError');
    assert.equal(e.cause, 'why');
    assert.ok(Object.keys(e).includes('code'));
    assert.equal(String(e), 'LocusError: bad'); // the message does not carry the code
  });

  test('the package entry point exports the codes', async () => {
    const api = await import('../src/index.ts');
    assert.equal(api.LOCUS_ERROR_CODES, LOCUS_ERROR_CODES);
    assert.equal(api.LocusError, LocusError);
  });

  test('a workload parameter is named as the API names it, and as the CLI flag on the command line', () => {
    let err: unknown;
    try {
      generateWorkload('cholesky', { tileSize: 0 });
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof LocusError);
    assert.equal(err.code, 'LOCUS_OPTION_INVALID');
    assert.equal(err.message, 'tileSize must be a positive integer (got 0)');
    assert.deepEqual(err.params, ['tileSize']);
    assert.equal(cliMessage(err), '--tile-size must be a positive integer (got 0)');
    const both = new LocusError(
      'LOCUS_OPTION_CONFLICT',
      'degree must be at most data (got 3 inputs for 2 data)',
      {
        params: ['degree', 'data'],
      },
    );
    assert.equal(cliMessage(both), '--degree must be at most --data (got 3 inputs for 2 data)');
  });
});

describe('library errors', () => {
  test('Runtime: options, data, codelets, state', async () => {
    await rejectsCode(
      () => Runtime.create({ mode: 'fast' as 'real' }),
      'LOCUS_OPTION_INVALID',
      /^mode must be simulated \(or sim\) or real \(got 'fast'\)$/,
    );
    const rt = await Runtime.create({ mode: 'simulated' });
    throwsCode(
      () => rt.scratch('float64', 0),
      'LOCUS_DATA_INVALID',
      /^data length must be a positive integer \(got 0\)$/,
    );
    throwsCode(() => rt.scratch('float16' as 'float64', 4), 'LOCUS_OPTION_INVALID', /unknown dtype/);
    throwsCode(() => rt.codelet({ name: '' }), 'LOCUS_GRAPH_INVALID', /^a codelet needs a name$/);
    const k = rt.codelet({ name: 'k' });
    const x = rt.data(new Float64Array(4), { name: 'x' });
    throwsCode(
      () =>
        rt.submit(k, [
          [x, 'R'],
          [x, 'W'],
        ]),
      'LOCUS_GRAPH_INVALID',
      /lists x twice/,
    );
    throwsCode(() => rt.release(x), 'LOCUS_STATE_INVALID', /^x is not acquired$/);
    await rt.close();
    throwsCode(() => rt.scratch('float64', 4), 'LOCUS_STATE_INVALID', /^this runtime is closed/);
  });

  test('simulate: options, graphs, policies', () => {
    const platform = resolvePlatform('v100x2');
    throwsCode(
      () => simulate({ graph: oneTask(), platform, noise: 2 }),
      'LOCUS_OPTION_INVALID',
      /^noise must be in \[0, 1\) \(got 2\)$/,
    );
    throwsCode(
      () => simulate({ graph: oneTask(), platform, submitWindow: 0 }),
      'LOCUS_OPTION_INVALID',
      /^submitWindow must be a positive integer \(got 0\)$/,
    );
    // A dependency added once later tasks were submitted: refused before the run, not midway.
    const late = new TaskGraph();
    const k = late.addCodelet({ name: 'k', kinds: ['gpu'] });
    const [a, b] = [late.addHandle(1000), late.addHandle(1000)];
    for (let i = 0; i < 6; i++) late.submit(k, [[i < 3 ? a : b, AccessMode.RW]], { flops: 1e6 });
    late.addDependency(0, 4);
    throwsCode(
      () => simulate({ graph: late, platform, submitWindow: 2 }),
      'LOCUS_OPTION_CONFLICT',
      /^submitWindow: the dependency #0 -> #4 was added after task #5 was submitted; .* or run without submitWindow$/,
    );
    assert.equal(simulate({ graph: late, platform, submitWindow: 6 }).report.tasks, 6);
    // Out of order within the first window, which is submitted at once: it runs.
    const early = new TaskGraph();
    const e = early.addCodelet({ name: 'k', kinds: ['gpu'] });
    const hs = Array.from({ length: 5 }, () => early.addHandle(1000));
    for (const h of [0, 1, 0, 2, 3, 4]) early.submit(e, [[hs[h]!, AccessMode.RW]], { flops: 1e6 });
    early.addDependency(0, 1);
    assert.equal(simulate({ graph: early, platform, submitWindow: 3 }).report.tasks, 6);
    throwsCode(
      () => simulate({ graph: early, platform, submitWindow: 2 }),
      'LOCUS_OPTION_CONFLICT',
      /^submitWindow: the dependency #0 -> #1 was added after task #2 was submitted/,
    );
    throwsCode(
      () => simulate({ graph: oneTask(), platform, scheduler: 'nope' }),
      'LOCUS_NAME_UNKNOWN',
      /nope/,
    );
    throwsCode(
      () => simulate({ graph: oneTask(), platform, scheduler: 'eager', eviction: 'luf' }),
      'LOCUS_POLICY_INCOMPATIBLE',
      /^eviction luf needs a scheduler that plans tasks ahead/,
    );
    throwsCode(
      () =>
        simulate({
          graph: oneTask(),
          platform: resolvePlatform('v100x2', { gpus: 0, cpus: 2 }),
          scheduler: 'static',
        }),
      'LOCUS_POLICY_INCOMPATIBLE',
      /^scheduler static binds tasks to GPUs/,
    );
    const cyclic = oneTask();
    const c = cyclic.addCodelet({ name: 'k2', kinds: ['cpu'] });
    const t = cyclic.submit(c, [], { name: 'U' });
    cyclic.addDependency(0, t);
    cyclic.addDependency(t, 0);
    throwsCode(
      () => simulate({ graph: cyclic, platform }),
      'LOCUS_GRAPH_INVALID',
      /^cycle in explicit dependencies/,
    );
    throwsCode(
      () => simulate({ graph: oneTask(), platform, traceFile: '/nonexistent-dir/t.json' }),
      'LOCUS_FILE_WRITE_FAILED',
      /^cannot write the trace file \/nonexistent-dir\/t\.json: /,
    );
  });

  test('platform loading: names, files, preset options', () => {
    throwsCode(() => resolvePlatform('nope'), 'LOCUS_NAME_UNKNOWN', /^unknown platform 'nope': use a preset/);
    throwsCode(() => resolvePlatform('/nonexistent/p.json'), 'LOCUS_NAME_UNKNOWN', /not found/);
    throwsCode(
      () => resolvePlatform('v100x2', { gpus: 99 }),
      'LOCUS_PLATFORM_INVALID',
      /^preset v100x2: gpus = 99, but the machine has 8 GPUs/,
    );
    throwsCode(() => resolvePlatform('v100x2', { gpus: 0, cpus: 0 }), 'LOCUS_PLATFORM_INVALID', /no workers/);
    throwsCode(() => parsePlatformFile('{', 'p.json'), 'LOCUS_PLATFORM_INVALID', /^p\.json: invalid JSON/);
    throwsCode(
      () => parsePlatformFile('[]', 'p.json'),
      'LOCUS_PLATFORM_INVALID',
      /^p\.json: a platform file holds/,
    );
  });

  test('helpers the CLI passes its flags to speak of API terms', () => {
    throwsCode(() => parseIdlePolicy('ea3'), 'LOCUS_OPTION_INVALID', /^idle policy must be poll/);
    throwsCode(() => parseMapping('3d', 4), 'LOCUS_OPTION_INVALID', /^a block mapping is 2d, /);
  });
});

describe('the CLI', () => {
  const locus = (...args: string[]) =>
    spawnSync(process.execPath, ['bin/locus.mjs', ...args], { encoding: 'utf8' });

  test('prints the message on one line, without code or stack, and exits with 2', () => {
    const cases: [string[], RegExp][] = [
      [['run', '--sched', 'nope'], /^locus: unknown scheduler 'nope': schedulers: eager, /],
      [
        ['run', '--idle', 'ea3'],
        /^locus: --idle: idle policy must be poll, ea1, ea2 or ea1\+ea2 \(got 'ea3'\)\n$/,
      ],
      [['run', '--platform', 'nope'], /^locus: unknown platform 'nope'/],
      [['run', '--check'], /^locus: --check applies to --mode real/],
    ];
    for (const [args, re] of cases) {
      const r = locus(...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re);
      assert.equal(r.stderr.split('\n').length, 2, r.stderr); // one line
      assert.doesNotMatch(r.stderr, /LOCUS_|\bat .*:\d+:\d+/);
      assert.equal(r.stdout, '');
    }
  });

  test('adds the flags that fix an error whose library message names none', () => {
    const memory = new LocusError(
      'LOCUS_GPU_MEMORY_TOO_SMALL',
      'task T needs 2 MiB of data at once but the largest memory of a worker able to run k holds 1 MiB: give it more memory or use smaller tiles',
    );
    assert.equal(cliMessage(memory), `${memory.message} (flags: --gpu-mem, --tile-size)`);
    // A message that already names a flag is left as it is.
    const named = new LocusError('LOCUS_GPU_MEMORY_TOO_SMALL', 'too big: raise --gpu-mem');
    assert.equal(cliMessage(named), 'too big: raise --gpu-mem');
    const other = new LocusError('LOCUS_OPTION_INVALID', 'noise must be in [0, 1) (got 2)');
    assert.equal(cliMessage(other), 'noise must be in [0, 1) (got 2)');
    assert.throws(() => forFlag('--mapping', () => parseMapping('3d', 2)), {
      code: 'LOCUS_OPTION_INVALID',
      message: "--mapping: a block mapping is 2d, 2d:PxQ, rows, cols or a .json file (got '3d')",
    });
  });
});
