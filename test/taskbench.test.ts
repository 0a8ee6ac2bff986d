/**
 * Task Bench's dependence patterns (src/workloads/taskbench/): for every pattern, on a 4 x 4 and
 * a 7 x 5 graph (steps x width), the points each point reads equal those of Task Bench's own
 * core library (test/fixtures/taskbench/deps.txt, written by scripts/taskbench-deps.sh from
 * StanfordLegion/task-bench's core/core.cc); its SipHash-2-4 matches the reference vectors; the
 * shapes Task Bench refuses are refused in one line.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { LocusError } from '../src/core/types.ts';
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
});
