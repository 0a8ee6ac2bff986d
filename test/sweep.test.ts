/** Sweeps: policy specs, the run grid and its aggregate, CSV, plots, figures and `locus sweep`. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { noiseValue, resumeCommand, sizeList } from '../src/cli/sweep-command.ts';
import { LocusError } from '../src/core/types.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { parseCsv, toCsv } from '../src/report/csv.ts';
import { FIGURES, getFigure } from '../src/report/figures.ts';
import {
  gflopsSpec,
  hostBus,
  needsLogScale,
  peakRate,
  plotModel,
  plotSweep,
  policyStyle,
  renderSvg,
  textWidth,
  transfersSpec,
} from '../src/report/plots.ts';
import { parsePolicySpec, parsePolicySpecs } from '../src/report/policy-spec.ts';
import {
  RUN_COLUMNS,
  runSweep,
  runSweepAsync,
  SweepInterrupted,
  type SweepRow,
  type SweepSpec,
} from '../src/report/sweep.ts';
import { RunsCsvWriter, readRunsCsv } from '../src/report/sweep-files.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';

const MiB = 2 ** 20;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The tiny grid: matmul2d N = 4, 8 under eager and random, 2 repetitions. */
const TINY: SweepSpec = { workload: 'matmul2d', sizes: [4, 8], policies: ['eager', 'random'], reps: 2 };

/** A row without its wall-clock times (the only non-deterministic fields). */
function virtual(r: SweepRow): Omit<SweepRow, 'wallS' | 'schedulingS'> {
  const { wallS: _, schedulingS: __, ...rest } = r;
  return rest;
}

/** runs.csv text without its wall-clock columns. */
function virtualCsv(text: string): string[][] {
  const drop = new Set([RUN_COLUMNS.indexOf('wallS'), RUN_COLUMNS.indexOf('schedulingS')]);
  return parseCsv(text).map((row) => row.filter((_, i) => !drop.has(i)));
}

function oneLine(fn: () => unknown, re: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof LocusError, `a LocusError, got ${String(e)}`);
    assert.match(e.message, re);
    assert.equal(e.message.split('\n').length, 1, `one line: ${e.message}`);
    return true;
  });
}

/**
 * Starts `locus ARGS` (a sweep writing `runs`), waits for a few of its runs to end (the grids
 * here have 32), sends `signal`, and resolves with its exit code and stderr.
 */
