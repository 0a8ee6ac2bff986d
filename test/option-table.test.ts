/**
 * Issue 27 item 3 and issue 26 item 9: one table (src/cli/option-table.ts) says which kind of
 * run, scheduler and companion option each option of `locus run` belongs to; every kind of run
 * refuses, in one line, an option it would not read. Checked exhaustively over the table: a
 * simulation accepts each option it reads (the run completes) and refuses each other one; a
 * simulated cluster, a real run and an MPI run refuse each option they do not read before
 * running anything. The library refuses scheduler options its scheduler does not read.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { OPTION_TABLE, type OptionRule, type RunKind } from '../src/cli/option-table.ts';
import { realRunCommand } from '../src/cli/real-command.ts';
import { type RunOptions, runCommand } from '../src/cli/run-command.ts';
import { parseRunMode } from '../src/core/mode-word.ts';
import { SCHEDULER_OPTION_READERS } from '../src/core/scheduler-option-readers.ts';
import { LocusError } from '../src/core/types.ts';
import { Runtime } from '../src/exec/runtime.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';

process.env.LOCUS_PERFMODEL_DIR = mkdtempSync(join(tmpdir(), 'locus-models-'));

/** A value for every option of the table, as commander would parse it. */
const VALUES: { [K in keyof RunOptions]?: RunOptions[K] } = {
  noise: 0.1,
  chargeScheduling: true,
  streams: 2,
  inner: 2,
  iterations: 2,
  keepOutputs: true,
  hostMem: 2 ** 40,
  disk: 'nvme',
  tasks: 12,
  data: 6,
  degree: 2,
  shared: 1,
  order: 'rows',
  runtime: 'v1',
  coherence: 'write-back',
  mapping: '2d',
  cacheLines: 1,
  serial: true,
  stopAfter: 3,
  idle: 'ea1',
  wakeLatency: 1e-5,
  submitWindow: 4,
  nodes: 2,
  nicBandwidth: 1e9,
  networkLatency: 1e-6,
  keepReceived: true,
  distribution: '2d',
  verboseRanks: true,
  check: true,
  calibrate: true,
  record: false,
  readAhead: true,
  throttle: true,
  checkAccesses: true,
  taskTimeLimit: 10,
  html: join(mkdtempSync(join(tmpdir(), 'locus-html-')), 'run.html'),
  backend: 'threads',
  prefetch: true,
  dartsThreshold: 3,
  darts3inputs: true,
  dartsOpti: true,
  dartsPushFree: true,
  dartsOneFromFree: true,
  dartsOneAway: true,
  dartsStarpuTies: true,
  dartsHostLevel: true,
  dartsHostAhead: true,
  hfpHostStaging: 4,
  readyFirst: true,
  prefetchWindow: 2,
  parallelEvictions: true,
  lazyWritebacks: true,
  criticalSlack: 0.06,
  criticalLocal: true,
  criticalFixed: true,
  criticalTail: 0.5,
  targetClean: 50,
  pattern: 'stencil_1d',
  width: 3,
  steps: 3,
  kernel: 'compute_bound',
  radix: 3,
  period: 1,
  outputBytes: 16,
  imbalance: 0.5,
  scratchBytes: 4096,
};

/** The workload that reads a size option (the others run cholesky). */
const WORKLOAD_OF: { [K in keyof RunOptions]?: string } = {
  inner: 'matmul2d',
  keepOutputs: 'matmul2d',
  iterations: 'jacobi',
  tasks: 'random',
  data: 'random',
  degree: 'random',
  shared: 'random',
  pattern: 'taskbench',
  width: 'taskbench',
  steps: 'taskbench',
  kernel: 'taskbench',
  radix: 'taskbench',
  period: 'taskbench',
  outputBytes: 'taskbench',
  imbalance: 'taskbench',
  scratchBytes: 'taskbench',
};

/** What each option needs beside it to be read (the table's `needs`, spelled out here). */
const COMPANIONS: { [K in keyof RunOptions]?: Partial<RunOptions> } = {
  cacheLines: { runtime: 'v3', sched: 'static' },
  wakeLatency: { idle: 'ea1' },
  targetClean: { minClean: 20 },
  period: { pattern: 'spread' },
};

