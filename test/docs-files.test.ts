/**
 * Issue 26 items 1 and 11: every file a page names exists in a clone. The pages are README.md
 * and docs/**.md; a name is a relative Markdown link, or a repository path in backquotes
 * (src/, test/, docs/, scripts/, bench/, examples/, native/, bin/). Generated outputs and
 * patterns (names with <, *, $ or a trailing slash) are not files to look for.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';

const ROOT = join(import.meta.dirname, '..');

/** README.md and every .md under docs/. */
function pages(): string[] {
  const out = [join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.md')) out.push(p);
    }
  };
  walk(join(ROOT, 'docs'));
  return out;
}

/** The files `page` names that do not exist, as "page:line: name". */
function missing(page: string): string[] {
  const lines = readFileSync(page, 'utf8').split('\n');
  const out: string[] = [];
  let fenced = false;
  lines.forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    const where = `${relative(ROOT, page)}:${i + 1}`;
    if (!fenced) {
      for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (target === '' || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(dirname(page), target))) out.push(`${where}: ${m[1]}`);
      }
    }
    for (const m of line.matchAll(/`((?:src|test|docs|scripts|bench|examples|native|bin)\/[\w./-]+)`/g)) {
      const name = m[1]!;
      if (/[<*$]/.test(name) || name.endsWith('/')) continue;
      if (!existsSync(join(ROOT, name))) out.push(`${where}: \`${name}\``);
    }
  });
  return out;
}

describe('the files the docs name', () => {
  test('every relative link and repository path in README.md and docs/ exists', () => {
    assert.deepEqual(pages().flatMap(missing), []);
  });

  test('installing the package: the documented path is the packed tarball, as check:package does', () => {
    // Not on the registry yet: no page shows `npm install locus-runtime` as a command to type.
    const registry = pages().flatMap((page) =>
      readFileSync(page, 'utf8')
        .split('\n')
        .map((line, i) => [line, `${relative(ROOT, page)}:${i + 1}`] as const)
        .filter(([line]) => /^\s*npm install locus-runtime\b/.test(line))
        .map(([, where]) => where),
    );
    assert.deepEqual(registry, []);
    for (const page of ['README.md', 'docs/guide.md', 'docs/api.md']) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      assert.match(text, /npm pack/, page);
      assert.match(text, /npm install \.\.\/locus\/locus-runtime-\*\.tgz/, page);
    }
    const check = readFileSync(join(ROOT, 'scripts/check-package.mjs'), 'utf8');
    assert.match(check, /\['pack', '--json'/);
    assert.match(check, /\['install', '--prefer-offline', \.\.\.quiet, tarball\]/);
  });
});