async function stopSweep(
  args: string[],
  runs: string,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, ['bin/locus.mjs', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  for (let i = 0; i < 6000; i++) {
    if (existsSync(runs) && readFileSync(runs, 'utf8').split('\n').length > 3) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  child.kill(signal);
  return { code: await exited, err };
}

describe('parsePolicySpec', () => {
  test('a scheduler name, or scheduler+eviction', () => {
    assert.deepEqual(parsePolicySpec('eager'), { scheduler: 'eager', label: 'eager' });
    assert.deepEqual(parsePolicySpec('random+fifo'), {
      scheduler: 'random',
      eviction: 'fifo',
      label: 'random+fifo',
    });
    assert.deepEqual(parsePolicySpec(' Eager + LRU '), {
      scheduler: 'eager',
      eviction: 'lru',
      label: 'eager+lru',
    });
  });

  test('unknown names: one line listing the known ones', () => {
    oneLine(
      () => parsePolicySpec('nope'),
      /unknown scheduler 'nope': schedulers: .*eager.*random.*eviction policies: .*lru/,
    );
    oneLine(
      () => parsePolicySpec('eager+nope'),
      /unknown eviction policy 'nope': schedulers: .*eviction policies: .*lru/,
    );
    oneLine(() => parsePolicySpec('constructor'), /unknown scheduler 'constructor'/);
  });

  test('malformed specs', () => {
    for (const bad of ['', '+lru', 'eager+', 'eager+lru+fifo']) {
      oneLine(() => parsePolicySpec(bad), /is not NAME or NAME\+EVICTION/);
    }
  });

  test('a list is checked whole: every unknown name in one message', () => {
    oneLine(
      () => parsePolicySpecs(['eager', 'nope1', 'nope2+lru', 'random+zz']),
      /unknown schedulers 'nope1', 'nope2' and unknown eviction policy 'zz'/,
    );
    oneLine(() => parsePolicySpecs('eager,random,eager'), /listed twice/);
    assert.deepEqual(
      parsePolicySpecs('eager,random+fifo').map((p) => p.label),
      ['eager', 'random+fifo'],
    );
  });
});

describe('runSweep', () => {
  test('one row per size x policy x repetition, in that order, and the aggregate', () => {
    const r = runSweep(TINY);
    assert.equal(r.rows.length, 2 * 2 * 2);
    assert.deepEqual(
      r.rows.map((x) => `${x.tiles}/${x.policy}/${x.seed}`),
      [
        '4/eager/1',
        '4/eager/2',
        '4/random/1',
        '4/random/2',
        '8/eager/1',
        '8/eager/2',
        '8/random/1',
        '8/random/2',
      ],
    );
    for (const row of r.rows) {
      assert.equal(row.workload, 'matmul2d');
      assert.equal(row.tasks, row.tiles * row.tiles);
      assert.equal(row.workingSetBytes, 2 * row.tiles * 960 * 3840 * 4);
      assert.equal(row.eviction, 'lru');
      assert.ok(row.gflops > 0 && row.makespanS > 0 && row.bytesToDevices > 0);
      assert.ok(Math.abs(row.gflops - row.totalFlops / row.makespanS / 1e9) < 1e-6 * row.gflops);
    }
    assert.equal(r.summary.length, 4);
    for (const s of r.summary) {
      assert.equal(s.reps, 2);
      const runs = r.rows.filter((x) => x.tiles === s.tiles && x.policy === s.policy);
      const g = runs.map((x) => x.gflops);
      assert.equal(s.gflopsMin, Math.min(...g));
      assert.equal(s.gflopsMax, Math.max(...g));
      assert.ok(Math.abs(s.gflopsMean - (g[0]! + g[1]!) / 2) < 1e-9 * s.gflopsMean);
    }
    assert.deepEqual(
      r.sizes.map((s) => [s.tiles, s.tasks, Object.keys(s.codeletFlops)]),
      [
        [4, 16, ['gemm']],
        [8, 64, ['gemm']],
      ],
    );
  });

  test('deterministic: the same spec gives the same rows', () => {
    assert.deepEqual(runSweep(TINY).rows.map(virtual), runSweep(TINY).rows.map(virtual));
  });

  test('a graph reused across policies gives what a fresh graph gives', () => {
    const shared = runSweep(TINY).rows.filter((x) => x.policy === 'random');
    const fresh = runSweep({ ...TINY, policies: ['random'] }).rows;
    assert.deepEqual(shared.map(virtual), fresh.map(virtual));
  });

  test('an eviction policy in the spec is used', () => {
    const r = runSweep({ ...TINY, sizes: [4], policies: ['eager+fifo'], reps: 1 });
    assert.equal(r.rows[0]!.policy, 'eager+fifo');
    assert.equal(r.rows[0]!.eviction, 'fifo');
  });

  test('memory options and hints reach every run as they reach a single simulation', () => {
    const base: SweepSpec = {
      workload: 'cholesky',
      sizes: [12],
      policies: ['dmdar'],
      gpuMem: 64 * MiB,
      params: { tileSize: 960 },
    };
    const platform = resolvePlatform('v100x2', { gpuMem: 64 * MiB });
    const variants: { sweep: Partial<SweepSpec>; hints: boolean; engine: Record<string, unknown> }[] = [
      { sweep: {}, hints: true, engine: {} },
      { sweep: { cleanFirst: false }, hints: true, engine: { cleanFirst: false } },
      { sweep: { minClean: 20, targetClean: 40 }, hints: true, engine: { minClean: 20, targetClean: 40 } },
      { sweep: { params: { tileSize: 960, hints: false } }, hints: false, engine: {} },
    ];
    const written = variants.map(({ sweep, hints, engine }) => {
      const row = runSweep({ ...base, ...sweep }).rows[0]!;
      const wl = generateWorkload('cholesky', { tiles: 12, tileSize: 960, hints, seed: 1 });
      const { report } = simulate({ graph: wl.graph, platform, scheduler: 'dmdar', seed: 1, ...engine });
      assert.equal(row.writebackBytes, report.writebackBytes);
      assert.equal(row.bytesToDevices, report.bytesToDevices);
      assert.equal(row.makespanS, report.makespanS);
      return row.writebackBytes;
    });
    // Each option changes what is written back (the comparison above is not vacuous).
    assert.equal(new Set(written).size, written.length, `write-backs ${written.join(', ')}`);
  });

  test('bad specs fail up front with one line', () => {
    let ran = 0;
    const progress = () => {
      ran++;
    };
    oneLine(
      () => runSweep({ ...TINY, policies: ['eager', 'nope', 'x+y'] }, progress),
      /unknown scheduler.*'nope', 'x' and unknown eviction policy 'y'/,
    );
    oneLine(() => runSweep({ ...TINY, sizes: [] }), /no size/);
    oneLine(() => runSweep({ ...TINY, sizes: [4, 0] }), /every size must be an integer >= 1/);
    oneLine(() => runSweep({ ...TINY, reps: 0 }), /reps must be/);
    oneLine(() => runSweep({ ...TINY, workload: 'nope' }), /unknown workload 'nope'/);
    oneLine(() => runSweep({ ...TINY, platform: 'nope' }), /unknown platform 'nope'/);
    oneLine(() => runSweep({ ...TINY, noise: 1 }), /noise must be in \[0, 1\)/);
    assert.equal(ran, 0, 'nothing ran');
  });

  test('progress: before every run, then once at the end', () => {
    const calls: string[] = [];
    runSweep({ ...TINY, reps: 1 }, (p) =>
      calls.push(`${p.done}/${p.total} ${p.next ? p.next.policy : 'end'}`),
    );
    assert.deepEqual(calls, ['0/4 eager', '1/4 random', '2/4 eager', '3/4 random', '4/4 end']);
  });
});

describe('CSV', () => {
  test('RFC 4180 quoting: commas, quotes and line breaks; empty cells for missing values', () => {
    const rows = [
      { a: 'plain', b: 'x,y', c: 'say "hi"', d: 'two\nlines', e: 3.5, f: undefined, g: Number.NaN },
      { a: 'cr\r', b: '', c: '"', d: 'x', e: -0.25, f: null, g: 1e21 },
    ];
    const text = toCsv(rows);
    assert.equal(
      text,
      'a,b,c,d,e,f,g\n' + 'plain,"x,y","say ""hi""","two\nlines",3.5,,\n' + '"cr\r",,"""",x,-0.25,,1e+21\n',
    );
    assert.deepEqual(parseCsv(text), [
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
      ['plain', 'x,y', 'say "hi"', 'two\nlines', '3.5', '', ''],
      ['cr\r', '', '"', 'x', '-0.25', '', '1e+21'],
    ]);
  });

  test('columns choose and order the fields; CRLF on request', () => {
    assert.equal(toCsv([{ a: 1, b: 2 }], ['b', 'a'], '\r\n'), 'b,a\r\n2,1\r\n');
    assert.deepEqual(parseCsv('b,a\r\n2,1\r\n'), [
      ['b', 'a'],
      ['2', '1'],
    ]);
  });
});

describe('plots', () => {
  const result = runSweep(TINY);
  const lines = [{ workingSetBytes: 100 * MiB, label: 'a test line', color: '#ff0000' }];

  test('the throughput plot names the policies, the peak and the vertical lines', async () => {
    const svg = await renderSvg(
      gflopsSpec(plotModel(result, { title: 'Tiny sweep', kernel: 'gemm', lines })),
    );
    assert.match(svg, /^<svg/);
    for (const s of ['eager', 'random', 'a test line', 'GFlop/s', 'Working set (GiB)']) {
      assert.ok(svg.includes(s), `SVG contains '${s}'`);
    }
    // No title in the image: the caption carries it.
    assert.ok(!svg.includes('Tiny sweep'), 'no title in the SVG');
  });

  test('the transfers plot names the policies, the bus limit and the vertical lines; PNG output', async () => {
    const plots = await plotSweep(result, { title: 'Tiny sweep', lines });
    for (const s of [
      'eager',
      'random',
      'a test line',
      'bus limit: 12.38 GB/s (host-bus)',
      'Data transferred to the GPUs',
    ]) {
      assert.ok(plots.transfers.svg.includes(s), `SVG contains '${s}'`);
    }
    for (const p of [plots.gflops, plots.transfers]) {
      assert.ok(p.png.subarray(0, 8).equals(PNG_SIGNATURE), 'PNG signature');
      assert.equal(p.png.readUInt32BE(16), 1200, 'PNG 1200 pixels wide');
    }
  });

  test('default lines: where the data fit in the GPUs; peak from the dominant kernel', () => {
    const m = plotModel(result, { title: 't' });
    assert.deepEqual(m.lines, [], 'no line far beyond the largest working set (225 MiB)');
    const wider = runSweep({ ...TINY, sizes: [4, 40], policies: ['eager'], reps: 1 });
    assert.deepEqual(
      plotModel(wider, { title: 't' }).lines.map((l) => [l.ws, l.label]),
      [[1000 / 1024, 'all data fit in the GPUs']],
    );
    assert.equal(m.peak!.gflops, 2 * 12640);
    assert.equal(m.reps, 2);
    // Bus limit: host bus bandwidth x total flops / summed peak.
    const s = result.sizes[1]!;
    assert.ok(Math.abs(m.busLimit!.points[1]!.gib - (12.38e9 * s.totalFlops) / 25.28e12 / 2 ** 30) < 1e-9);
  });

  test('log scale for the transfers when they span more than 100x', () => {
    const m = plotModel(result, { title: 't' });
    const small = {
      ...m,
      busLimit: undefined,
      points: m.points.map((p) => ({ ...p, gibMin: p.gib, gibMax: p.gib })),
    };
    assert.equal(needsLogScale(small), false);
    const wide = {
      ...small,
      points: [...small.points, { ...small.points[0]!, gib: 1e9, gibMin: 1e9, gibMax: 1e9 }],
    };
    assert.equal(needsLogScale(wide), true);
    assert.match(JSON.stringify(transfersSpec(wide)), /"type":"log"/);
  });

  test('host bus: the shared link, else the fastest host to GPU route', () => {
    assert.deepEqual(hostBus(resolvePlatform('v100x2')), { bandwidth: 12.38e9, name: 'host-bus' });
    const hannibal = hostBus(resolvePlatform('hannibal'));
    assert.equal(hannibal!.bandwidth, 5.5e9);
  });

  test('text widths follow DejaVu Sans', () => {
    assert.equal(textWidth('m', 1000), 974);
    assert.ok(textWidth('abc', 11, true) > textWidth('abc', 11));
  });
});

describe('figures', () => {
  test("fig2 and fig3 are seed 000's experiments", () => {
    const f2 = FIGURES.fig2!;
    assert.equal(f2.sweep.workload, 'matmul2d');
    assert.deepEqual(f2.sweep.sizes, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150]);
    assert.deepEqual(f2.sweep.policies, ['eager', 'dmdar', 'darts', 'darts+luf']);
    assert.equal(f2.sweep.chargeScheduling, true);
    const p2 = resolvePlatform(f2.sweep.platform, { gpus: f2.sweep.gpus, gpuMem: f2.sweep.gpuMem });
    assert.deepEqual(
      f2.lines(p2).map((l) => [l.workingSetBytes / MiB, l.label]),
      [
        [1000, 'both matrices fit'],
        [2000, 'one matrix fits'],
      ],
    );
    assert.equal(peakRate(p2, f2.kernel).flops, 2 * 12.64e12);
    const f3 = FIGURES.fig3!;
    assert.equal(f3.sweep.priorities, 'bottom-level');
    const p3 = resolvePlatform(f3.sweep.platform, { gpus: f3.sweep.gpus, gpuMem: f3.sweep.gpuMem });
    assert.deepEqual(
      f3.lines(p3).map((l) => [l.workingSetBytes / MiB, l.label]),
      [[4000, 'all data fit']],
    );
    oneLine(() => getFigure('fig9'), /unknown figure 'fig9': use one of fig2, fig3/);
  });
});

describe('option parsers', () => {
  test('--sizes: lists and ranges', () => {
    assert.deepEqual(sizeList('4,8'), [4, 8]);
    assert.deepEqual(sizeList('5:40:5'), [5, 10, 15, 20, 25, 30, 35, 40]);
    assert.deepEqual(sizeList('10:150:10').length, 15);
    assert.deepEqual(sizeList('3:5,10'), [3, 4, 5, 10]);
    for (const bad of ['', 'x', '0', '10:5', '1:10:0', '1:2:3:4', '-3', '4,,8', '2.5']) {
      assert.throws(() => sizeList(bad), /is not a list of sizes/, bad);
    }
    assert.throws(() => sizeList('1:1000000'), /more than 10000 sizes/);
  });

  test('--noise', () => {
    assert.equal(noiseValue('0.05'), 0.05);
    assert.throws(() => noiseValue('1'), /not a noise level/);
    assert.throws(() => noiseValue('x'), /not a noise level/);
  });
});

function locus(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('locus sweep', () => {
  for (const figure of ['fig2', 'seed003', 'seed001-cluster']) {
    test(`--figure ${figure}: an output folder that cannot be made is one line and exit 2, not a hang (/proc/x)`, () => {
      const r = spawnSync(
        process.execPath,
        ['bin/locus.mjs', 'sweep', '--figure', figure, '--out', '/proc/x'],
        {
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /^locus: cannot create the output folder \/proc\/x: .*; pick another --out\n$/);
    });
  }

  for (const [figure, file] of [
    ['seed003', 'speedup.csv'],
    ['seed001-cluster', 'lu.csv'],
  ] as const) {
    test(`--figure ${figure}: an earlier run in --out is refused without --force; --resume is refused`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'locus-sweep-figure-'));
      writeFileSync(join(dir, file), 'kept\n');
      const r = locus('sweep', '--figure', figure, '--out', dir);
      assert.equal(r.code, 2, r.err);
      assert.match(
        r.err,
        new RegExp(
          `holds an earlier sweep \\(${file}\\): give --force to overwrite it, or --out another folder`,
        ),
      );
      assert.equal(readFileSync(join(dir, file), 'utf8'), 'kept\n', 'nothing was overwritten');
      const resumed = locus('sweep', '--figure', figure, '--out', dir, '--resume');
      assert.equal(resumed.code, 2, resumed.err);
      assert.match(resumed.err, new RegExp(`--figure ${figure} reruns whole: drop --resume`));
    });
  }

  test('writes the CSVs and the plots and prints the summary', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-sweep-'));
    const r = locus(
      'sweep',
      '--workload',
      'matmul2d',
      '--sizes',
      '4,8',
      '--sched',
      'eager,random',
      '--out',
      dir,
    );
    assert.equal(r.code, 0, r.err);
    for (const f of [
      'runs.csv',
      'summary.csv',
      'gflops.svg',
      'gflops.png',
      'transfers.svg',
      'transfers.png',
    ]) {
      assert.ok(existsSync(join(dir, f)), f);
    }
    const runs = parseCsv(readFileSync(join(dir, 'runs.csv'), 'utf8'));
    assert.equal(runs.length, 1 + 4);
    assert.deepEqual(runs[0]!.slice(0, 9), [
      'workload',
      'platform',
      'gpuMemBytes',
      'tiles',
      'workingSetBytes',
      'policy',
      'scheduler',
      'eviction',
      'seed',
    ]);
    assert.equal(parseCsv(readFileSync(join(dir, 'summary.csv'), 'utf8')).length, 1 + 4);
    assert.ok(readFileSync(join(dir, 'gflops.png')).subarray(0, 8).equals(PNG_SIGNATURE));
    assert.match(r.out, /throughput \(GFlop\/s\)/);
    assert.match(r.out, /transferred to the GPUs \(GiB\)/);
    assert.match(r.out, /N\s+working set\s+eager\s+random/);
    assert.match(r.out, /wrote .*runs\.csv/);
    assert.equal(r.err, '', 'no progress bar without a TTY');
  });

  test('--json prints the runs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-sweep-'));
    const r = locus(
      'sweep',
      '-w',
      'cholesky',
      '--sizes',
      '3:5',
      '--sched',
      'eager',
      '--reps',
      '2',
      '--out',
      dir,
      '--json',
      '--no-plots',
    );
    assert.equal(r.code, 0, r.err);
    const rows = JSON.parse(r.out);
    assert.equal(rows.length, 3 * 2);
    assert.deepEqual(
      rows.map((x: SweepRow) => x.seed),
      [1, 2, 1, 2, 1, 2],
    );
    assert.ok(!existsSync(join(dir, 'gflops.svg')), '--no-plots');
  });

  const bad: [string[], RegExp][] = [
    [['--workload', 'matmul2d', '--sizes', 'x'], /'x' is not a list of sizes/],
    [['--workload', 'matmul2d', '--sizes', '10:5'], /is not a list of sizes/],
    [['--workload', 'matmul2d', '--sizes', '4', '--sched', 'eager,nope'], /unknown scheduler 'nope'/],
    [['--workload', 'matmul2d'], /--sizes is needed/],
    [['--sizes', '4'], /give --figure/],
    [['--figure', 'fig9'], /unknown figure 'fig9'/],
    [['--figure', 'fig2', '--workload', 'cholesky'], /--figure fig2 runs matmul2d/],
    [['--workload', 'matmul2d', '--sizes', '4', '--noise', '2'], /not a noise level/],
  ];
  for (const [args, re] of bad) {
    test(`bad input: ${args.join(' ')}`, () => {
      const out = join(mkdtempSync(join(tmpdir(), 'locus-sweep-')), 'out');
      const r = locus('sweep', ...args, '--out', out);
      assert.ok(!existsSync(out), 'no output folder on bad input');
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, re);
      assert.equal(r.err.trim().split('\n').length, 1, `one line: ${r.err}`);
      assert.doesNotMatch(r.err, /at .*\.ts:\d+/, 'no stack trace');
    });
  }
});

