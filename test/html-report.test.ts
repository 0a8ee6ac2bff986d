/**
 * `locus report`'s builder (src/html-report) and its commands, without a browser: what it
 * reads from a trace (every task, transfer and eviction the run had, the ready-task curve),
 * the packed payload decoded back as the page decodes it, and the one-line errors.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { encodePayload, timeDeltas } from '../src/html-report/encode.ts';
import { extractRun, readyCurve, type TraceJson } from '../src/html-report/index.ts';
import type { ReportPayload } from '../src/html-report/payload.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { decodePayload } from '../web/report/decode.ts';

const dir = mkdtempSync(join(tmpdir(), 'locus-report-'));
const ENV = { ...process.env, LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-models-')) };

function locus(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], { encoding: 'utf8', env: ENV });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A cholesky run under memory pressure (evictions, write-backs), traced in memory. */
function tracedRun() {
  const platform = resolvePlatform('v100x2', { gpuMem: 100e6 });
  const wl = generateWorkload('cholesky', { tiles: 10, host: platform.nodes[platform.homeNode]! });
  const { report, trace } = simulate({ graph: wl.graph, platform, scheduler: 'dmdar', trace: true });
  return { report, trace: trace!.toJSON() as unknown as TraceJson };
}

describe('the report builder', () => {
  const { report, trace } = tracedRun();
  const run = extractRun(trace, 'cholesky.json');

  test('reads every task, copy and eviction of the run, and its report', () => {
    const c = run.columns;
    assert.equal(c.taskStart.length, report.tasks);
    assert.equal(c.trStart.length, report.transfers);
    assert.equal(c.evTime.length, report.evictions);
    assert.ok(report.evictions > 0, 'the run evicts');
    assert.deepEqual(run.facts.report, JSON.parse(JSON.stringify(report)));
    assert.equal(run.facts.label, 'dmdar+lru');
    // Tasks by worker, then start; each worker's block where workerTaskStart says.
    const starts = run.facts.workerTaskStart;
    for (let w = 0; w + 1 < starts.length; w++) {
      for (let i = starts[w]!; i < starts[w + 1]!; i++) {
        assert.equal(c.taskWorker[i], w);
        if (i > starts[w]!) assert.ok(c.taskStart[i - 1]! <= c.taskStart[i]!);
      }
    }
    for (let i = 0; i < c.taskStart.length; i++) {
      assert.ok(
        c.taskReady[i]! <= c.taskPopped[i]! && c.taskPopped[i]! <= c.taskStart[i]!,
        `task ${i}: ready <= taken <= start`,
      );
      assert.match(c.taskData[i]!, /^\S+:(R|W|RW)( \S+:(R|W|RW))*$/);
    }
    assert.ok(Math.abs(run.facts.t1 - report.endS) < 1e-9);
  });

  test('copies on one link and lane never overlap', () => {
    const c = run.columns;
    for (let i = 1; i < c.trStart.length; i++) {
      if (c.trLink[i] === c.trLink[i - 1] && c.trLane[i] === c.trLane[i - 1])
        assert.ok(c.trEnd[i - 1]! <= c.trStart[i]! + 1e-12);
    }
    const bytes = new Map<string, number>();
    for (let i = 0; i < c.trStart.length; i++) {
      const l = run.facts.links[c.trLink[i]!]!;
      bytes.set(l.name, (bytes.get(l.name) ?? 0) + c.trBytes[i]!);
    }
    let moved = 0;
    for (const b of bytes.values()) moved += b;
    assert.equal(
      moved,
      report.bytesToDevices + report.bytesFromDevices + report.bytesDeviceToDevice + report.discardedBytes,
    );
  });

  test('the ready curve counts tasks from ready to start', () => {
    const ready = Float64Array.from([0, 0, 1, Number.NaN]);
    const start = Float64Array.from([2, 0, 3, 5]);
    const r = readyCurve(ready, start);
    assert.deepEqual([...r.readyTime], [0, 1, 2, 3]);
    assert.deepEqual([...r.readyCount], [1, 2, 1, 0]);
  });

  test('the payload decodes, as the page decodes it, to the same columns', async () => {
    const payload = JSON.parse(JSON.stringify(encodePayload([run], 't'))) as ReportPayload;
    const [back] = await decodePayload(payload);
    for (const [key, value] of Object.entries(run.columns)) {
      const got = (back!.columns as unknown as Record<string, ArrayLike<number> | string[]>)[key]!;
      assert.equal(got.length, value.length, key);
      for (let i = 0; i < value.length; i++) {
        const a = (value as ArrayLike<number | string>)[i]!;
        const b = got[i]!;
        if (typeof a === 'number' && key !== 'trBytes' && !Number.isInteger(a)) {
          // Times travel in whole nanoseconds.
          assert.ok(
            Math.abs(a - (b as number)) <= 5e-10 || (Number.isNaN(a) && Number.isNaN(b)),
            `${key}[${i}]`,
          );
        } else assert.equal(b, a, `${key}[${i}]`);
      }
    }
  });

  test('times that differ by more than 2 s travel as doubles', () => {
    assert.equal(timeDeltas(Float64Array.from([0, 1, 2]))[0], 'dt32');
    assert.equal(timeDeltas(Float64Array.from([0, 3]))[0], 'dt64');
  });
});

