/**
 * Issue 26 item 8: `locus demo` says its figures are simulated, explains "seed 000", and its
 * closing hint is a command a package user can type (and it runs).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

function locus(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('locus demo', () => {
  const demo = locus('demo');

  test('says that its figures are simulated and what seed 000 is', () => {
    assert.equal(demo.code, 0, demo.err);
    const lines = demo.out.split('\n');
    assert.match(lines[0]!, /^Seed 000's 2-D matrix product, simulated on v100x2 /);
    assert.match(demo.out, /\(seed 000: the first paper Locus reproduces, /);
    assert.match(demo.out, /Nothing runs on a GPU here: every figure\n below is the simulator's/);
    assert.match(demo.out, /\n {2}N +working set +policy +simulated GFlop\/s +to GPUs +evictions\n/);
  });

  test('its closing hint names the package command, and the command it shows runs', () => {
    const hint =
      /\nTry: locus (run [^\n]*)\n\(the command is `npx locus` in a project that installed locus-runtime, `node bin\/locus\.mjs` in a checkout\)\n$/.exec(
        demo.out,
      );
    assert.ok(hint, demo.out);
    const trace = join(mkdtempSync(join(tmpdir(), 'locus-demo-')), 'out.json');
    const args = hint[1]!.split(' ').map((a) => (a === 'out.json' ? trace : a));
    const r = locus(...args);
    assert.equal(r.code, 0, r.err);
    assert.ok(existsSync(trace));
  });
});
