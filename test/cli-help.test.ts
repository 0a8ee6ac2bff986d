/**
 * What a new user types first: `locus` alone, `locus help NAME`, the listings with --json, and
 * `locus run --help` with its option groups and examples (each example is run).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildProgram, COMMANDS } from '../src/cli/main.ts';
import { EVICTION_POLICIES } from '../src/evict/index.ts';
import { PRESETS, resolvePlatform } from '../src/platform/presets.ts';
import { parsePlatformFile } from '../src/platform/schema.ts';
import { SCHEDULERS } from '../src/sched/index.ts';
import { WORKLOADS } from '../src/workloads/index.ts';

const BIN = fileURLToPath(new URL('../bin/locus.mjs', import.meta.url));
const ENV = { ...process.env, LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-models-')) };

function locus(args: string[], cwd?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: ENV, cwd });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('help', () => {
  test('`locus` alone prints the command list on stderr and exits 2 (no command given)', () => {
    const r = locus([]);
    assert.equal(r.code, 2);
    assert.equal(r.out, '');
    assert.match(r.err, /^Usage: locus \[options\] \[command\]/);
    for (const name of Object.keys(COMMANDS)) assert.match(r.err, new RegExp(`\\n  ${name} `), name);
    assert.doesNotMatch(r.err, /outputHelp/);
    assert.equal(locus(['help']).out, r.err); // `locus help`: the same list, on stdout, exit 0
  });

  test('`locus help runn`: one line naming the unknown command with a suggestion, exit 2', () => {
    const r = locus(['help', 'runn']);
    assert.equal(r.code, 2);
    assert.equal(r.out, '');
    assert.equal(r.err, "locus: unknown command 'runn' (Did you mean run?)\n");
  });

  test('`locus help run` is `locus run --help`', () => {
    const a = locus(['help', 'run']);
    const b = locus(['run', '--help']);
    assert.equal(a.code, 0, a.err);
    assert.equal(a.out, b.out);
    assert.match(a.out, /^Usage: locus run \[options\]/);
  });

  test('a command that needs a subcommand prints its help on stderr and exits 2', () => {
    const r = locus(['platform']);
    assert.equal(r.code, 2);
    assert.match(r.err, /^Usage: locus platform \[options\] \[command\]/);
    assert.doesNotMatch(r.err, /outputHelp/);
  });

  test('each summary in the command list is the full command description', async () => {
    const full = await buildProgram('all');
    const summaries = await buildProgram([]);
    assert.deepEqual(
      full.commands.map((c) => c.name()),
      Object.keys(COMMANDS),
    );
    for (const c of full.commands) {
      assert.equal(c.description(), COMMANDS[c.name()]!.summary, c.name());
      assert.equal(summaries.commands.find((s) => s.name() === c.name())!.description(), c.description());
    }
  });
});

describe('listings with --json', () => {
  test('locus workloads --json', () => {
    const r = locus(['workloads', '--json']);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(
      JSON.parse(r.out),
      Object.entries(WORKLOADS).map(([name, w]) => ({ name, description: w.description })),
    );
  });

  test('locus policies --json', () => {
    const r = locus(['policies', '--json']);
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual(Object.keys(j), ['schedulers', 'evictions']);
    assert.deepEqual(
      j.schedulers.map((s: { name: string }) => s.name),
      Object.keys(SCHEDULERS),
    );
    assert.deepEqual(
      j.evictions.map((s: { name: string }) => s.name),
      Object.keys(EVICTION_POLICIES),
    );
    assert.equal(j.schedulers[0].description, SCHEDULERS[j.schedulers[0].name]!.description);
  });

  test('locus platforms --json lists every preset with its figures', () => {
    const r = locus(['platforms', '--json']);
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out) as { name: string; description: string; figures: string[] }[];
    assert.deepEqual(
      j.map((p) => p.name),
      Object.keys(PRESETS),
    );
    for (const p of j) {
      assert.equal(p.description, PRESETS[p.name]!.description);
      assert.deepEqual(p.figures, PRESETS[p.name]!.figures());
    }
  });

  test('locus platforms NAME --json prints a platform file that reads back to the same platform', () => {
    const r = locus(['platforms', 'v100x2', '--gpus', '4', '--gpu-mem', '1GiB', '--json']);
    assert.equal(r.code, 0, r.err);
    const back = parsePlatformFile(r.out, 'v100x2.json');
    const built = resolvePlatform('v100x2', { gpus: 4, gpuMem: 2 ** 30 });
    assert.equal(back.workers.length, 4);
    assert.deepEqual(
      back.nodes.map((n) => [n.name, n.capacity]),
      built.nodes.map((n) => [n.name, n.capacity]),
    );
  });

  test('a bad name is still one line and exit 2 with --json', () => {
    const r = locus(['platforms', 'nope', '--json']);
    assert.equal(r.code, 2);
    assert.equal(r.out, '');
    assert.equal(r.err.split('\n').length, 2);
    assert.match(r.err, /^locus: .*nope/);
  });
});

describe('locus run --help', () => {
  const help = locus(['run', '--help']).out;

  test('groups the options: workload, platform, scheduling, simulation, real execution, output', () => {
    const headings = help.split('\n').filter((l) => /^[A-Z][a-z ]+:$/.test(l));
    assert.deepEqual(headings, [
      'Workload:',
      'Platform:',
      'Scheduling:',
      'Simulation:',
      'Real execution:',
      'Output:',
      'Options:',
      'Examples:',
    ]);
    // Only --help is left in the generic group.
    const generic = help.slice(help.indexOf('\nOptions:\n'), help.indexOf('\nExamples:\n'));
    assert.deepEqual(generic.match(/^ {2}-/gm)?.length, 1);
    assert.match(generic, /-h, --help/);
    for (const [flag, group] of [
      ['--tiles', 'Workload:'],
      ['--gpu-mem', 'Platform:'],
      ['--sched', 'Scheduling:'],
      ['--lookahead', 'Simulation:'],
      ['--check', 'Real execution:'],
      ['--trace', 'Output:'],
    ] as const) {
      const at = help.indexOf(`  ${flag}`) >= 0 ? help.indexOf(`  ${flag}`) : help.indexOf(`, ${flag}`);
      assert.ok(at > help.indexOf(group), `${flag} under ${group}`);
      const next = headingsAfter(help, group);
      assert.ok(next < 0 || at < next, `${flag} under ${group}`);
    }
  });

  test('every example runs and exits 0', () => {
    const examples = help
      .slice(help.indexOf('\nExamples:\n'))
      .split('\n')
      .filter((l) => l.startsWith('  locus '));
    assert.ok(examples.length >= 4, help);
    const dir = mkdtempSync(join(tmpdir(), 'locus-examples-'));
    for (const line of examples) {
      const args = line.trim().split(/\s+/).slice(1);
      const r = locus([...args, '--no-progress'], dir);
      assert.equal(r.code, 0, `${line}: ${r.err}`);
    }
  });
});

/** Index of the first group heading after `group`'s, or -1. */
function headingsAfter(help: string, group: string): number {
  const start = help.indexOf(group) + group.length;
  const m = /\n[A-Z][a-z ]+:\n/.exec(help.slice(start));
  return m ? start + m.index : -1;
}
