import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Highs } from 'highs';
import * as highsModule from 'highs';
import { solve } from 'yalps';
import { LocusError } from '../src/core/types.ts';
import { BENCHMARKS, benchmarkSequence } from '../src/partition/benchmarks.ts';
import { DEFAULT_CODELET_EFFICIENCY } from '../src/partition/devices.ts';
import {
  adaptiveCommStrategy,
  adaptiveStrategy,
  buildSystem,
  CoefficientSamples,
  fastestOf,
  fitLine,
  type LinearProgram,
  NEGLIGIBLE_PAIR,
  type PairCoefficients,
  SOLVE_REPEATS,
  type SolveInfo,
  solveProgram,
  TimePerGroup,
  TransferCoefficients,
  toLpFormat,
  transferVolume,
} from '../src/partition/lp/index.ts';
import { toYalps } from '../src/partition/lp/program.ts';
import type {
  IterationObservation,
  PartitionStrategy,
  SequenceShape,
  TransferObservation,
} from '../src/partition/strategy.ts';
import { describePlatform, resolvePlatform } from '../src/platform/index.ts';
import { SBAC18_KERNELS, sbac18CodeletRates } from '../src/platform/sbac18.ts';

/** A shape of m kernels on n devices with the given dependencies and seconds per byte. */
function shapeOf(
  m: number,
  n: number,
  dependencies: { producer: number; consumer: number }[] = [],
  secondsPerByte = 1e-9,
): SequenceShape {
  return {
    kernels: m,
    devices: n,
    kernelNames: Array.from({ length: m }, (_, k) => `k${k}`),
    deviceNames: Array.from({ length: n }, (_, d) => `d${d}`),
    dependencies,
    hostToDeviceSecondsPerByte: new Array(n).fill(secondsPerByte),
    deviceToHostSecondsPerByte: new Array(n).fill(secondsPerByte),
  };
}

/**
 * A synthetic runner: sub-kernel k on device d takes f[k][d] * ng * x seconds, and every
 * dependent pair moves `bytesPerUnit * S_d` bytes each way (the seed's model, exactly).
 */
function observe(
  shape: SequenceShape,
  iteration: number,
  ratios: number[][],
  f: number[][],
  ng: number,
  bytesPerUnit: number,
): IterationObservation {
  const transfers: TransferObservation[] = [];
  for (const { producer, consumer } of shape.dependencies) {
    for (let d = 0; d < shape.devices; d++) {
      for (const direction of ['h2d', 'd2h'] as const) {
        const bytes = bytesPerUnit * transferVolume(direction, d, ratios[producer]!, ratios[consumer]!);
        if (bytes > 0) transfers.push({ producer, consumer, device: d, direction, bytes });
      }
    }
  }
  return {
    iteration,
    ratios,
    workGroups: ratios.map(() => ng),
    seconds: ratios.map((row, k) => row.map((x, d) => f[k]![d]! * ng * x)),
    transfers,
  };
}

/** Runs `iterations` iterations of `strategy` against the synthetic runner; returns the last ratios. */
function run(
  strategy: PartitionStrategy,
  shape: SequenceShape,
  f: number[][],
  ng: number,
  bytesPerUnit: number,
  iterations: number,
): number[][] {
  let ratios = strategy.initial(shape);
  for (let i = 0; i < iterations; i++) {
    ratios = strategy.next(shape, observe(shape, i, ratios, f, ng, bytesPerUnit)).ratios;
  }
  return ratios;
}

const close = (a: number, b: number, tol = 1e-9) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));

describe('solve timing', () => {
  test('fastestOf calls the decision exactly `repeats` times and keeps the first answer', () => {
    let calls = 0;
    const r = fastestOf(() => ++calls, 3);
    assert.equal(calls, 3);
    assert.equal(r.value, 1);
    assert.ok(r.seconds >= 0 && Number.isFinite(r.seconds));
    assert.equal(fastestOf(() => 'x', 0).value, 'x');
  });

  test('a decision solves its LP SOLVE_REPEATS times and answers the same ratios as one solve', () => {
    const shape = shapeOf(1, 2);
    const solves: SolveInfo[] = [];
    const s = adaptiveStrategy({ onSolve: (i) => solves.push(i) });
    s.initial(shape);
    const obs = {
      iteration: 0,
      ratios: [[0.5, 0.5]],
      workGroups: [100],
      seconds: [[0.1, 0.3]],
      transfers: [],
    };
    const d = s.next(shape, obs);
    assert.equal(SOLVE_REPEATS, 3);
    assert.equal(solves.length, 1, 'reported once per decision');
    assert.deepEqual(d.ratios, adaptiveStrategy().next(shape, obs).ratios);
  });
});

