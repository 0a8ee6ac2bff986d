/**
 * Sections of the docs that scripts own (scripts/docs/sections.ts): `npm run docs:results`
 * inserts each once, before its anchor heading; their markers parse and every `locus` command
 * they run parses (rendering them runs the commands: `npm run docs:results`).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CommandCache } from '../scripts/docs/exec.ts';
import { checkParses, locusInvocations } from '../scripts/docs/parse-check.ts';
import { pageCommands } from '../scripts/docs/render.ts';
import { SECTIONS, withSection } from '../scripts/docs/sections.ts';
import { ROOT } from '../scripts/docs-results.ts';

describe('docs sections owned by scripts', () => {
  test('each is inserted once, before its anchor, and its commands parse', async () => {
    assert.ok(SECTIONS.length > 0);
    for (const s of SECTIONS) {
      const page = readFileSync(join(ROOT, s.page), 'utf8');
      const once = withSection(page, s);
      assert.equal(withSection(once, s), once, `${s.heading}: inserted twice`);
      const lines = once.split('\n');
      const at = lines.indexOf(s.heading);
      assert.ok(at >= 0, `${s.heading}: missing`);
      const anchor = lines.indexOf(s.before);
      if (anchor >= 0) assert.ok(anchor > at, `${s.heading}: not before ${s.before}`);
      const title = s.heading.replace(/^#+\s+/, '');
      const commands = pageCommands(s.page, once, {
        root: ROOT,
        cache: new CommandCache(ROOT),
        stamp: 'abc1234',
        machine: 'test machine',
        bench: true,
        only: [],
        skipBig: false,
        tmp: ROOT,
      }).filter((c) => c.block.section === title);
      let checked = 0;
      for (const c of commands) {
        for (const args of locusInvocations(c.command)) {
          await checkParses(args);
          checked++;
        }
      }
      assert.ok(checked >= 12, `${s.heading}: ${checked} commands`);
    }
  });

  test('a page without the anchor gets the section at its end', () => {
    const s = { page: 'x.md', heading: '## New', before: '## Gone', body: '\ntext\n' };
    assert.equal(
      withSection('# Page\n\n## Other\n\nbody\n\n', s),
      '# Page\n\n## Other\n\nbody\n\n## New\n\ntext\n',
    );
    assert.equal(
      withSection('# Page\n\n## Gone\n', { ...s, before: '## Gone' }),
      '# Page\n\n## New\n\ntext\n\n## Gone\n',
    );
  });
});
