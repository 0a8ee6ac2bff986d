#!/usr/bin/env node
// The package as a user gets it: `npm pack`, install the tarball into an empty project (from
// npm's cache when it can), then from plain JavaScript (ESM) and from a strict TypeScript
// project (strict, exactOptionalPropertyTypes, NodeNext, no tsx, skipLibCheck off) run a
// simulated Cholesky and a real program whose kernel is a module of that project. Also checks
// the tarball's contents, the installed size without the plotting packages, the `locus`
// command and its one-line error when a plot is asked for without them.
// Usage: node scripts/check-package.mjs [--keep]   (--keep leaves the temporary folder)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
// zod is half of it; Locus itself (dist with maps and declarations, src for the maps) is most
// of the rest. Raised from 15 MiB when the partitioning, WebGPU and cluster layers came in
// (16.0 MiB then); the optional packages (plotting, webgpu) are peers and not counted. The
// declarations ship without declaration maps (each file costs a disk block): the JavaScript's
// source maps and src/ stay, for stack traces.
const MAX_INSTALLED_BYTES = 20 * 2 ** 20;
const work = mkdtempSync(join(tmpdir(), 'locus-package-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const quiet = ['--no-audit', '--no-fund', '--loglevel=error'];

/** Runs a command; throws with its output when it fails. */
function sh(cmd, args, cwd, env = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited with ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

function check(ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`);
  console.log(`ok  ${what}`);
}

/** Bytes under `dir` as `du` counts them (disk usage, 1024-byte blocks). */
function diskUsage(dir) {
  return Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]) * 1024;
}

const MiB = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;

// The program both consumers run: the README's simulated Cholesky and a real two-task program.
const PROGRAM = (kernelUrl) => `
import { generateWorkload, resolvePlatform, Runtime, simulate } from 'locus-runtime';
import { potrf } from 'locus-runtime/kernels';

const { graph } = generateWorkload('cholesky', { tiles: 8 });
const { report } = simulate({ graph, platform: resolvePlatform('v100x2') });
if (report.tasks !== 120 || !(report.makespanS > 0)) throw new Error('simulated cholesky: ' + report.tasks);
console.log('simulated cholesky: ' + report.tasks + ' tasks, makespan ' + report.makespanS + ' s');

const rt = await Runtime.create({ cpus: 2 });
try {
  const scale = rt.codelet({ name: 'scale', kernel: { module: ${kernelUrl}, export: 'scale' }, flops: (n) => n });
  const a = new Float64Array(1000).fill(1);
  const x = rt.data(a, { name: 'x' });
  rt.submit(scale, [[x, 'RW']], { args: [2], dims: [a.length], name: 'DOUBLE' });
  rt.submit(scale, [[x, 'RW']], { args: [3], dims: [a.length], name: 'TRIPLE' });
  const real = await rt.wait();
  await rt.sync(); // the results reach the array on sync (or acquire, unregister, close)
  if (a[0] !== 6 || a[999] !== 6 || real.tasks !== 2 || real.mode !== 'real') throw new Error('real run: ' + a[0]);
  console.log('real run: ' + real.tasks + ' tasks on ' + real.workers.length + ' workers, a[0] = ' + a[0]);
} finally {
  await rt.close();
}
if (typeof potrf !== 'function') throw new Error('locus-runtime/kernels: potrf missing');
`;

try {
  // 1. Pack (the prepare script builds dist/ first).
  const packed = JSON.parse(sh(npm, ['pack', '--json', '--pack-destination', work, ...quiet], repo));
  const info = packed[0];
  const tarball = join(work, info.filename);
  const files = info.files.map((f) => f.path);
  console.log(
    `tarball ${info.filename}: ${statSync(tarball).size} bytes packed, ${info.unpackedSize} bytes unpacked, ${files.length} files`,
  );
  check(!files.some((f) => f.startsWith('test/')), 'the tarball has no tests');
  for (const f of [
    'LICENSE',
    'CHANGELOG.md',
    'README.md',
    'bin/locus.mjs',
    'dist/index.js',
    'dist/index.d.ts',
    'dist/kernels/index.d.ts',
    'dist/exec/worker.js',
  ]) {
    check(files.includes(f), `the tarball has ${f}`);
  }

  // 2. An empty project with only the tarball installed.
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  sh(npm, ['install', '--prefer-offline', ...quiet, tarball], app);
  const installed = diskUsage(join(app, 'node_modules'));
  console.log(`installed library (no plotting): ${MiB(installed)} (${installed} bytes, du) of node_modules`);
  check(installed < MAX_INSTALLED_BYTES, `node_modules under ${MiB(MAX_INSTALLED_BYTES)} without plotting`);
  for (const p of ['vega', 'vega-lite', '@resvg/resvg-js', 'tsx', 'typescript']) {
    check(!existsSync(join(app, 'node_modules', p)), `${p} is not installed with the library`);
  }
  const env = { LOCUS_PERFMODEL_DIR: join(work, 'perfmodels') };

  // 3. Plain JavaScript (ESM), kernel in the project.
  writeFileSync(
    join(app, 'scale.mjs'),
    'export function scale(data, args) {\n  const x = data[0];\n  for (let i = 0; i < x.length; i++) x[i] *= args[0];\n}\n',
  );
  writeFileSync(join(app, 'main.mjs'), PROGRAM("new URL('./scale.mjs', import.meta.url)"));
  process.stdout.write(sh('node', ['main.mjs'], app, env));
  check(true, 'plain JavaScript: simulated and real programs ran');

  // The one-liner a user tries first: node -e with a dynamic import.
  const oneLiner =
    "import('locus-runtime').then((m) => { const { graph } = m.generateWorkload('cholesky', { tiles: 6 });" +
    " console.log(m.simulate({ graph, platform: m.resolvePlatform('v100x2') }).report.tasks); })";
  check(
    sh('node', ['-e', oneLiner], app).trim() === '56',
    'node -e "import(\'locus-runtime\')..." simulates a 56-task Cholesky',
  );

  // 4. Strict TypeScript, compiled with tsc (no tsx), kernel typed with the package's Kernel.
  sh(
    npm,
    [
      'install',
      '--prefer-offline',
      ...quiet,
      '--no-save',
      `@types/node@${pkg.devDependencies['@types/node']}`,
    ],
    app,
  );
  const ts = join(app, 'ts');
  mkdirSync(join(ts, 'src'), { recursive: true });
  writeFileSync(
    join(ts, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        outDir: 'out',
        rootDir: 'src',
        types: ['node'],
      },
      include: ['src'],
    }),
  );
  writeFileSync(join(ts, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(
    join(ts, 'src', 'scale.ts'),
    "import type { Kernel } from 'locus-runtime';\n\n/** x *= args[0]. */\nexport const scale: Kernel = (data, args) => {\n  const x = data[0]!;\n  for (let i = 0; i < x.length; i++) x[i]! *= args[0]!;\n};\n",
  );
  const tsProgram = PROGRAM("new URL('./scale.js', import.meta.url)").replace(
    'flops: (n) => n',
    'flops: (n: number) => n',
  );
  writeFileSync(
    join(ts, 'src', 'main.ts'),
    tsProgram.replace("'DOUBLE' });", "'DOUBLE' } satisfies import('locus-runtime').SubmitOptions);"),
  );
  sh('node', [tsc, '-p', '.'], ts);
  check(
    true,
    'strict TypeScript (exactOptionalPropertyTypes, skipLibCheck off) compiles against the declarations',
  );
  process.stdout.write(sh('node', ['out/main.js'], ts, env));
  check(true, 'compiled TypeScript: simulated and real programs ran');

  // 5. The command.
  const bin = join(app, 'node_modules', '.bin', 'locus');
  check(
    sh(bin, ['--version'], app).split('\n')[0] === pkg.version,
    `locus --version prints ${pkg.version} (then the tile kernels)`,
  );
  const run = JSON.parse(sh(bin, ['run', '-w', 'cholesky', '-n', '4', '--json'], app));
  check(run.tasks === 20, 'locus run -w cholesky -n 4 runs 20 tasks');
  // The browser assets the build bundled (dist/web) ship: the report's viewer, the playground.
  sh(bin, ['run', '-w', 'cholesky', '-n', '4', '--html', 'run.html'], app);
  check(
    readFileSync(join(app, 'run.html'), 'utf8').includes('id="locus-data"'),
    'locus run --html writes the report page (its viewer is in the package)',
  );
  sh(bin, ['playground', '--out', 'site'], app);
  check(
    readFileSync(join(app, 'site', 'index.html'), 'utf8').includes('id="locus-worker"'),
    'locus playground --out writes the playground (its page is in the package)',
  );
  const real = JSON.parse(
    sh(
      bin,
      [
        'run',
        '--mode',
        'real',
        '-w',
        'cholesky',
        '-n',
        '3',
        '--tile-size',
        '16',
        '--cpus',
        '2',
        '--check',
        '--json',
        '--no-progress',
      ],
      app,
      env,
    ),
  );
  check(real.tasks === 10, 'locus run --mode real (compiled worker threads) runs 10 tasks');
  const sweep = spawnSync(
    bin,
    [
      'sweep',
      '-w',
      'cholesky',
      '--sizes',
      '2',
      '--sched',
      'eager',
      '-o',
      join(work, 'sweep'),
      '--no-progress',
    ],
    { cwd: app, encoding: 'utf8' },
  );
  check(
    sweep.status === 2 &&
      sweep.stderr.trim().split('\n').length === 1 &&
      sweep.stderr.includes('npm install vega vega-lite @resvg/resvg-js'),
    `locus sweep without the plotting packages: exit 2 and one line naming the install command (${sweep.stderr.trim()})`,
  );
  console.log('package check passed');
} finally {
  if (process.argv.includes('--keep')) console.log(`left ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