/**
 * Options of a small run with option `key` set, read by the scheduler it belongs to, with the
 * options it needs (unless `alone`) and on the workload that reads it (a simulation's).
 */
function optionsWith(
  key: keyof RunOptions,
  rule: OptionRule,
  extra: Partial<RunOptions> = {},
  alone = false,
): RunOptions {
  const workload = alone ? 'cholesky' : (WORKLOAD_OF[key] ?? 'cholesky');
  return {
    workload,
    tiles: 3,
    sched: rule.schedulers?.[0] ?? 'eager',
    seed: 1,
    priorities: 'none',
    mode: 'sim',
    progress: false,
    json: true,
    ...(workload === 'random' ? { tiles: undefined, tasks: 12, data: 6 } : {}),
    ...(workload === 'taskbench' ? { tiles: undefined } : {}),
    ...(alone ? {} : COMPANIONS[key]),
    [key]: VALUES[key],
    ...extra,
  } as RunOptions;
}

/** Runs `f` with stdout silenced; resolves with the error it threw, if any. */
async function outcome(f: () => Promise<unknown>): Promise<unknown> {
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    await f();
    return undefined;
  } catch (e) {
    return e;
  } finally {
    process.stdout.write = write;
  }
}

/** Asserts that `e` is the one-line conflict naming `flag`. */
function assertRefused(e: unknown, flag: string, what: string): void {
  assert.ok(e instanceof LocusError, `${what}: refused (got ${String(e)})`);
  assert.equal(e.code, 'LOCUS_OPTION_CONFLICT', `${what}: ${e.message}`);
  assert.ok(e.message.startsWith(flag), `${what}: the message names ${flag}: ${e.message}`);
  assert.doesNotMatch(e.message, /\n/);
}

const ROWS = Object.entries(OPTION_TABLE) as [keyof RunOptions, OptionRule][];

