/**
 * Issue 26 item 5: `npm test` never writes into the user's home. npm test loads
 * test/helpers/home-guard.mjs into every test file's process: HOME is an empty temporary
 * folder there, and a file that leaves anything in it fails, named. These tests check that the
 * guard is in npm test and that it catches a write and passes a clean file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

const GUARD = './test/helpers/home-guard.mjs';

/** Runs `node --import GUARD --test FILE` on a test file with `body`; its code and output. */
function guarded(body: string): { code: number | null; out: string; leftover: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'locus-guard-'));
  const file = join(dir, 'case.test.mjs');
  writeFileSync(
    file,
    `import { test } from 'node:test';\nimport { mkdirSync, readdirSync, writeFileSync } from 'node:fs';\nimport { homedir } from 'node:os';\nimport { join } from 'node:path';\ntest('case', () => {\n${body}\n});\n`,
  );
  // The guard of this test's own process would make the child skip its own, and the test
  // runner's context would make the child's runner skip its file: drop both markers.
  const { LOCUS_HOME_GUARD: _guard, NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const before = new Set(readdirSync(tmpdir()).filter((f) => f.startsWith('locus-home-')));
  const r = spawnSync(process.execPath, ['--import', GUARD, '--test', '--test-reporter=spec', file], {
    encoding: 'utf8',
    env,
  });
  const leftover = readdirSync(tmpdir()).filter((f) => f.startsWith('locus-home-') && !before.has(f));
  return { code: r.status, out: r.stdout + r.stderr, leftover };
}

describe('the suite leaves HOME untouched', () => {
  test('npm test runs every test file under the guard', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    assert.match(pkg.scripts.test, /--import \.\/test\/helpers\/home-guard\.mjs --test /);
  });

  test('a test file that writes into HOME fails, the file and what it wrote named', () => {
    const r = guarded(
      "mkdirSync(join(homedir(), '.locus', 'perfmodels'), { recursive: true });\nwriteFileSync(join(homedir(), '.locus', 'perfmodels', 'm.json'), '{}');",
    );
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.out,
      /locus test guard: \S*case\.test\.mjs wrote into HOME \(~\/\.locus, ~\/\.locus\/perfmodels, ~\/\.locus\/perfmodels\/m\.json\): give it a temporary folder/,
    );
    assert.deepEqual(r.leftover, []);
  });

  test('a test file that writes into a temporary folder passes, with HOME an empty folder', () => {
    const r = guarded(
      "if (readdirSync(homedir()).length !== 0 || !homedir().includes('locus-home-')) throw new Error('HOME ' + homedir());\nwriteFileSync(join(process.env.XDG_CACHE_HOME, 'shader-cache'), 'x');",
    );
    assert.equal(r.code, 0, r.out);
    assert.deepEqual(r.leftover, []);
  });
});