describe('locus report and locus run --html', () => {
  test('locus run --html writes one self-contained page', () => {
    const html = join(dir, 'run.html');
    const r = locus('run', '-w', 'cholesky', '-n', '6', '--sched', 'darts+luf', '--html', html);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /report written to .*run\.html/);
    const page = readFileSync(html, 'utf8');
    assert.match(page, /<script type="application\/json" id="locus-data">/);
    assert.doesNotMatch(
      page,
      /<script[^>]+src=|<link[^>]+href=|https?:\/\//,
      'nothing loaded from elsewhere',
    );
  });

  test('locus report reads traces, one page or two side by side', () => {
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    assert.equal(locus('run', '-w', 'matmul2d', '-n', '6', '--sched', 'eager', '--trace', a).code, 0);
    assert.equal(locus('run', '-w', 'matmul2d', '-n', '6', '--sched', 'dmdar', '--trace', b).code, 0);
    const one = locus('report', a);
    assert.equal(one.code, 0, one.err);
    assert.ok(existsSync(join(dir, 'a.html')));
    const out = join(dir, 'ab.html');
    const two = locus('report', a, b, '-o', out);
    assert.equal(two.code, 0, two.err);
    assert.match(two.out, /2 runs/);
    const payload = JSON.parse(
      /id="locus-data">(.*)<\/script>/.exec(readFileSync(out, 'utf8'))![1]!,
    ) as ReportPayload;
    assert.deepEqual(
      payload.runs.map((r) => r.facts.label),
      ['eager+lru', 'dmdar+lru'],
    );
    assert.ok(statSync(out).size < 1e6);
  });

  test('locus sweep writes an index.html beside its files', () => {
    const out = join(dir, 'sweep');
    const r = locus(
      'sweep',
      '-w',
      'matmul2d',
      '--sizes',
      '4,6',
      '--sched',
      'eager,dmdar',
      '--no-plots',
      '--out',
      out,
    );
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /wrote .*index\.html/);
    const page = readFileSync(join(out, 'index.html'), 'utf8');
    assert.match(
      page,
      /<h2>throughput \(GFlop\/s\)<\/h2><table><thead><tr><th>N<\/th><th>working set<\/th><th>eager<\/th><th>dmdar<\/th>/,
    );
    for (const f of ['runs.csv', 'summary.csv', 'settings.json']) {
      assert.match(page, new RegExp(`<a href="${f}">`));
      assert.ok(existsSync(join(out, f)));
    }
  });

  test('bad input: one line, exit code 2', () => {
    const notTrace = join(dir, 'not-trace.json');
    writeFileSync(notTrace, '{"a": 1}');
    const notJson = join(dir, 'not-json.json');
    writeFileSync(notJson, 'hello');
    for (const [args, message] of [
      [['report', join(dir, 'missing.json')], /^locus: cannot read .*missing\.json: no such file\n$/],
      [['report', notTrace], /^locus: .*not-trace\.json is not a Chrome trace \(no traceEvents\)/],
      [['report', notJson], /^locus: .*not-json\.json is not JSON/],
      [
        ['run', '-w', 'cholesky', '-n', '4', '--html', join(dir, 'x.html'), '--trace', join(dir, 'x.html')],
        /^locus: --html and --trace both name/,
      ],
      [
        [
          'run',
          '--cluster',
          'sim',
          '--platform',
          'ac-cluster',
          '-w',
          'lu',
          '-n',
          '4',
          '--html',
          join(dir, 'c.html'),
        ],
        /^locus: --html applies to --mode simulated and --mode real only/,
      ],
    ] as const) {
      const r = locus(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, message);
      assert.equal(r.err.split('\n').length, 2, r.err);
    }
  });
});
