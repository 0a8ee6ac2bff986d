/**
 * The tile-kernel table chosen at load (src/kernels/tasks.ts): real runs say which kernels ran
 * (`kernels` in the JSON report, a `kernels:` line in text, `locus --version`), pass their
 * checks with the native kernels and with the JavaScript fallback (LOCUS_KERNELS=js, or an
 * addon that is missing), and a missing addon is one line, never a crash.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { kernelAddon, kernelsReason } from '../src/kernels/native/addon.ts';

const MODELS = mkdtempSync(join(tmpdir(), 'locus-models-'));

function locus(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], {
    encoding: 'utf8',
    env: { ...process.env, LOCUS_PERFMODEL_DIR: MODELS, ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const NATIVE = kernelAddon() !== undefined;
const MISSING = { LOCUS_KERNELS_ADDON: join(tmpdir(), 'no-such-dir', 'locus_kernels.node') };

describe('kernel table', () => {
  for (const [label, env] of [
    ['JavaScript fallback (LOCUS_KERNELS=js)', { LOCUS_KERNELS: 'js' }],
    ['native kernels', {}],
  ] as const)
    for (const [workload, precision] of [
      ['cholesky', 'double'],
      ['cholesky', 'single'],
      ['lu', 'double'],
      ['lupp', 'double'],
      ['gemm', 'single'],
    ] as const)
      test(
        `${label}: ${workload} ${precision} passes its check and names its kernels`,
        label === 'native kernels' && !NATIVE ? { skip: kernelsReason() } : {},
        () => {
          const r = locus(
            env,
            'run',
            '--mode',
            'real',
            '-w',
            workload,
            '--tiles',
            '4',
            '--tile-size',
            '24',
            '--precision',
            precision,
            '--cpus',
            '2',
            '--check',
            '--json',
          );
          assert.equal(r.code, 0, r.err);
          const j = JSON.parse(r.out);
          assert.equal(j.kernels, label === 'native kernels' ? kernelAddon()!.info().library : 'javascript');
          assert.ok(j.residual <= (precision === 'single' ? 1e-4 : 1e-10), `residual ${j.residual}`);
          if (j.backwardError !== null) assert.ok(j.backwardError < (precision === 'single' ? 1e-4 : 1e-12));
        },
      );

  test('a missing addon: the JavaScript kernels run, and --version says why in one line', () => {
    const v = locus(MISSING, '--version');
    assert.equal(v.code, 0);
    const lines = v.out.trim().split('\n');
    assert.equal(lines.length, 2);
    assert.match(
      lines[1]!,
      /^kernels: javascript \(the kernel addon is not built \(.*no-such-dir.* is missing\): install libopenblas-dev and liblapacke-dev/,
    );
    const r = locus(
      MISSING,
      'run',
      '--mode',
      'real',
      '-w',
      'cholesky',
      '--tiles',
      '3',
      '--tile-size',
      '16',
      '--check',
    );
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^kernels: javascript$/m);
  });

  test(
    '--version names the native kernels when the addon is built',
    NATIVE ? {} : { skip: kernelsReason() },
    () => {
      const v = locus({}, '--version');
      assert.match(v.out, /^kernels: (openblas \S+|blas)$/m);
    },
  );
});
