/**
 * The docs' commands: every command the user guide marks as runnable runs and exits as the guide
 * shows (its tables' expressions evaluate too); every marked command in the docs parses; the
 * regeneration script (`npm run docs:results`) is deterministic on the same commit.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { CommanderError } from 'commander';
import { CommandCache, maskWallClock } from '../scripts/docs/exec.ts';
import { MarkerError, parseMarkers } from '../scripts/docs/markers.ts';
import { checkParses, locusInvocations, shellWords } from '../scripts/docs/parse-check.ts';
import { keepLines, pageCommands, type RenderOptions, renderPage } from '../scripts/docs/render.ts';
import { docFiles, ROOT, regenerate } from '../scripts/docs-results.ts';

const tmp = mkdtempSync(join(tmpdir(), 'locus-docs-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function options(cache = new CommandCache(ROOT)): RenderOptions {
  return {
    root: ROOT,
    cache,
    stamp: 'abc1234',
    machine: 'test machine',
    bench: false,
    only: [],
    skipBig: true,
    tmp,
  };
}

describe('the user guide', () => {
  test('every command it marks as runnable runs and exits with the code it shows', {
    timeout: 300_000,
  }, async () => {
    const file = 'docs/guide.md';
    const text = readFileSync(join(ROOT, file), 'utf8');
    const o = options();
    const commands = pageCommands(file, text, o);
    assert.ok(commands.length >= 20, `the guide marks ${commands.length} commands`);
    // Two at a time (the machine has 2 cores), then the page renders from the cache.
    await o.cache.warm(
      commands.filter((c) => c.ahead).map((c) => c.command),
      2,
    );
    const r = await renderPage(file, text, o);
    assert.deepEqual(r.failures, [], r.failures.map((f) => `${f.file}:${f.line} ${f.message}`).join('\n'));
    const blocks = parseMarkers(file, text).filter(
      (b) => b.attrs.bench === undefined && b.attrs.big === undefined,
    );
    assert.ok(r.ran >= blocks.length, `${r.ran} blocks and values regenerated, ${blocks.length} blocks`);
    assert.match(r.text, /<!-- made: abc1234 -->/);
  });
});

describe('every marked command in the docs', () => {
  test('parses: its subcommand and every option exist, their values are accepted', async () => {
    let checked = 0;
    for (const path of docFiles()) {
      const file = relative(ROOT, path);
      const text = readFileSync(path, 'utf8');
      const o = { ...options(), bench: true, skipBig: false };
      for (const c of pageCommands(file, text, o)) {
        if (c.exit !== 0) continue; // error examples: the guide test runs them
        for (const args of locusInvocations(c.command)) {
          try {
            await checkParses(args);
          } catch (e) {
            if (e instanceof CommanderError && e.exitCode === 0) continue; // --help, --version
            assert.fail(
              `${file}:${c.block.markerStart + 1}: \`locus ${args.join(' ')}\` does not parse: ${(e as Error).message}`,
            );
          }
          checked++;
        }
      }
    }
    assert.ok(checked >= 20, `${checked} locus commands checked`);
  });

  test('a command that no longer parses is caught', async () => {
    await assert.rejects(checkParses(['run', '--no-such-flag']), /unknown option '--no-such-flag'/);
    await assert.rejects(checkParses(['runn']), /unknown command 'runn'/);
    await assert.rejects(checkParses(['run', '--tiles', '0']), /not a positive integer/);
    await checkParses(['run', '--workload', 'matmul2d', '--tiles', '300', '--gpus', '4']);
  });
});

describe('docs:results', () => {
  const PAGE = [
    '# A page',
    '',
    '<!-- stamp -->',
    '(stamp)',
    '',
    '## Section one',
    '',
    '<!-- run: locus run --workload matmul2d --tiles 4 -->',
    '',
    '<!-- table',
    'run: locus run --workload matmul2d --tiles $N --json',
    'row: N=4',
    '| N | $N',
    '| GFlop/s | f(r.gflops, 1)',
    '| tasks | r.tasks',
    '-->',
    '',
    'Four tiles: <!-- val: locus run --workload matmul2d --tiles 4 --json :: r.tasks -->?<!-- /val --> tasks.',
    '',
    '## Section two',
    '',
    '<!-- run(exit=2): locus run --tiles 0 -->',
    '',
  ].join('\n');

  test("regenerating twice on the same commit gives the same text; outputs are the commands'", async () => {
    const first = await renderPage('page.md', PAGE, options());
    assert.deepEqual(first.failures, []);
    const second = await renderPage('page.md', first.text, options());
    assert.deepEqual(second.failures, []);
    assert.equal(second.text, first.text, 'deterministic');
    const text = first.text;
    // The run block: the command, then its output with the wall-clock line masked.
    const block =
      /<!-- run: locus run --workload matmul2d --tiles 4 -->\n```\n([\s\S]*?)```\n<!-- made: abc1234 -->/.exec(
        text,
      );
    assert.ok(block, text);
    assert.match(block[1]!, /^\$ node bin\/locus\.mjs run --workload matmul2d --tiles 4\nmatmul2d 4x4 tasks/);
    assert.match(block[1]!, /simulated in … of wall time/);
    assert.doesNotMatch(block[1]!, /simulated in [0-9]/);
    // The table and the inline value: figures from the JSON report.
    assert.match(
      text,
      /\| N \| GFlop\/s \| tasks \|\n\| --- \| --- \| --- \|\n\| 4 \| [0-9]+\.[0-9] \| 16 \|\n<!-- made/,
    );
    assert.match(text, /Four tiles: <!-- val: .* -->16<!-- \/val --> tasks\./);
    assert.match(
      text,
      /\$ node bin\/locus\.mjs run --tiles 0\nlocus: option '-n, --tiles <n>' argument '0' is invalid/,
    );
    assert.match(text, /<!-- stamp -->\n_The example outputs .* at commit abc1234\./);
  });

  test('--only regenerates the matching sections and leaves the others', async () => {
    const r = await renderPage('page.md', PAGE, { ...options(), only: ['section two'] });
    assert.deepEqual(r.failures, []);
    assert.equal(r.ran, 1);
    assert.match(r.text, /<!-- run: locus run --workload matmul2d --tiles 4 -->\n\n<!-- table/);
    assert.match(r.text, /argument '0' is invalid/);
  });

  test('a command that fails or no longer exists leaves its block and is reported', async () => {
    const page =
      '## S\n\n<!-- run: locus nosuchcommand -->\n```\nold\n```\n\n<!-- run(exit=2): locus run --workload matmul2d --tiles 4 -->\n';
    const r = await renderPage('bad.md', page, options());
    assert.equal(r.text, page);
    assert.equal(r.failures.length, 2);
    assert.match(
      r.failures[0]!.message,
      /`locus nosuchcommand` exited with 2, expected 0: locus: unknown command 'nosuchcommand'/,
    );
    assert.equal(r.failures[0]!.line, 3);
    assert.match(r.failures[1]!.message, /exited with 0, expected 2/);
  });

  test('a page with inline values and no block is regenerated too', async () => {
    const page = join(tmp, 'values-only.md');
    writeFileSync(
      page,
      '# P\n\nThe preset <!-- val: locus platforms v100x2 --json :: r.name -->old<!-- /val -->.\n',
    );
    const failures = await regenerate({ only: [], bench: false, list: false, files: [page] });
    assert.deepEqual(failures, []);
    assert.equal(
      readFileSync(page, 'utf8'),
      '# P\n\nThe preset <!-- val: locus platforms v100x2 --json :: r.name -->v100x2<!-- /val -->.\n',
    );
  });

  test('malformed markers are reported with the file and line', () => {
    assert.throws(() => parseMarkers('x.md', 'a\n<!-- table\nrun: locus run\n| A | 1\n'), MarkerError);
    assert.throws(
      () => parseMarkers('x.md', '\n<!-- table\nnonsense\n-->\n'),
      /x\.md:3: cannot read 'nonsense'/,
    );
    assert.throws(() => parseMarkers('x.md', '<!-- run: -->\n'), /x\.md:1: a run marker without a command/);
  });

  test('helpers: masking, line selection, shell words, locus invocations', () => {
    assert.equal(
      maskWallClock('simulated in 37.51 ms of wall time (5,866 tasks/s)\n  "wallS": 0.147,\n'),
      'simulated in … of wall time (… tasks/s; measured, varies)\n  "wallS": "…",\n',
    );
    assert.equal(keepLines('a\nb\nc\nd\ne\n', '2-3', undefined), '...\nb\nc\n...');
    assert.equal(keepLines('a\nb\nc\nd\ne\n', '1', '1'), 'a\n...\ne');
    assert.deepEqual(shellWords(`node -e 'a b' "c \\" d" e\\ f`), ['node', '-e', 'a b', 'c " d', 'e f']);
    assert.deepEqual(
      locusInvocations('locus run -w x --json > /dev/null && node bin/locus.mjs sweep --figure fig2 | head'),
      [
        ['run', '-w', 'x', '--json'],
        ['sweep', '--figure', 'fig2'],
      ],
    );
  });
});