describe('repetitions, spread and run columns', () => {
  test('summary: mean, sample standard deviation, min and max over the repetitions', () => {
    const r = runSweep({ ...TINY, sizes: [8], policies: ['random'], reps: 4, noise: 0.2 });
    assert.equal(r.rows.length, 4);
    const s = r.summary[0]!;
    const g = r.rows.map((x) => x.gflops);
    const mean = g.reduce((a, b) => a + b, 0) / g.length;
    const sd = Math.sqrt(g.reduce((a, b) => a + (b - mean) ** 2, 0) / (g.length - 1));
    assert.ok(new Set(g).size > 1, 'noise and seeds make the runs differ');
    assert.ok(Math.abs(s.gflopsMean - mean) < 1e-9 * mean);
    assert.ok(Math.abs(s.gflopsSd - sd) < 1e-9 * sd);
    assert.ok(s.gflopsSd > 0);
    assert.equal(s.gflopsMin, Math.min(...g));
    assert.equal(s.gflopsMax, Math.max(...g));
    const one = runSweep({ ...TINY, sizes: [4], policies: ['eager'], reps: 1 }).summary[0]!;
    assert.equal(one.gflopsSd, 0, 'one run: sd 0');
  });

  test('runs carry the platform, GPU memory, seed, energy and write-back bytes', () => {
    const r = runSweep({
      workload: 'cholesky',
      sizes: [6],
      policies: ['eager'],
      gpuMem: 64 * MiB,
      params: { tileSize: 960 },
    });
    const row = r.rows[0]!;
    assert.equal(row.platform, 'v100x2');
    assert.equal(row.gpuMemBytes, 64 * MiB);
    assert.equal(row.seed, 1);
    assert.ok(row.energyJ !== null && row.energyJ > 0, 'v100x2 has power figures');
    // Cholesky tiles are all 960 x 960 single: every write-back moves one tile.
    assert.ok(row.writebacks > 0);
    assert.equal(row.writebackBytes, row.writebacks * 960 * 960 * 4);
    const noPower = runSweep({ ...TINY, sizes: [4], policies: ['eager'], reps: 1, platform: 'cpu+gpu' });
    assert.equal(noPower.rows[0]!.platform, 'cpu+gpu');
  });

  test('every policy keeps its style whatever it is plotted with; styles differ without colour', () => {
    const m1 = plotModel(runSweep({ ...TINY, sizes: [4], reps: 1, policies: ['eager', 'darts+luf'] }), {
      title: 't',
    });
    const m2 = plotModel(runSweep({ ...TINY, sizes: [4], reps: 1, policies: ['darts+luf', 'random'] }), {
      title: 't',
    });
    const rangeOf = (spec: unknown, channel: string, policy: string): unknown => {
      const layers = (
        spec as { layer: { encoding?: Record<string, { scale?: { domain: string[]; range: unknown[] } }> }[] }
      ).layer;
      for (const l of layers) {
        const enc = l.encoding?.[channel];
        if (enc?.scale) return enc.scale.range[enc.scale.domain.indexOf(policy)];
      }
      return undefined;
    };
    for (const ch of ['color', 'shape', 'strokeDash']) {
      assert.notEqual(rangeOf(gflopsSpec(m1), ch, 'darts+luf'), undefined, ch);
      assert.deepEqual(
        rangeOf(gflopsSpec(m1), ch, 'darts+luf'),
        rangeOf(transfersSpec(m2), ch, 'darts+luf'),
        ch,
      );
    }
    const known = ['eager', 'dmdar', 'darts', 'darts+luf', 'dmda', 'dmdas'];
    const grey = known.map((p) => `${policyStyle(p).shape}/${policyStyle(p).dash.join(',')}`);
    assert.equal(new Set(grey).size, known.length, 'marker and dash tell the figure policies apart');
    assert.deepEqual(policyStyle('my-policy'), policyStyle('my-policy'));
  });
});

