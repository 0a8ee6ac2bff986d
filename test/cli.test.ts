/** The `locus` command end to end: reports, JSON fields, traces, and one-line errors with exit code 2. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

// Real runs save their measurements into the performance models: keep them out of ~/.locus.
const MODELS = mkdtempSync(join(tmpdir(), 'locus-models-'));
const ENV = { ...process.env, LOCUS_PERFMODEL_DIR: MODELS };

function locus(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], { encoding: 'utf8', env: ENV });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('locus run', () => {
  test('--json prints one object with the totals and the per-node and per-worker detail', () => {
    const r = locus(
      'run',
      '--workload',
      'cholesky',
      '--tiles',
      '8',
      '--platform',
      'v100x2',
      '--gpu-mem',
      '200MB',
      '--json',
    );
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    for (const key of [
      'tasks',
      'makespanS',
      'gflops',
      'bytesToDevices',
      'bytesFromDevices',
      'loads',
      'evictions',
    ]) {
      assert.equal(typeof j[key], 'number', key);
    }
    assert.equal(j.tasks, 120);
    assert.equal(j.nodes.length, 3);
    assert.equal(j.workers.length, 2);
    assert.ok(j.makespanS > 0 && j.gflops > 0);
    assert.equal(
      j.workers.reduce((s: number, w: { tasks: number }) => s + w.tasks, 0),
      120,
    );
  });

  test('the same seed gives the same report', () => {
    const a = JSON.parse(
      locus('run', '-w', 'random', '--tasks', '300', '-s', 'random', '--seed', '5', '--json').out,
    );
    const b = JSON.parse(
      locus('run', '-w', 'random', '--tasks', '300', '-s', 'random', '--seed', '5', '--json').out,
    );
    delete a.wallS;
    delete b.wallS;
    assert.deepEqual(a, b);
  });

  test('the text report names makespan, throughput and transfers', () => {
    const r = locus('run', '--workload', 'matmul2d', '--tiles', '10');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /makespan/);
    assert.match(r.out, /GFlop\/s/);
    assert.match(r.out, /host -> GPUs/);
  });

  test('--trace writes a Chrome trace with task and transfer slices', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-'));
    const file = join(dir, 't.json');
    const r = locus('run', '--workload', 'matmul2d', '--tiles', '4', '--trace', file);
    assert.equal(r.code, 0, r.err);
    const trace = JSON.parse(readFileSync(file, 'utf8'));
    const slices = trace.traceEvents.filter((e: { ph: string }) => e.ph === 'X');
    assert.equal(slices.filter((e: { pid: number }) => e.pid === 1).length, 16, 'one slice per task');
    assert.ok(slices.some((e: { cat: string }) => e.cat === 'fetch'));
  });
});

describe('locus: bad input is one line and exit code 2', () => {
  const cases: [string[], RegExp][] = [
    [['run', '--workload', 'nope'], /unknown workload 'nope': use one of/],
    [['run', '--sched', 'nope'], /unknown scheduler 'nope'/],
    [['run', '--eviction', 'nope'], /unknown eviction policy 'nope'/],
    [['run', '--platform', 'nope'], /unknown platform 'nope'/],
    [['run', '--gpu-mem', '12 bananas'], /is not a size/],
    [['run', '--tiles', 'x'], /not a positive integer/],
    [['run', '--workload', 'matmul2d', '--tiles', '2', '--gpu-mem', '10MiB'], /needs .* of data at once/],
    [['run', '--frobnicate'], /unknown option/],
  ];
  for (const [args, re] of cases) {
    test(args.join(' '), () => {
      const r = locus(...args);
      assert.equal(r.code, 2);
      assert.match(r.err, re);
      assert.equal(r.err.trim().split('\n').length, 1, `one line: ${r.err}`);
      assert.doesNotMatch(r.err, /at .*\.ts:\d+/, 'no stack trace');
    });
  }

  test('an invalid platform file names the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-'));
    const file = join(dir, 'p.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'x',
        memoryNodes: [{ name: 'ram', kind: 'host', capacity: 'lots' }],
        workers: [],
        links: [],
      }),
    );
    const r = locus('run', '--platform', file);
    assert.equal(r.code, 2);
    assert.match(r.err, /memoryNodes\[0\]\.capacity/);
  });
});

describe("locus run: seed 004's runtime versions", () => {
  test('--serial --stop-after 12 counts the block transfers of Tables 5.2-5.5', () => {
    const expected: Record<string, [number, number]> = {
      v1: [25, 12],
      v2: [20, 12],
      v3: [17, 12],
      v4: [17, 5],
    };
    for (const [v, [writes, reads]] of Object.entries(expected)) {
      const r = locus(
        'run',
        '-w',
        'cholesky',
        '--tiles',
        '4',
        '--order',
        'columns',
        '--platform',
        'tsl',
        '--cpus',
        '0',
        '--sched',
        'static',
        '--runtime',
        v,
        '--serial',
        '--stop-after',
        '12',
        '--json',
      );
      assert.equal(r.code, 0, r.err);
      const j = JSON.parse(r.out);
      assert.deepEqual([j.tasks, j.transfersToDevices, j.transfersFromDevices], [12, writes, reads], v);
    }
  });

  test('owner-computes options are errors elsewhere', () => {
    const cases: [string[], RegExp][] = [
      [
        ['--sched', 'dmda', '--runtime', 'v2'],
        /^locus: --runtime applies to --sched static \(owner-computes\), not dmda\n$/,
      ],
      [
        ['--sched', 'static', '--runtime', 'v5'],
        /^locus: --runtime: runtime version must be one of v1, v2, v3, v4 \(got 'v5'\)\n$/,
      ],
      [
        ['--sched', 'static', '--runtime', 'v2', '--cache-lines', '2'],
        /^locus: --cache-lines applies to --runtime v3 and v4/,
      ],
      [
        ['--sched', 'static', '--mapping', '2d:3x3', '--platform', 'tsl'],
        /^locus: --mapping: block mapping '2d:3x3': a 3 x 3 grid needs 9 GPUs, the platform has 4\n$/,
      ],
      [['-w', 'lu', '--order', 'columns'], /^locus: --order does not apply to lu/],
    ];
    for (const [args, re] of cases) {
      const r = locus('run', ...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err, re);
    }
  });
});

describe('locus run --mode real', () => {
  test('cholesky on worker threads with --check: JSON report with the residual', () => {
    const r = locus(
      'run',
      '--mode',
      'real',
      '--workload',
      'cholesky',
      '--tiles',
      '6',
      '--tile-size',
      '32',
      '--cpus',
      '2',
      '--gpus',
      '1',
      '--gpu-mem',
      '40KiB',
      '--sched',
      'dmdar',
      '--check',
      '--json',
    );
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.mode, 'real');
    assert.equal(j.platform, 'local');
    assert.equal(j.tasks, 56);
    assert.equal(j.residual, 0);
    assert.ok(j.backwardError < 1e-12);
    assert.equal(j.workers.length, 3);
  });

  test('--platform takes a file whose GPU memories become emulated devices', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-'));
    const file = join(dir, 'emu.json');
    const link = (from: string, to: string) => ({ from, to, bandwidth: '2GB/s', latency: '20us' });
    writeFileSync(
      file,
      JSON.stringify({
        name: 'emu',
        memoryNodes: [
          { name: 'ram', kind: 'host', capacity: '1GiB' },
          { name: 'dev0', kind: 'gpu', capacity: '24KiB' },
        ],
        workers: [
          { name: 'cpu', kind: 'cpu', memory: 'ram', rate: '5GFlop/s' },
          { name: 'dev0', kind: 'gpu', memory: 'dev0', rate: '5GFlop/s' },
        ],
        links: [link('ram', 'dev0'), link('dev0', 'ram')],
      }),
    );
    const r = locus(
      'run',
      '--mode',
      'real',
      '-w',
      'gemm',
      '--tiles',
      '4',
      '--tile-size',
      '16',
      '--platform',
      file,
      '--sched',
      'random',
      '--throttle',
      '--check',
      '--json',
    );
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.platform, 'emu');
    assert.equal(j.residual, 0);
    assert.ok(j.nodes[1].peakBytes <= 24 * 1024 && j.loads > 0);
  });

  test('the text report ends with the check line', () => {
    const r = locus(
      'run',
      '--mode',
      'real',
      '-w',
      'lu',
      '--tiles',
      '3',
      '--tile-size',
      '16',
      '--cpus',
      '1',
      '--check',
    );
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /lu 3x3 tiles of 16, double, no pivoting/);
    assert.match(r.out, /check: relative difference to the sequential run 0\.00e\+0, backward error \d/);
  });

  test('one-line errors for what does not apply', () => {
    const cases: [string[], RegExp][] = [
      [
        ['-w', 'matmul2d'],
        /^locus: --mode real runs cholesky, lu, lupp, gemm, jacobi, taskbench \(got --workload matmul2d\); simulate the others with --mode simulated \(the default\)\n$/,
      ],
      [['--noise', '0.1'], /^locus: --noise applies to --mode simulated only\n$/],
      [['--tile-size', '0'], /^locus: .*--tile-size/],
    ];
    for (const [args, re] of cases) {
      const r = locus('run', '--mode', 'real', ...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err, re);
    }
    const sim = locus('run', '--check');
    assert.equal(sim.code, 2);
    assert.match(sim.err, /^locus: --check applies to --mode real/);
    const mode = locus('run', '--mode', 'gpu');
    assert.equal(mode.code, 2);
    assert.match(mode.err, /^locus: --mode must be simulated \(or sim\) or real \(got 'gpu'\)\n$/);
  });

  test("--priorities starpu gives a real Cholesky cholesky_implicit's priorities, and only Cholesky", () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-'));
    const priorities = (extra: string[]) => {
      const trace = join(dir, `trace-${extra.length}.json`);
      const r = locus(
        ...'run --mode real -w cholesky --tiles 4 --tile-size 16 --cpus 2 --trace'.split(' '),
        trace,
        ...extra,
      );
      assert.equal(r.code, 0, r.err);
      const events = (
        JSON.parse(readFileSync(trace, 'utf8')) as {
          traceEvents: { pid: number; ph: string; name: string; args: { priority: number } }[];
        }
      ).traceEvents;
      return Object.fromEntries(
        events.filter((e) => e.pid === 1 && e.ph === 'X').map((e) => [e.name, e.args.priority]),
      );
    };
    // cholesky_implicit's: POTRF(k) 2N - 2k, TRSM(m,k) 2N - 2k - m, GEMM(m,n,k) 2N - 2k - m - n (N = 4).
    const starpu = priorities(['--priorities', 'starpu']);
    assert.equal(starpu['POTRF(0)'], 8);
    assert.equal(starpu['TRSM(3,0)'], 5);
    assert.equal(starpu['GEMM(3,2,1)'], 1);
    assert.ok(Object.values(priorities([])).every((p) => p === 0));
    const lu = locus('run', '--mode', 'real', '-w', 'lu', '--priorities', 'starpu');
    assert.equal(lu.code, 2);
    assert.match(lu.err, /^locus: --priorities starpu applies to -w cholesky only .*, not lu\n$/);
    const bad = locus('run', '--mode', 'real', '-w', 'cholesky', '--priorities', 'x');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^locus: --priorities must be none, bottom-level or starpu \(got 'x'\)\n$/);
  });

  test('Ctrl-C stops the worker threads and exits with 130', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(
      process.execPath,
      [
        'bin/locus.mjs',
        'run',
        '--mode',
        'real',
        '-w',
        'gemm',
        '--tiles',
        '12',
        '--tile-size',
        '256',
        '--cpus',
        '2',
      ],
      // The JavaScript kernels: seconds of work, where the native ones finish before the signal.
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...ENV, LOCUS_KERNELS: 'js' } },
    );
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    await new Promise((r) => setTimeout(r, 2500)); // threads started, tasks running
    child.kill('SIGINT');
    const code = await exited;
    assert.equal(code, 130, err);
    assert.match(err, /locus: interrupted; worker threads stopped/);
  });
});