describe('the option table', { timeout: 300_000 }, () => {
  test('every row has a value here (the table is covered exhaustively)', () => {
    assert.deepEqual(
      ROWS.map(([k]) => k).filter((k) => VALUES[k] === undefined),
      [],
    );
  });

  test('a simulation accepts every option it reads and refuses every other one', async () => {
    for (const [key, rule] of ROWS) {
      const o = optionsWith(key, rule);
      const e = await outcome(() => runCommand(o));
      if (rule.runs.includes('sim')) assert.equal(e, undefined, `${rule.flag} in a simulation: ${String(e)}`);
      else assertRefused(e, rule.flag, `${rule.flag} in a simulation`);
    }
  });

  test('an option is refused under a scheduler that does not read it, or without its companion', async () => {
    let schedulerRows = 0;
    let companionRows = 0;
    for (const [key, rule] of ROWS) {
      if (!rule.runs.includes('sim')) continue;
      if (rule.schedulers) {
        schedulerRows++;
        const other = rule.schedulers.includes('eager') ? 'random' : 'eager';
        assertRefused(
          await outcome(() => runCommand(optionsWith(key, rule, { sched: other }))),
          rule.flag,
          `${rule.flag} -s ${other}`,
        );
      }
      if (rule.needs) {
        companionRows++;
        const without = optionsWith(key, rule, { [rule.needs.key]: undefined });
        assertRefused(
          await outcome(() => runCommand(without)),
          rule.flag,
          `${rule.flag} without ${rule.needs.flag}`,
        );
      }
    }
    // --runtime, --coherence, --mapping, --serial, --prefetch, the eight DARTS options and
    // hfp's four critical-path options; --cache-lines, --wake-latency, --target-clean.
    assert.equal(schedulerRows, 19);
    assert.equal(companionRows, 3);
  });

  for (const kind of ['cluster-sim', 'real', 'mpi'] as const satisfies readonly RunKind[]) {
    test(`a run of kind ${kind} refuses every option it does not read, before running`, async () => {
      let refused = 0;
      for (const [key, rule] of ROWS) {
        // Alone (no companion option) and on cholesky, which every kind of run runs.
        const realRead = rule.realWorkloads === undefined || rule.realWorkloads.includes('cholesky');
        if (rule.runs.includes(kind) && (kind === 'cluster-sim' || realRead)) continue;
        const extra: Partial<RunOptions> =
          kind === 'cluster-sim'
            ? { cluster: 'sim', platform: 'ac-cluster' }
            : { mode: 'real', ...(kind === 'mpi' ? { cluster: 'mpi' } : {}) };
        const o = optionsWith(key, rule, extra, true);
        const e = await outcome(() => (kind === 'cluster-sim' ? runCommand(o) : realRunCommand(o)));
        assertRefused(e, rule.flag, `${rule.flag} in a ${kind} run`);
        refused++;
      }
      assert.ok(refused > 0);
    });
  }

  test('the cases of issue 27 item 3 are refused in one line', async () => {
    const base = optionsWith('seed', { flag: '', runs: [] });
    for (const [extra, message] of [
      [{ backend: 'webgpu' }, /^--backend applies to --mode real/],
      [{ distribution: '2d' }, /^--distribution applies to --cluster sim and --cluster mpi only/],
      [{ verboseRanks: true }, /^--verbose-ranks applies to --cluster mpi only/],
      [{ darts3inputs: true, sched: 'dmdar' }, /^--darts-3inputs applies to --sched darts, hfp, not dmdar/],
      [{ dartsOpti: true }, /^--darts-opti applies to --sched darts, hfp, not eager/],
      [{ prefetch: true, sched: 'darts' }, /^--prefetch applies to --sched dm, .*, not darts/],
      [{ prefetch: false }, /^--no-prefetch applies to --sched dm, .*, not eager/],
      [{ wakeLatency: 1e-5 }, /^--wake-latency applies to --idle ea1 and ea1\+ea2/],
      [{ wakeLatency: 1e-5, idle: 'ea2' }, /^--wake-latency applies to --idle ea1 and ea1\+ea2/],
      [{ targetClean: 40 }, /^--target-clean applies with --min-clean only/],
      [{ serial: true, sched: 'darts' }, /^--serial applies to --sched static .*, not darts/],
    ] as const) {
      const e = await outcome(() => runCommand({ ...base, ...extra } as RunOptions));
      assert.ok(
        e instanceof LocusError && e.code === 'LOCUS_OPTION_CONFLICT',
        `${JSON.stringify(extra)}: ${String(e)}`,
      );
      assert.match(e.message, message);
    }
  });

  test('the library refuses scheduler options its scheduler does not read', async () => {
    const { graph } = generateWorkload('cholesky', { tiles: 2 });
    const platform = resolvePlatform('v100x2');
    assert.throws(
      () => simulate({ graph, platform, scheduler: 'eager', schedulerOptions: { darts3inputs: true } }),
      {
        code: 'LOCUS_OPTION_CONFLICT',
        message: /^schedulerOptions\.darts3inputs applies to scheduler darts, hfp, not eager/,
      },
    );
    // Read by its scheduler: accepted.
    simulate({ graph, platform, scheduler: 'darts', schedulerOptions: { darts3inputs: true } });
    await assert.rejects(
      Runtime.create({ mode: 'simulated', scheduler: 'ws', schedulerOptions: { prefetch: true } }),
      { code: 'LOCUS_OPTION_CONFLICT', message: /^schedulerOptions\.prefetch applies to scheduler dm, / },
    );
    assert.deepEqual(Object.keys(SCHEDULER_OPTION_READERS).sort(), [
      'criticalFixed',
      'criticalLocal',
      'criticalSlack',
      'criticalTail',
      'darts3inputs',
      'dartsHostAhead',
      'dartsHostLevel',
      'dartsOneAway',
      'dartsOneFromFree',
      'dartsOpti',
      'dartsPushFree',
      'dartsStarpuTies',
      'dartsThreshold',
      'hfpHostStaging',
      'mapping',
      'prefetch',
    ]);
  });

  test("'sim' and 'simulated' are one word everywhere (issue 26 item 9)", async () => {
    assert.equal(parseRunMode('sim', '--mode'), 'simulated');
    assert.equal(parseRunMode('simulated', '--mode'), 'simulated');
    assert.throws(() => parseRunMode('simul', '--mode'), {
      code: 'LOCUS_OPTION_INVALID',
      message: "--mode must be simulated (or sim) or real (got 'simul')",
    });
    for (const mode of ['sim', 'simulated'] as const) {
      const rt = await Runtime.create({ mode });
      assert.equal(rt.mode, 'simulated');
      await rt.close();
    }
  });
});
