/**
 * Worker threads start whatever Node flags the program was started with (src/exec/worker-flags.ts):
 * Node refuses process-wide flags for a worker (ERR_WORKER_INVALID_EXEC_ARGV), and a real run
 * under `node --max-old-space-size=... app.js` used to fail with that stack trace.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { refusedFlags, withoutFlags } from '../src/exec/worker-flags.ts';

describe('worker flags', () => {
  test("the refused flags are read from Node's message and left out with their values", () => {
    assert.deepEqual(
      refusedFlags('Initiated Worker with invalid execArgv flags: --stack-size=2000, --title'),
      ['--stack-size=2000', '--title'],
    );
    assert.deepEqual(refusedFlags('something else'), []);
    const args = [
      '--import',
      'tsx',
      '--title',
      'foo',
      '--stack-size=2000',
      '--expose-gc',
      '--enable-source-maps',
    ];
    assert.deepEqual(withoutFlags(args, ['--title', '--stack-size=2000', '--expose-gc']), [
      '--import',
      'tsx',
      '--enable-source-maps',
    ]);
    assert.deepEqual(withoutFlags(['--input-type', 'module', '--no-warnings'], ['--input-type']), [
      '--no-warnings',
    ]);
  });

  test('a real run starts its worker threads under process-wide flags, which still apply', () => {
    const runtime = new URL('../src/exec/runtime.ts', import.meta.url).href;
    const kernels = new URL('./helpers/kernels.ts', import.meta.url).href;
    const code = `
      const { Runtime } = await import(${JSON.stringify(runtime)});
      const rt = await Runtime.create({ mode: 'real', cpus: 2, perfModels: 'off' });
      const inc = rt.codelet({ name: 'inc', kernel: { module: new URL(${JSON.stringify(kernels)}), export: 'inc' } });
      const a = new Float64Array(1);
      const x = rt.data(a);
      for (let i = 0; i < 10; i++) rt.submit(inc, [[x, 'RW']]);
      await rt.close();
      process.stdout.write(String(a[0]) + ' ' + typeof gc);
    `;
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--expose-gc',
        '--max-old-space-size=512',
        '--stack-size=2000',
        '--title',
        'locus-flags-test',
        '--input-type=module',
        '-e',
        code,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '10 function');
  });
});
