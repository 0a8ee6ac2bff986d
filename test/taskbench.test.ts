/**
 * Task Bench's dependence patterns (src/workloads/taskbench/): for every pattern, on a 4 x 4 and
 * a 7 x 5 graph (steps x width), the points each point reads equal those of Task Bench's own
 * core library (test/fixtures/taskbench/deps.txt, written by scripts/taskbench-deps.sh from
 * StanfordLegion/task-bench's core/core.cc); its SipHash-2-4 matches the reference vectors; the
 * shapes Task Bench refuses are refused in one line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LocusError } from '../src/core/types.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import {
  checkShape,
  offsetAt,
  pointDependencies,
  TASKBENCH_PATTERNS,
  type TaskBenchPattern,
  type TaskBenchShape,
  widthAt,
} from '../src/workloads/taskbench/pattern.ts';
import { siphash24 } from '../src/workloads/taskbench/siphash.ts';

/** The fixture's cases: per pattern and shape, 't x' -> the points read, as a sorted set. */
function fixture(): {
  pattern: TaskBenchPattern;
  steps: number;
  width: number;
  period: number;
  deps: Map<string, number[]>;
}[] {
  const text = readFileSync(new URL('./fixtures/taskbench/deps.txt', import.meta.url), 'utf8');
  const cases: ReturnType<typeof fixture> = [];
  for (const line of text.split('\n')) {
    const head = /^## (\S+) steps=(\d+) width=(\d+)(?: -period (\d+))?/.exec(line);
    if (head) {
      cases.push({
        pattern: head[1] as TaskBenchPattern,
        steps: Number(head[2]),
        width: Number(head[3]),
        period: head[4] ? Number(head[4]) : head[1] === 'random_nearest' || head[1] === 'spread' ? 3 : 0,
        deps: new Map(),
      });
      continue;
    }
    const point = /^(\d+) (\d+):(.*)$/.exec(line);
    if (point) {
      const ys = [
        ...new Set(
          point[3]!
            .trim()
            .split(/\s+/)
            .filter((w) => w !== '')
            .map(Number),
        ),
      ].sort((a, b) => a - b);
      cases.at(-1)!.deps.set(`${point[1]} ${point[2]}`, ys);
    }
  }
  return cases;
}

describe("Task Bench's patterns", () => {
  test('SipHash-2-4 gives the reference outputs', () => {
    const key = Uint8Array.from({ length: 16 }, (_, i) => i);
    assert.equal(
      siphash24(
        Uint8Array.from({ length: 15 }, (_, i) => i),
        key,
      ),
      0xa129ca6149be45e5n,
    );
    assert.equal(siphash24(new Uint8Array(0), key), 0x726fdb47dd0e0e31n);
  });

  test("every pattern's dependencies equal Task Bench's on 4 x 4 and 7 x 5 graphs", () => {
    const cases = fixture();
    assert.deepEqual([...new Set(cases.map((c) => c.pattern))], [...TASKBENCH_PATTERNS]);
    assert.equal(cases.length, 2 * TASKBENCH_PATTERNS.length);
    for (const c of cases) {
      const shape: TaskBenchShape = { ...c, radix: 3, fraction: 0.25, graphIndex: 0 };
      checkShape(shape);
      const mine = new Map<string, number[]>();
      for (let t = 0; t < c.steps; t++)
        for (let x = offsetAt(shape, t); x < offsetAt(shape, t) + widthAt(shape, t); x++)
          mine.set(`${t} ${x}`, pointDependencies(shape, t, x));
      assert.deepEqual(mine, c.deps, `${c.pattern} ${c.steps} x ${c.width}`);
    }
  });

  test('shapes Task Bench refuses are one line', () => {
    const base: TaskBenchShape = {
      pattern: 'spread',
      steps: 4,
      width: 4,
      radix: 3,
      period: 3,
      fraction: 0.25,
      graphIndex: 0,
    };
    assert.throws(
      () => checkShape(base),
      (e: unknown) =>
        e instanceof LocusError && /at most ceil\(width \/ radix\) = 2 \(got 3\)/.test(e.message),
    );
    assert.throws(
      () => checkShape({ ...base, pattern: 'stencil_1d' }),
      (e: unknown) => e instanceof LocusError && /takes no period/.test(e.message),
    );
    assert.throws(
      () => checkShape({ ...base, pattern: 'random_nearest', period: 0 }),
      (e: unknown) => e instanceof LocusError && /needs a period/.test(e.message),
    );
  });

  test("the taskbench workload's inferred dependencies are Task Bench's, for every pattern", () => {
    for (const c of fixture()) {
      const w = generateWorkload('taskbench', {
        pattern: c.pattern,
        steps: c.steps,
        width: c.width,
        ...(c.pattern === 'spread' ? { period: c.period } : {}),
      });
      const g = w.graph;
      const id = new Map<string, string>();
      for (let t = 0; t < g.taskCount; t++)
        id.set(String(t), /^TB\((\d+),(\d+)\)$/.exec(g.taskNames[t]!)!.slice(1).join(' '));
      const deps = new Map<string, number[]>();
      for (let t = 0; t < g.taskCount; t++)
        deps.set(
          id.get(String(t))!,
          g
            .predecessors(t)
            .map((p) => Number(id.get(String(p))!.split(' ')[1]))
            .sort((a, b) => a - b),
        );
      assert.deepEqual(deps, c.deps, `${c.pattern} ${c.steps} x ${c.width}`);
    }
  });

  test("kernels' flops are Task Bench's; options other workloads read are refused", () => {
    const w = generateWorkload('taskbench', {
      pattern: 'stencil_1d',
      width: 4,
      steps: 3,
      kernel: 'compute_bound',
      iterations: 1000,
    });
    assert.equal(w.graph.taskCount, 12);
    assert.equal(w.totalFlops, 12 * (2 * 64 * 1000 + 64));
    const imb = generateWorkload('taskbench', {
      width: 8,
      steps: 8,
      kernel: 'load_imbalance',
      iterations: 1000,
      imbalance: 1,
    });
    const f = Array.from({ length: 64 }, (_, t) => imb.graph.taskFlops.data[t]!);
    assert.ok(
      Math.min(...f) < 2 * 64 * 900 && Math.max(...f) > 2 * 64 * 1100,
      'iterations spread over +-50%',
    );
    assert.ok(f.every((x) => (x - 64) % 128 === 0));
    const root = fileURLToPath(new URL('..', import.meta.url));
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['bin/locus.mjs', 'run', ...args], { cwd: root, encoding: 'utf8' });
    const ok = run(
      '-w',
      'taskbench',
      '--pattern',
      'fft',
      '--width',
      '8',
      '--steps',
      '4',
      '--kernel',
      'compute_bound',
      '--iterations',
      '100',
      '--json',
    );
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal((JSON.parse(ok.stdout) as { tasks: number }).tasks, 32);
    for (const [args, message] of [
      [['-w', 'taskbench', '--tiles', '3'], /--tiles does not apply to taskbench/],
      [['-w', 'cholesky', '--pattern', 'fft'], /--pattern does not apply to cholesky/],
      [['-w', 'taskbench', '--pattern', 'star'], /pattern must be one of trivial, /],
      [
        ['-w', 'taskbench', '--pattern', 'spread', '--width', '4', '--period', '3'],
        /at most ceil\(width \/ radix\) = 2/,
      ],
    ] as const) {
      const r = run(...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, message);
    }
  });
});