describe('adaptive (seed 003 IV.A)', () => {
  test('two devices, one kernel: ratios inversely proportional to the time per work-group', () => {
    const shape = shapeOf(1, 2);
    const s = adaptiveStrategy();
    assert.deepEqual(s.initial(shape), [[0.5, 0.5]]);
    // f = 2 ms and 6 ms per work-group, 100 work-groups, half each.
    const d = s.next(shape, {
      iteration: 0,
      ratios: [[0.5, 0.5]],
      workGroups: [100],
      seconds: [[0.1, 0.3]],
      transfers: [],
    });
    assert.ok(close(d.ratios[0]![0]!, 0.75) && close(d.ratios[0]![1]!, 0.25), String(d.ratios));
    assert.ok(d.solveSeconds >= 0);
  });

  test('n devices, m kernels: y_d^k = (1/f_d^k) / sum_e (1/f_e^k) (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 2, max: 4 }),
        fc.array(fc.double({ min: 1e-6, max: 1e-2, noNaN: true }), { minLength: 16, maxLength: 16 }),
        fc.integer({ min: 1, max: 1e6 }),
        (m, n, fs, ng) => {
          const f = Array.from({ length: m }, (_, k) => fs.slice(k * n, k * n + n));
          const shape = shapeOf(m, n);
          const s = adaptiveStrategy();
          const used = s.initial(shape);
          const got = s.next(shape, observe(shape, 0, used, f, ng, 0)).ratios;
          f.forEach((row, k) => {
            const inv = row.map((v) => 1 / v);
            const sum = inv.reduce((a, b) => a + b, 0);
            row.forEach((_, d) => {
              assert.ok(close(got[k]![d]!, inv[d]! / sum, 1e-6), `${got[k]} vs ${inv}`);
            });
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a device that did not run a kernel keeps its last measured time; never measured: the fastest one', () => {
    const t = new TimePerGroup(1, 2);
    t.update({ iteration: 0, ratios: [[1, 0]], workGroups: [10], seconds: [[0.02, 0]], transfers: [] });
    assert.deepEqual(t.current(), [[0.002, 0.002]]);
    t.update({
      iteration: 1,
      ratios: [[0.5, 0.5]],
      workGroups: [10],
      seconds: [[0.01, 0.05]],
      transfers: [],
    });
    assert.deepEqual(t.current(), [[0.002, 0.01]]);
    t.update({ iteration: 2, ratios: [[1, 0]], workGroups: [10], seconds: [[0.04, 0]], transfers: [] });
    assert.deepEqual(t.current(), [[0.004, 0.01]]);
  });

  test('an observation of the wrong shape is a LocusError naming the table', () => {
    const shape = shapeOf(2, 2);
    const s = adaptiveStrategy();
    s.initial(shape);
    assert.throws(
      () =>
        s.next(shape, { iteration: 0, ratios: [[0.5, 0.5]], workGroups: [1, 1], seconds: [], transfers: [] }),
      (e: unknown) =>
        e instanceof LocusError && e.code === 'LOCUS_DATA_INVALID' && /ratios has 1 rows/.test(e.message),
    );
    assert.throws(
      () =>
        s.next(shape, {
          iteration: 0,
          ratios: [
            [0.5, 0.5],
            [0.5, 0.5],
          ],
          workGroups: [1, 1],
          seconds: [
            [1, Number.NaN],
            [1, 1],
          ],
          transfers: [],
        }),
      (e: unknown) => e instanceof LocusError && /seconds\[0\]\[1\] is NaN/.test(e.message),
    );
  });
});

describe('transfer coefficients (regression)', () => {
  test('fitLine recovers slope and intercept of exact and of symmetric-noise samples', () => {
    const xs = [0, 0.1, 0.25, 0.4, 0.7];
    const exact = fitLine(
      xs,
      xs.map((x) => 3 + 7 * x),
    );
    assert.ok(close(exact.slope, 7) && close(exact.intercept, 3));
    // Noise +e, -e on pairs of equal x: the least-squares line is unchanged.
    const nx = [0.1, 0.1, 0.5, 0.5, 0.9, 0.9];
    const noisy = fitLine(
      nx,
      nx.map((x, i) => 2 + 40 * x + (i % 2 ? 0.3 : -0.3)),
    );
    assert.ok(close(noisy.slope, 40) && close(noisy.intercept, 2));
    assert.deepEqual(fitLine([0.5], [10]), { slope: 20, intercept: 0, samples: 1 });
    assert.deepEqual(fitLine([0, 0], [5, 5]), { slope: 0, intercept: 0, samples: 2 });
  });

  test('CoefficientSamples: a repeated abscissa replaces the earlier point; a negative slope is 0', () => {
    const s = new CoefficientSamples();
    s.add(0, 100);
    s.add(0.5, 600);
    s.add(0.5, 350); // replaces (0.5, 600)
    assert.equal(s.size, 2);
    assert.ok(close(s.coefficient(), 500));
    const neg = new CoefficientSamples();
    neg.add(0, 10);
    neg.add(1, 5);
    assert.equal(neg.coefficient(), 0);
  });

  test('TransferCoefficients recovers a_d^{h,k} per pair, device and direction from instantiated volumes', () => {
    const m = 3;
    const n = 3;
    const deps = [
      { producer: 0, consumer: 1 },
      { producer: 1, consumer: 2 },
      { producer: 2, consumer: 0 },
    ];
    const shape = shapeOf(m, n, deps);
    // a[pair][dir][d] and a constant halo of 64 bytes per pair, device and direction.
    const a = deps.map((_, p) => ({
      h2d: [1000 * (p + 1), 2000 * (p + 1), 3000 * (p + 1)],
      d2h: [500 * (p + 1), 700 * (p + 1), 900 * (p + 1)],
    }));
    const t = new TransferCoefficients(shape);
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let it = 0; it < 6; it++) {
      const ratios = Array.from({ length: m }, () => {
        const r = Array.from({ length: n }, () => 0.1 + rand());
        const s = r.reduce((x, y) => x + y, 0);
        return r.map((x) => x / s);
      });
      const transfers: TransferObservation[] = [];
      deps.forEach((dep, p) => {
        for (let d = 0; d < n; d++) {
          for (const direction of ['h2d', 'd2h'] as const) {
            const S = transferVolume(direction, d, ratios[dep.producer]!, ratios[dep.consumer]!);
            transfers.push({ ...dep, device: d, direction, bytes: 64 + a[p]![direction][d]! * S });
          }
        }
      });
      t.update({ iteration: it, ratios, workGroups: [1, 1, 1], seconds: ratios, transfers });
    }
    const fitted = t.bytesPerUnit();
    assert.equal(fitted.length, 3);
    fitted.forEach((f, p) => {
      assert.deepEqual([f.producer, f.consumer], [deps[p]!.producer, deps[p]!.consumer]);
      for (const dir of ['h2d', 'd2h'] as const) {
        f[dir].forEach((v, d) => {
          assert.ok(close(v, a[p]![dir][d]!, 1e-6), `${dir} ${p} ${d}: ${v}`);
        });
      }
    });
  });

  test("transferVolume is the seed's S_d: the part of a device's reads (writes) the other kernel did not write (read) there", () => {
    // h: [0, .5) [.5, 1); k: [0, .3) [.3, 1). Device 1 reads [.3, 1), wrote [.5, 1): misses .2.
    const h = [0.5, 0.5];
    const k = [0.3, 0.7];
    assert.ok(close(transferVolume('h2d', 0, h, k), 0));
    assert.ok(close(transferVolume('h2d', 1, h, k), 0.2));
    assert.ok(close(transferVolume('d2h', 0, h, k), 0.2));
    assert.ok(close(transferVolume('d2h', 1, h, k), 0));
    // Three devices, both sides of the middle one.
    const h3 = [0.2, 0.3, 0.5];
    const k3 = [0.3, 0.4, 0.3];
    assert.ok(close(transferVolume('h2d', 1, h3, k3), 0.2)); // reads [.3,.7), wrote [.2,.5): misses [.5,.7)
    assert.ok(close(transferVolume('d2h', 1, h3, k3), 0.1)); // wrote [.2,.5), read [.3,.7): [.2,.3) leaves
  });
});

describe('adaptive-comm (seed 003 IV.B)', () => {
  test('with no transfers at all it decides exactly as adaptive', () => {
    const deps = [
      { producer: 0, consumer: 1 },
      { producer: 1, consumer: 2 },
      { producer: 2, consumer: 0 },
    ];
    const shape = shapeOf(3, 3, deps);
    const f = [
      [1e-3, 2e-3, 4e-3],
      [3e-3, 1e-3, 2e-3],
      [2e-3, 2e-3, 1e-3],
    ];
    const infos: SolveInfo[] = [];
    const a = run(adaptiveStrategy(), shape, f, 1000, 0, 4);
    const c = run(adaptiveCommStrategy({ onSolve: (i) => infos.push(i) }), shape, f, 1000, 0, 4);
    a.forEach((row, k) => {
      row.forEach((v, d) => {
        assert.ok(close(c[k]![d]!, v), `${c} vs ${a}`);
      });
    });
    assert.deepEqual(
      infos.map((i) => i.transferRows),
      [0, 0, 0, 0],
    );
  });

  test('costly transfers keep consecutive kernels aligned where adaptive splits them apart', () => {
    // Kernel 0 is 3x faster on device 0, kernel 1 3x faster on device 1; each reads the other's output.
    const deps = [
      { producer: 0, consumer: 1 },
      { producer: 1, consumer: 0 },
    ];
    const shape = shapeOf(2, 2, deps, 1e-9);
    const f = [
      [1e-3, 3e-3],
      [3e-3, 1e-3],
    ];
    const ng = 1000;
    const bytesPerUnit = 1e9; // 1 s per unit of S_d each way at 1 ns per byte
    const adaptive = run(adaptiveStrategy(), shape, f, ng, bytesPerUnit, 5);
    assert.ok(close(adaptive[0]![0]!, 0.75) && close(adaptive[1]![0]!, 0.25), String(adaptive));
    const comm = run(adaptiveCommStrategy(), shape, f, ng, bytesPerUnit, 5);
    assert.ok(close(comm[0]![0]!, comm[1]![0]!, 1e-7), `not aligned: ${comm}`);
    // The modelled iteration time (compute + both directions' transfers) is lower aligned.
    const cost = (r: number[][]) => {
      let t = 0;
      for (let k = 0; k < 2; k++) t += Math.max(...r[k]!.map((x, d) => f[k]![d]! * ng * x));
      for (const { producer, consumer } of deps) {
        for (const dir of ['h2d', 'd2h'] as const) {
          t += Math.max(
            ...[0, 1].map((d) => bytesPerUnit * 1e-9 * transferVolume(dir, d, r[producer]!, r[consumer]!)),
          );
        }
      }
      return t;
    };
    assert.ok(cost(comm) < cost(adaptive), `${cost(comm)} >= ${cost(adaptive)}`);
  });

  test("the LP's size: all m(m-1) pairs on n devices give 2mn + m(m-1)(n-1) transfer rows, within 2(m + mn + m^2 n)", () => {
    for (const [m, n] of [
      [1, 4],
      [2, 2],
      [5, 4],
      [10, 4],
      [3, 7],
    ] as const) {
      const pairs: PairCoefficients[] = [];
      for (let h = 0; h < m; h++) {
        for (let k = 0; k < m; k++) {
          if (h !== k)
            pairs.push({ producer: h, consumer: k, h2d: new Array(n).fill(1), d2h: new Array(n).fill(1) });
        }
      }
      const f = Array.from({ length: m }, () => new Array(n).fill(1e-3));
      const sys = buildSystem({ f, workGroups: new Array(m).fill(10), pairs });
      const expected = m > 1 ? 2 * m * n + m * (m - 1) * (n - 1) : 0;
      assert.equal(sys.transferRows, expected, `m=${m} n=${n}`);
      assert.equal(sys.program.rows.length, m * n + m + expected);
      assert.ok(sys.transferRows <= 2 * (m + m * n + m * m * n));
    }
  });

  test('a pair whose full misalignment costs less than NEGLIGIBLE_PAIR of the longest sub-kernel is left out', () => {
    // f * ng = 1e-3 * 10 = 0.01 s for every sub-kernel: the threshold is 1e-6 s per unit of S_d.
    const f = [new Array(4).fill(1e-3), new Array(4).fill(1e-3)];
    const at = (c: number): PairCoefficients[] => [
      { producer: 0, consumer: 1, h2d: [0, c, 0, 0], d2h: [0, 0, 0, 0] },
    ];
    const below = buildSystem({ f, workGroups: [10, 10], pairs: at(0.99e-6) });
    const above = buildSystem({ f, workGroups: [10, 10], pairs: at(1.01e-6) });
    assert.equal(NEGLIGIBLE_PAIR, 1e-4);
    assert.equal(below.transferRows, 0);
    // 3 boundary rows and one h2d row (device 1 only has a coefficient).
    assert.equal(above.transferRows, 4);
  });
});

describe('yalps against HiGHS', () => {
  test('random systems of the seed 003 shape: the same optimum, equal to the seed objective at the solution', async () => {
    // highs ships CommonJS types for an ES module build: the loader is the module's default export.
    const load = (highsModule as unknown as { default: () => Promise<Highs> }).default;
    const highs = await load();
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 2, max: 4 }),
        fc.array(fc.double({ min: 1e-5, max: 1e-2, noNaN: true }), { minLength: 20, maxLength: 20 }),
        fc.array(fc.tuple(fc.nat(4), fc.nat(4), fc.double({ min: 0, max: 2, noNaN: true })), {
          maxLength: 12,
        }),
        (m, n, fs, rawPairs) => {
          const f = Array.from({ length: m }, (_, k) => fs.slice(k * n, k * n + n));
          const ng = Array.from({ length: m }, (_, k) => 100 * (k + 1));
          const seen = new Set<string>();
          const pairs: PairCoefficients[] = [];
          rawPairs.forEach(([h, k, c], i) => {
            const key = `${h % m},${k % m}`;
            if (h % m === k % m || seen.has(key)) return;
            seen.add(key);
            pairs.push({
              producer: h % m,
              consumer: k % m,
              h2d: Array.from({ length: n }, (_, d) => c * (1 + ((i + d) % 3))),
              d2h: Array.from({ length: n }, (_, d) => c * (1 + ((i + 2 * d) % 2))),
            });
          });
          const sys = buildSystem({ f, workGroups: ng, pairs });
          const mine = solveProgram(sys.program);
          const oracle = highs.solve(toLpFormat(sys.program));
          assert.equal(oracle.Status, 'Optimal');
          assert.ok(
            close(mine.objective, oracle.ObjectiveValue, 1e-6),
            `${mine.objective} vs ${oracle.ObjectiveValue}`,
          );
          // The pairs the system kept: those whose complete misalignment costs at least
          // NEGLIGIBLE_PAIR of the longest sub-kernel on some device and direction.
          const kept = pairs.filter((q) =>
            [...q.h2d, ...q.d2h].some((c) => c / sys.scale >= NEGLIGIBLE_PAIR),
          );
          // The seed's objective evaluated at yalps's ratios (max over devices, S_d with its max terms).
          const y = sys.y.map((row) => row.map((v) => mine.values[v]!));
          let seed = 0;
          for (let k = 0; k < m; k++) {
            seed += Math.max(...y[k]!.map((v, d) => f[k]![d]! * ng[k]! * v));
            for (const dir of ['h2d', 'd2h'] as const) {
              let worst = 0;
              for (let d = 0; d < n; d++) {
                let t = 0;
                for (const q of kept) {
                  if (q.consumer === k) t += q[dir][d]! * transferVolume(dir, d, y[q.producer]!, y[k]!);
                }
                worst = Math.max(worst, t);
              }
              seed += worst;
            }
          }
          assert.ok(
            close(seed / sys.scale, mine.objective, 1e-6),
            `${seed / sys.scale} vs ${mine.objective}`,
          );
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('a program yalps cycles on', () => {
  test("the N-body program that made yalps's simplex cycle is solved by the HiGHS fallback, at HiGHS's optimum", async () => {
    // Seed 003's N-body LP at 32,000 particles (an iteration of adaptive-comm on sbac18): 86
    // variables, 104 rows, degenerate; yalps's Dantzig pivots cycle on it.
    const p = JSON.parse(
      readFileSync(new URL('./fixtures/partition/cycling-lp.json', import.meta.url), 'utf8'),
    ) as LinearProgram;
    assert.equal(
      solve(toYalps(p), { includeZeroVariables: true, maxPivots: 100_000, checkCycles: true }).status,
      'cycled',
    );
    const mine = solveProgram(p);
    const load = (highsModule as unknown as { default: () => Promise<Highs> }).default;
    const oracle = (await load()).solve(toLpFormat(p));
    assert.equal(oracle.Status, 'Optimal');
    assert.ok(
      close(mine.objective, oracle.ObjectiveValue, 1e-9),
      `${mine.objective} vs ${oracle.ObjectiveValue}`,
    );
    // Feasible: every row holds within a small tolerance.
    for (const row of p.rows) {
      let lhs = 0;
      row.variables.forEach((v, i) => {
        lhs += row.coefficients[i]! * mine.values[v]!;
      });
      const slack = 1e-9 * Math.max(1, Math.abs(row.rhs));
      if (row.sense === 'eq')
        assert.ok(Math.abs(lhs - row.rhs) <= slack, `${row.name}: ${lhs} != ${row.rhs}`);
      else assert.ok(lhs <= row.rhs + slack, `${row.name}: ${lhs} > ${row.rhs}`);
    }
  });
});

describe('the sbac18 preset (seed 003 machine)', () => {
  test('one CPU device and 3 M2075 with 6 GiB, every seed codelet rated on both kinds, bytes / bandwidth', () => {
    const p = resolvePlatform('sbac18');
    assert.deepEqual(
      p.workers.map((w) => [w.name, w.kind]),
      [
        ['gpu0', 'gpu'],
        ['gpu1', 'gpu'],
        ['gpu2', 'gpu'],
        ['cpu0', 'cpu'],
      ],
    );
    assert.deepEqual(
      p.nodes.map((x) => [x.name, x.capacity]),
      [
        ['ram', 64 * 2 ** 30],
        ['gpu0', 6 * 2 ** 30],
        ['gpu1', 6 * 2 ** 30],
        ['gpu2', 6 * 2 ** 30],
      ],
    );
    const names = Object.keys(SBAC18_KERNELS).sort();
    assert.deepEqual(names, [
      'fdtd-ex',
      'fdtd-ey',
      'fdtd-hz',
      'jacobi-copy',
      'jacobi-stencil',
      'nbody-bin',
      'nbody-count',
      'nbody-force',
      'nbody-move',
      'nbody-restart',
      'nbody-scan',
      'nbody-scatter',
      'spmv',
    ]);
    for (const w of p.workers) assert.deepEqual(Object.keys(w.codeletFlops).sort(), names, w.name);
    // Jacobi's copy on a GPU: 16 B per point at 70% of 150 GB/s.
    assert.ok(close(p.workers[0]!.codeletFlops['jacobi-copy']!, (0.7 * 150e9) / 16));
    // The force kernel: 20 single-precision flops per pair at half of 1030 GFlop/s.
    assert.ok(close(sbac18CodeletRates('gpu')['nbody-force'], (0.5 * 1030e9) / 20));
    // The CPU device: 16 B per point at 60% of 2 x 51.2 GB/s.
    assert.ok(close(p.workers[3]!.codeletFlops['jacobi-copy']!, (0.6 * 102.4e9) / 16));
    assert.match(describePlatform(p), /^sbac18: 4 memory nodes, 4 workers/);
    assert.equal(resolvePlatform('sbac18', { gpus: 1 }).workers.length, 2);
    assert.throws(() => resolvePlatform('sbac18', { cpus: 2 }), LocusError);
  });

  test('every codelet of every benchmark has an sbac18 rate on each device and a default efficiency', () => {
    const p = resolvePlatform('sbac18');
    const used = new Set<string>();
    for (const b of BENCHMARKS)
      for (const k of benchmarkSequence(b, { size: 64 }).kernels) used.add(k.codelet);
    assert.equal(used.size, 13);
    for (const c of used) {
      for (const w of p.workers) assert.ok((w.codeletFlops[c] ?? 0) > 0, `${w.name} rates ${c}`);
      assert.ok(DEFAULT_CODELET_EFFICIENCY[c], `default efficiency of ${c}`);
    }
    assert.deepEqual([...used].sort(), Object.keys(SBAC18_KERNELS).sort());
  });
});