describe('interrupted sweeps', () => {
  const SPEC: SweepSpec = { workload: 'matmul2d', sizes: [4, 6, 8], policies: ['eager', 'random'], reps: 2 };

  test('an aborted sweep keeps the rows written as runs ended; resuming gives the uninterrupted CSV', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-resume-'));
    const file = join(dir, 'runs.csv');
    const writer = new RunsCsvWriter(file);
    const abort = new AbortController();
    let n = 0;
    await assert.rejects(
      runSweepAsync(SPEC, {
        signal: abort.signal,
        onRow: (row) => {
          writer.append(row);
          if (++n === 5) abort.abort();
        },
      }),
      (e: unknown) => {
        assert.ok(e instanceof SweepInterrupted);
        assert.equal(e.rows.length, 5);
        assert.equal(e.total, 12);
        return true;
      },
    );
    writer.close();
    const kept = readRunsCsv(file);
    assert.equal(kept.length, 5);
    assert.deepEqual(
      kept.map((r) => `${r.tiles}/${r.policy}/${r.seed}`),
      ['4/eager/1', '4/eager/2', '4/random/1', '4/random/2', '6/eager/1'],
    );
    const ran: string[] = [];
    const resumed = await runSweepAsync(SPEC, {
      done: kept,
      onProgress: (p) => {
        if (p.next) ran.push(`${p.next.tiles}/${p.next.policy}/${p.next.seed}`);
      },
    });
    assert.equal(ran.length, 7, 'only the missing runs ran');
    assert.ok(!ran.includes('4/eager/1'));
    const whole = runSweep(SPEC);
    assert.deepEqual(resumed.rows.map(virtual), whole.rows.map(virtual));
    assert.deepEqual(resumed.summary.length, whole.summary.length);
  });

  test('rows of another sweep are refused in one line', () => {
    const rows = runSweep({ ...SPEC, sizes: [4] }).rows;
    oneLine(() => runSweep({ ...SPEC, gpuMem: 100 * MiB }, { done: rows }), /not part of this sweep/);
    oneLine(
      () => runSweep({ ...SPEC, sizes: [6] }, { done: rows }),
      /N=4 eager seed 1 .* not part of this sweep/,
    );
  });

  test('runs.csv read back: types, null energy, a cut last line is dropped, bad files refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-csv-'));
    const file = join(dir, 'runs.csv');
    const rows = runSweep({ ...SPEC, sizes: [4], reps: 1 }).rows.map((r) => ({ ...r, energyJ: null }));
    const w = new RunsCsvWriter(file, rows.slice(0, 1));
    w.append(rows[1]!);
    w.close();
    assert.deepEqual(readRunsCsv(file), rows);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, text.length - 30));
    assert.deepEqual(readRunsCsv(file), rows.slice(0, 1));
    assert.deepEqual(readRunsCsv(join(dir, 'none.csv')), []);
    writeFileSync(file, 'a,b\n1,2\n');
    oneLine(() => readRunsCsv(file), /columns differ/);
    writeFileSync(
      file,
      `${text.split('\n')[0]}\n${text.split('\n')[1]!.replace(/^matmul2d,v100x2,\d+/, 'matmul2d,v100x2,x')}\n`,
    );
    oneLine(() => readRunsCsv(file), /line 2: column gpuMemBytes holds 'x'/);
  });

  test('resumeCommand repeats the arguments with --resume, quoted for a shell', () => {
    assert.equal(
      resumeCommand(['node', 'locus', 'sweep', '--figure', 'fig2', '--out', 'my dir']),
      "locus sweep --figure fig2 --out 'my dir' --resume",
    );
    assert.equal(resumeCommand(['node', 'locus', 'sweep', '--resume']), 'locus sweep --resume');
  });

  test('locus sweep: Ctrl-C keeps the finished runs and says how to resume; --resume completes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-sigint-'));
    const args = ['sweep', '-w', 'matmul2d', '--sizes', '10:40:2', '--sched', 'eager,random', '--no-plots'];
    const out = join(dir, 'a');
    const runs = join(out, 'runs.csv');
    const { code, err } = await stopSweep([...args, '--out', out], runs, 'SIGINT');
    assert.equal(code, 130, err);
    const m = /sweep interrupted after (\d+) of 32 runs .*resume with: locus sweep .*--resume\n$/.exec(err);
    assert.ok(m, err);
    const kept = readRunsCsv(runs);
    assert.equal(kept.length, Number(m[1]));
    assert.ok(kept.length >= 2 && kept.length < 32);
    const resumed = locus(...args, '--out', out, '--resume');
    assert.equal(resumed.code, 0, resumed.err);
    const whole = locus(...args, '--out', join(dir, 'b'));
    assert.equal(whole.code, 0, whole.err);
    assert.deepEqual(
      virtualCsv(readFileSync(runs, 'utf8')),
      virtualCsv(readFileSync(join(dir, 'b', 'runs.csv'), 'utf8')),
    );
    assert.equal(readFileSync(join(out, 'summary.csv'), 'utf8').split('\n').length, 16 * 2 + 2);
  });

  test('locus sweep: SIGTERM stops it as Ctrl-C does, saying so, with exit code 143', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'locus-sigterm-')), 'a');
    const args = [
      'sweep',
      '-w',
      'matmul2d',
      '--sizes',
      '10:40:2',
      '--sched',
      'eager,random',
      '--no-plots',
      '--out',
      out,
    ];
    const { code, err } = await stopSweep(args, join(out, 'runs.csv'), 'SIGTERM');
    assert.equal(code, 143, err);
    assert.match(
      err,
      /^locus: sweep terminated \(SIGTERM\) after \d+ of 32 runs .*resume with: locus sweep .*--resume\n$/,
    );
  });

  test('locus sweep --resume refuses the runs of another sweep in one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-resume-'));
    assert.equal(locus('sweep', '-w', 'matmul2d', '--sizes', '4', '--out', dir, '--no-plots').code, 0);
    const r = locus('sweep', '-w', 'matmul2d', '--sizes', '6', '--out', dir, '--no-plots', '--resume');
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /^locus: the run N=4 eager seed 1 .* is not part of this sweep/);
    assert.equal(r.err.trim().split('\n').length, 1);
    assert.equal(readRunsCsv(join(dir, 'runs.csv')).length, 1, 'the kept runs are still there');
  });

  test("locus sweep --resume refuses other settings than the interrupted sweep's, in one line", () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-resume-'));
    const args = ['sweep', '-w', 'cholesky', '--sizes', '4', '--out', dir, '--no-plots'];
    assert.equal(locus(...args, '--no-clean-first').code, 0);
    const r = locus(...args, '--min-clean', '5', '--resume');
    assert.equal(r.code, 2, r.err);
    assert.match(
      r.err,
      /^locus: the interrupted sweep ran with other settings \(cleanFirst: false, now default; minClean: default, now 5\)/,
    );
    assert.equal(r.err.trim().split('\n').length, 1);
    assert.equal(readRunsCsv(join(dir, 'runs.csv')).length, 1, 'the kept runs are still there');
    assert.equal(locus(...args, '--no-clean-first', '--resume').code, 0, 'the same settings resume');
  });
});
