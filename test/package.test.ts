/**
 * The package as built (dist/, which `npm test` builds first): entries with declarations, the
 * files list, the optional plotting stack, commands that import only what they need, and one
 * default scheduler for the CLI and the library. (scripts/check-package.mjs installs the packed
 * tarball into an empty project; this file checks what can be checked in place.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Runtime } from '../src/exec/runtime.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

interface Entry {
  types: string;
  default: string;
}

describe('package.json', () => {
  test('every entry of exports has types and JavaScript that exist in dist/', () => {
    const entries = Object.entries(pkg.exports as Record<string, Entry | string>).filter(
      ([k]) => k !== './package.json',
    );
    assert.deepEqual(
      entries.map(([k]) => k),
      ['.', './kernels'],
    );
    for (const [key, e] of entries) {
      assert.equal(typeof e, 'object', key);
      const entry = e as Entry;
      assert.match(entry.types, /^\.\/dist\/.*\.d\.ts$/, key);
      assert.match(entry.default, /^\.\/dist\/.*\.js$/, key);
      assert.ok(existsSync(join(root, entry.types)), entry.types);
      assert.ok(existsSync(join(root, entry.default)), entry.default);
    }
    assert.equal(pkg.main, pkg.exports['.'].default);
    assert.equal(pkg.types, pkg.exports['.'].types);
  });

  test('the name is not `locus` (taken on npm) and the command is `locus`', () => {
    assert.equal(pkg.name, 'locus-runtime');
    assert.deepEqual(pkg.bin, { locus: 'bin/locus.mjs' });
  });

  test('the files list ships dist, bin, LICENSE and CHANGELOG, not the tests', () => {
    assert.ok(pkg.files.includes('dist'));
    assert.ok(pkg.files.includes('bin/locus.mjs'));
    assert.ok(pkg.files.includes('CHANGELOG.md'));
    assert.ok(!pkg.files.some((f: string) => f.startsWith('test')));
    assert.match(
      readFileSync(join(root, 'LICENSE'), 'utf8'),
      /^MIT License\n\nCopyright \(c\) \d{4} Locus contributors\n/,
    );
  });

  test('plotting is an optional peer dependency, tsx a development one', () => {
    for (const name of ['vega', 'vega-lite', '@resvg/resvg-js']) {
      assert.equal(pkg.dependencies[name], undefined, name);
      assert.ok(pkg.peerDependencies[name], name);
      assert.deepEqual(pkg.peerDependenciesMeta[name], { optional: true }, name);
      assert.ok(pkg.devDependencies[name], name);
    }
    assert.equal(pkg.dependencies.tsx, undefined);
    assert.ok(pkg.devDependencies.tsx);
    assert.equal(pkg.scripts.prepare, 'npm run build');
  });

  test('the compiled library loads without tsx and exports the API', async () => {
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('./dist/index.js'); const k = await import('./dist/kernels/index.js');" +
          'console.log(typeof m.Runtime, typeof m.simulate, typeof k.potrf)',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'function function function\n');
  });
  test('the compiled Runtime runs a real program: worker threads start from dist/exec/worker.js, no tsx', () => {
    const program = [
      "const { Runtime } = await import('./dist/index.js');",
      "const rt = await Runtime.create({ cpus: 2, perfModels: 'off' });",
      "const k = rt.codelet({ name: 'set', kernel: { module: 'data:text/javascript,export function set(d, a) { d[0].fill(a[0]); }', export: 'set' } });",
      'const a = new Float64Array(4);',
      "rt.submit(k, [[rt.data(a), 'W']], { args: [7] });",
      'const r = await rt.wait();',
      'await rt.close();',
      "console.log(a.join(','), r.mode, r.tasks);",
    ].join('\n');
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '7,7,7,7 real 1\n');
  });
});

/** The modules (relative to the repository) `locus ...args` resolves. */
function importedBy(...args: string[]): string[] {
  const log = join(mkdtempSync(join(tmpdir(), 'locus-imports-')), 'imports.log');
  const r = spawnSync(
    process.execPath,
    ['--import', './test/helpers/record-imports.mjs', 'bin/locus.mjs', ...args],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, LOCUS_IMPORT_LOG: log },
    },
  );
  assert.equal(r.status, 0, r.stderr);
  const prefix = new URL('..', import.meta.url).href;
  return [...new Set(readFileSync(log, 'utf8').trim().split('\n'))].map((u) => u.replace(prefix, '')).sort();
}

