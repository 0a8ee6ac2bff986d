import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import { PlatformModel } from '../src/core/model.ts';
import { AccessMode } from '../src/core/types.ts';
import { compilePlatform, parsePlatformFile } from '../src/platform/schema.ts';
import { platformToJson } from '../src/platform/to-json.ts';
import { simulate } from '../src/sim/simulate.ts';

const { R, RW } = AccessMode;

/** One CPU with footprint rules for gemm, and a plain rate for trsm. */
function platformFile(gemm: unknown) {
  return {
    name: 'fp',
    memoryNodes: [{ name: 'ram', kind: 'host', capacity: 'unlimited' }],
    workers: [
      { name: 'cpu', kind: 'cpu', memory: 'ram', rate: '1GFlop/s', codelets: { gemm, trsm: '2GFlop/s' } },
    ],
  };
}

const RULES = [
  { footprint: [1000, 2000, 1000], duration: '3ms' },
  { bytes: 4000, duration: '5ms' },
  { rate: '4GFlop/s' },
];

/** gemm tasks of several footprints, and a trsm. */
function graph() {
  const g = new TaskGraph();
  const gemm = g.addCodelet({ name: 'gemm', kinds: ['cpu'] });
  const trsm = g.addCodelet({ name: 'trsm', kinds: ['cpu'] });
  const a = g.addHandle(1000);
  const b = g.addHandle(2000);
  const c = g.addHandle(1000);
  const d = g.addHandle(2000);
  const tasks = [
    g.submit(
      gemm,
      [
        [a, R],
        [b, R],
        [c, RW],
      ],
      { flops: 1e9 },
    ), // sizes 1000,2000,1000: 3 ms
    g.submit(
      gemm,
      [
        [b, R],
        [a, R],
        [c, RW],
      ],
      { flops: 1e9 },
    ), // same bytes, other order: 5 ms
    g.submit(
      gemm,
      [
        [a, R],
        [d, R],
        [b, RW],
      ],
      { flops: 1e9 },
    ), // 5000 bytes: the rate, 0.25 s
    g.submit(
      trsm,
      [
        [a, R],
        [c, RW],
      ],
      { flops: 1e9 },
    ), // no rules: its rate, 0.5 s
  ];
  return { g, tasks };
}

describe('footprint models in platform files', () => {
  test('the first matching rule gives the exact duration; no match falls back on the rates', () => {
    const platform = compilePlatform(platformFile(RULES), 'fp.json');
    const { g, tasks } = graph();
    const model = new PlatformModel(platform, g);
    assert.deepEqual(
      tasks.map((t) => model.taskDuration(g, t, 0)),
      [0.003, 0.005, 1e9 / 4e9, 1e9 / 2e9],
    );
    // The catch-all rule's rate is also gemm's rate for what reads rates only.
    assert.equal(platform.workers[0]!.codeletFlops.gemm, 4e9);
  });

  test('a simulated run takes exactly the rules durations', () => {
    const platform = compilePlatform(platformFile(RULES), 'fp.json');
    const { g } = graph();
    const { report } = simulate({ graph: g, platform, scheduler: 'eager' });
    // One worker, data on the host: the tasks run back to back.
    assert.equal(report.makespanS, 0.003 + 0.005 + 0.25 + 0.5);
  });

  test('a rule list without a catch-all leaves the worker rate for the others', () => {
    const platform = compilePlatform(
      platformFile([{ footprint: ['1000B', '2000B', '1000B'], duration: '7ms' }]),
      'fp.json',
    );
    const { g, tasks } = graph();
    const model = new PlatformModel(platform, g);
    assert.deepEqual(
      tasks.map((t) => model.taskDuration(g, t, 0)),
      [0.007, 1, 1, 0.5],
    );
  });

  test('rules survive writing the platform back as a file', () => {
    const platform = compilePlatform(platformFile(RULES), 'fp.json');
    const again = parsePlatformFile(platformToJson(platform), 'again.json');
    assert.deepEqual(again.workers, platform.workers);
  });

  test('bad rules are refused in one line naming the field', () => {
    const cases: [unknown, RegExp][] = [
      [
        [{ footprint: [1000] }],
        /fp\.json: workers\[0\]\.codelets\.gemm\[0\]: give exactly one of 'duration' and 'rate'/,
      ],
      [
        [{ bytes: 'x', rate: '1GFlop/s' }],
        /fp\.json: workers\[0\]\.codelets\.gemm\[0\]\.bytes: 'x' is not a size/,
      ],
      [[{ bytes: 10, footprint: [10], rate: '1GFlop/s' }], /give 'footprint' or 'bytes', not both/],
      [[{ duration: '0s' }], /gemm\[0\]\.duration: duration must be positive/],
      [[], /codelets\.gemm: needs at least 1 entry/],
      [[{ rate: '1GFlop/s', when: 1 }], /gemm\[0\]: unknown field 'when'/],
    ];
    for (const [rules, message] of cases) {
      assert.throws(() => compilePlatform(platformFile(rules), 'fp.json'), message);
    }
  });
});