describe('start-up loads only what the command needs', () => {
  test('--version and --help: the CLI entry, its error type and commander', () => {
    const expected = [
      'bin/locus.mjs',
      'dist/cli/index.js',
      'dist/cli/main.js',
      'dist/core/types.js',
      'node:fs',
      'node_modules/commander/esm.mjs',
      'node_modules/commander/index.js',
    ];
    // --version also names the tile kernels: the addon's loader.
    assert.deepEqual(
      importedBy('--version'),
      [...expected, 'dist/kernels/native/addon.js', 'node:module', 'node:url'].sort(),
    );
    assert.deepEqual(importedBy('--help'), expected);
  });

  test('a simulated run loads no plotting package and no real-driver module', () => {
    const mods = importedBy('run', '-w', 'cholesky', '-n', '4', '--no-progress');
    assert.ok(mods.includes('dist/cli/run-command.js'));
    assert.ok(mods.includes('dist/sim/simulate.js'));
    for (const m of mods) {
      assert.doesNotMatch(m, /node_modules\/(vega|vega-lite|@resvg)\//, m);
      assert.doesNotMatch(m, /dist\/exec\//, m);
      assert.doesNotMatch(m, /\.ts$/, m); // compiled JavaScript only
    }
  });

  test('a simulated run on a preset loads no validator, progress bar, sweep, partition or cluster module', () => {
    const mods = importedBy('run', '-w', 'matmul2d', '--tiles', '10', '--json');
    assert.ok(mods.includes('dist/sim/simulate.js'));
    for (const m of mods) {
      assert.doesNotMatch(m, /node_modules\/(zod|cli-progress|yalps)\//, m);
      assert.doesNotMatch(
        m,
        /dist\/(partition|sim\/cluster|report\/(plots|sweep))|cli\/sweep-command|platform\/schema/,
        m,
      );
    }
  });

  test('the command list loads no command module', () => {
    const mods = importedBy('help');
    assert.ok(!mods.some((m) => /dist\/cli\/(run|sweep|calibrate|list|demo|real)/.test(m)), mods.join(' '));
  });
});

describe('plotting is optional', () => {
  test('without vega, vega-lite and resvg, a sweep writes its tables and a plot is one line naming the install command', () => {
    const out = mkdtempSync(join(tmpdir(), 'locus-noplot-'));
    const args = ['sweep', '-w', 'cholesky', '--sizes', '2', '--sched', 'eager', '-o', out, '--no-progress'];
    const r = spawnSync(
      process.execPath,
      ['--import', './test/helpers/hide-plotting.mjs', 'bin/locus.mjs', ...args],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    assert.equal(r.status, 2);
    assert.equal(
      r.stderr,
      'locus: drawing plots needs the optional packages vega, vega-lite and @resvg/resvg-js: run `npm install vega vega-lite @resvg/resvg-js`\n',
    );
    assert.ok(existsSync(join(out, 'runs.csv')));
    const plain = spawnSync(
      process.execPath,
      ['bin/locus.mjs', ...args.slice(0, -3), '-o', join(out, 'b'), '--no-progress'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    assert.equal(plain.status, 0, plain.stderr); // with the packages (development dependencies here)
    assert.ok(existsSync(join(out, 'b', 'gflops.svg')));
  });
});

describe('one default scheduler', () => {
  test('Runtime, simulate() and locus run all default to eager', async () => {
    const rt = await Runtime.create({ mode: 'simulated', platform: 'v100x2' });
    try {
      const c = rt.codelet({
        name: 'k',
        kernel: { module: 'file:///none.mjs', export: 'k' },
        flops: () => 1e9,
      });
      rt.submit(c, [[rt.data(new Float64Array(8)), 'RW']]);
      assert.equal((await rt.wait()).scheduler, 'eager');
    } finally {
      await rt.close();
    }
    const { graph } = generateWorkload('cholesky', { tiles: 3 });
    assert.equal(simulate({ graph, platform: resolvePlatform('v100x2') }).report.scheduler, 'eager');
    const cli = spawnSync(process.execPath, ['bin/locus.mjs', 'run', '-w', 'cholesky', '-n', '3', '--json'], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).scheduler, 'eager');
  });
});
