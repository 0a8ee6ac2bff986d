/**
 * Workloads written once (issue 10): every generator submits to the Submitter interface, and
 * - the simulator's graphs are those of the generators before the change, table for table
 *   (fingerprints computed once from main's generators, commit 282efdb);
 * - the sequential run of each generator (SequentialSubmitter) equals the independent
 *   sequential algorithms of src/kernels/reference.ts (and a plain whole-grid Jacobi sweep);
 * - every workload that runs for real gives residual 0 against it, on CPUs and on emulated
 *   devices small enough to evict.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AccessMode, LocusError } from '../src/core/types.ts';
import { REAL_MAX_BYTES, REAL_WORKLOAD_NAMES, runWorkload } from '../src/exec/run-workload.ts';
import { Runtime } from '../src/exec/runtime.ts';
import { initialArray, RuntimeSubmitter } from '../src/exec/runtime-submitter.ts';
import { SequentialSubmitter } from '../src/exec/sequential-submitter.ts';
import { cloneTiles, diagDominantTiles, randomTile, spdMatrixTiles } from '../src/kernels/generate.ts';
import { tiledCholesky, tiledGemm, tiledLu } from '../src/kernels/reference.ts';
import * as JsTasks from '../src/kernels/tasks-js.ts';
import type { Tile } from '../src/kernels/types.ts';
import { GraphSubmitter } from '../src/workloads/graph-submitter.ts';
import { generateWorkload, WORKLOADS } from '../src/workloads/index.ts';
import { GEMM, TRSM } from '../src/workloads/kernels.ts';
import type { WorkloadParams } from '../src/workloads/types.ts';
import { type GraphFingerprint, graphFingerprint } from './helpers/graph-fingerprint.ts';

// Real runs save their measurements into the performance models: keep them out of ~/.locus.
process.env.LOCUS_PERFMODEL_DIR = mkdtempSync(join(tmpdir(), 'locus-models-'));

/** Graphs of main's generators (before the Submitter), fingerprinted by test/helpers/graph-fingerprint.ts. */
const MAIN_GRAPHS: [string, WorkloadParams, GraphFingerprint][] = [
  [
    'matmul2d',
    {},
    {
      tasks: 400,
      handles: 440,
      edges: 0,
      accesses: 1200,
      bytes: 2064384000,
      flops: 2831155200000,
      sha256: '79cfc24dbaca24ff5303b6e2d358fdc578594b04c0292679d3a7915e57af9f59',
    },
  ],
  [
    'matmul2d',
    { tiles: 7, tileSize: 32, inner: 96, precision: 'double', keepOutputs: true },
    {
      tasks: 49,
      handles: 63,
      edges: 0,
      accesses: 147,
      bytes: 745472,
      flops: 9633792,
      sha256: '404529740db3bcf6de9a5cc0cd4b3b975ad8a55180707c8426c32712167ce053',
    },
  ],
  [
    'gemm',
    {},
    {
      tasks: 512,
      handles: 192,
      edges: 448,
      accesses: 1536,
      bytes: 707788800,
      flops: 905969664000,
      sha256: 'c80085eda6f8bb7d9a3c6dd6713aaff5c94d2ed066698bab90169e4b4d1f7c3c',
    },
  ],
  [
    'gemm',
    { tiles: 5, tileSize: 16, precision: 'double' },
    {
      tasks: 125,
      handles: 75,
      edges: 100,
      accesses: 375,
      bytes: 153600,
      flops: 1024000,
      sha256: '87c524e9da1add93213241cf3ef3b7ad3e1ff862ee9abac48fc5f378c48fc14e',
    },
  ],
  [
    'cholesky',
    { order: 'rows' },
    {
      tasks: 220,
      handles: 55,
      edges: 495,
      accesses: 550,
      bytes: 811008000,
      flops: 2359296000000,
      sha256: '2ccec0fd7a24f9ac515098a754845714e04cd7426ba6f361f0efdf64031e38f0',
    },
  ],
  [
    'cholesky',
    { tiles: 20, order: 'rows' },
    {
      tasks: 1540,
      handles: 210,
      edges: 3990,
      accesses: 4200,
      bytes: 3096576000,
      flops: 18874368000000,
      sha256: '73bb7c49b816b0c4d46e5583cb8e11f3361932b4581286e50e657bdf5c3d2090',
    },
  ],
  [
    'cholesky',
    { tiles: 7, tileSize: 16, precision: 'double' },
    {
      tasks: 84,
      handles: 28,
      edges: 168,
      accesses: 196,
      bytes: 57344,
      flops: 468309.3333333332,
      sha256: '41ce0cc398ac3a6867b678a2b245fcfedf1727b9e1ab4fa5c2c1e28249911f85',
    },
  ],
  [
    'lu',
    {},
    {
      tasks: 385,
      handles: 100,
      edges: 945,
      accesses: 1045,
      bytes: 368640000,
      flops: 589824000000,
      sha256: '644ef42dcaaac0c517a642783b9a00357669a3efb77e65608a4ca22ef837308b',
    },
  ],
  [
    'lu',
    { tiles: 6, tileSize: 16, precision: 'double' },
    {
      tasks: 91,
      handles: 36,
      edges: 195,
      accesses: 231,
      bytes: 73728,
      flops: 589824,
      sha256: '03f66d134b6368ad4af29d538be445bad7e98f610b17b92001655ad3c6c73a20',
    },
  ],
  [
    'lupp',
    {},
    {
      tasks: 385,
      handles: 110,
      edges: 1275,
      accesses: 1550,
      bytes: 838901760,
      flops: 715827882666.6665,
      sha256: '42618fa50a0381873e2c417be29c2696b7153e0c8488299ec920d08aa3873bca',
    },
  ],
  [
    'lupp',
    { tiles: 5, tileSize: 16, precision: 'single' },
    {
      tasks: 55,
      handles: 30,
      edges: 150,
      accesses: 200,
      bytes: 25920,
      flops: 341333.33333333343,
      sha256: '89bd08914576c1c0d8c707d0952b628f852e31264173b868a016db06d6a73eee',
    },
  ],
  [
    'stencil',
    {},
    {
      tasks: 1216,
      handles: 316,
      edges: 4318,
      accesses: 3610,
      bytes: 1139802112,
      flops: 21549154304,
      sha256: 'f394e60c9b3461ab06baf328ead2b1736bfab9482ffff82fd9173abe20c892c5',
    },
  ],
  [
    'stencil',
    { tiles: 5, tileSize: 8, inner: 23, iterations: 4, precision: 'double' },
    {
      tasks: 35,
      handles: 21,
      edges: 90,
      accesses: 91,
      bytes: 19968,
      flops: 48640,
      sha256: 'cd045bc42b6048ef0b76a49f0d58ee84a175662cd62d23c3e15084a4af672bff',
    },
  ],
  [
    'stencil',
    { tiles: 1, tileSize: 8, inner: 4, iterations: 3 },
    {
      tasks: 3,
      handles: 1,
      edges: 2,
      accesses: 3,
      bytes: 1024,
      flops: 6144,
      sha256: '5ec0b429ab8871af700b7f5f472ab99889717ae00c1307c9e9911e25b673d7b0',
    },
  ],
  [
    'jacobi',
    {},
    {
      tasks: 80,
      handles: 48,
      edges: 262,
      accesses: 620,
      bytes: 67108864,
      flops: 167444640,
      sha256: 'cec12a7b61999952abe4f8416d3973b715790ac456caacd21a8803ae83d31888',
    },
  ],
  [
    'jacobi',
    { tiles: 5, tileSize: 2, iterations: 3, precision: 'single' },
    {
      tasks: 15,
      handles: 20,
      edges: 31,
      accesses: 84,
      bytes: 800,
      flops: 768,
      sha256: '535e38c68262eec70447f751cc9930c583d3f24f7e103ecd0f1d7f215c8bca93',
    },
  ],
  [
    'jacobi',
    { tiles: 3, tileSize: 1, iterations: 2 },
    {
      tasks: 6,
      handles: 6,
      edges: 7,
      accesses: 20,
      bytes: 144,
      flops: 8,
      sha256: 'cbe67fb6048ee69805ab9e89a7896f6560ccf102908069414a7fb10e2bc7f271',
    },
  ],
  [
    'random',
    {},
    {
      tasks: 1000,
      handles: 1100,
      edges: 0,
      accesses: 3000,
      bytes: 4055040000,
      flops: 1769472000000,
      sha256: '4a88a74d1a0ae7e081d36959820ee65a81b79ea11467a8962100f7227915ea48',
    },
  ],
  [
    'random',
    { tasks: 300, data: 40, degree: 3, tileSize: 16, seed: 9, precision: 'double' },
    {
      tasks: 300,
      handles: 340,
      edges: 0,
      accesses: 1200,
      bytes: 696320,
      flops: 2457600,
      sha256: 'bef05e1d453d921554322955d558c69331d00bb7a50b65b7c3505f634a6c8577',
    },
  ],
  [
    'taskbench',
    { pattern: 'fft', width: 8, steps: 6, kernel: 'load_imbalance', iterations: 100, imbalance: 0.5 },
    {
      tasks: 48,
      handles: 48,
      edges: 100,
      accesses: 148,
      bytes: 768,
      flops: 629120,
      sha256: '028a97d4ff3772dffa5d8a87eda4d6cf2f7626b6e577eeb04445d5c1a75c5b59',
    },
  ],
  [
    'taskbench',
    { pattern: 'random_nearest', width: 7, steps: 5 },
    {
      tasks: 35,
      handles: 35,
      edges: 39,
      accesses: 74,
      bytes: 560,
      flops: 0,
      sha256: '37f6f386ec859799400bdf5284494bad64c18e0dbf3794645f8ed6541ba1d788',
    },
  ],
];

describe('simulated graphs are unchanged', () => {
  for (const [name, params, expected] of MAIN_GRAPHS) {
    test(`${name} ${JSON.stringify(params)}`, () => {
      assert.deepEqual(graphFingerprint(generateWorkload(name, params).graph), expected);
    });
  }

  test('every workload is covered', () => {
    assert.deepEqual([...new Set(MAIN_GRAPHS.map(([name]) => name))].sort(), Object.keys(WORKLOADS).sort());
  });
});

describe('submitters', () => {
  test('the graph gets one codelet per model codelet; a runtime one per (codelet, kernel)', async () => {
    const g = new GraphSubmitter();
    assert.equal(g.codelet(TRSM), 0);
    assert.equal(g.codelet(TRSM), 0);
    assert.equal(g.codelet(GEMM), 1);
    assert.equal(g.graph.codelets.length, 2);
    const rt = await Runtime.create({ mode: 'simulated', platform: 'v100x2' });
    try {
      const r = new RuntimeSubmitter(rt);
      assert.equal(r.computes, false);
      assert.equal(r.codelet(TRSM, 'trsmLuRowTask'), 0);
      assert.equal(r.codelet(TRSM, 'trsmLuColumnTask'), 1);
      assert.equal(r.codelet(TRSM, 'trsmLuRowTask'), 0);
      // A simulated runtime computes nothing: no initial values are made.
      const a = r.data({ name: 'a', type: 'float32', length: 3, init: () => assert.fail('init called') });
      assert.deepEqual(r.arrays[a], new Float32Array(3));
      assert.deepEqual(r.names, ['a']);
    } finally {
      await rt.close();
    }
  });

  test('initial values: used as they are when their type and length match, else copied', () => {
    const given = new Float64Array([1, 2, 3]);
    assert.equal(initialArray({ name: 'a', type: 'float64', length: 3, init: () => given }), given);
    assert.deepEqual(
      initialArray({ name: 'b', type: 'float32', length: 3, init: () => [4, 5, 6] }),
      Float32Array.of(4, 5, 6),
    );
    assert.deepEqual(initialArray({ name: 'c', type: 'int32', length: 2 }), new Int32Array(2));
    assert.deepEqual(
      initialArray({ name: 'd', type: 'int32', length: 2, init: () => [7, 8] }, false),
      new Int32Array(2),
    );
    assert.throws(
      () => initialArray({ name: 'e', type: 'float64', length: 3, init: () => [1] }),
      /datum e: 1 initial values for 3 elements/,
    );
  });

  test('the sequential submitter runs each kernel at submission, on the arrays in access order', () => {
    const s = new SequentialSubmitter(true, JS_TASKS);
    const n = 4;
    const x = s.data({
      name: 'x',
      type: 'float64',
      length: n * n,
      init: () => randomTile(n * n, 3, 'double'),
    });
    const y = s.data({
      name: 'y',
      type: 'float64',
      length: n * n,
      init: () => randomTile(n * n, 4, 'double'),
    });
    const c = s.data({ name: 'c', type: 'float64', length: n * n });
    const gemm = s.codelet(GEMM, 'gemmTask');
    s.submit(
      gemm,
      [
        [x, AccessMode.R],
        [y, AccessMode.R],
        [c, AccessMode.RW],
      ],
      { args: [n] },
    );
    const expected = new Float64Array(n * n);
    tiledGemm([s.initial[x] as Tile], [s.initial[y] as Tile], [expected], 1, n);
    assert.deepEqual(s.arrays[c], expected);
    assert.deepEqual(s.initial[c], new Float64Array(n * n));
    assert.throws(() => s.codelet(TRSM), /codelet trsm has no kernel to run/);
  });
});

/**
 * The JavaScript task kernels: the references below are JavaScript too, so the generators'
 * task sequences are compared bit for bit (the native kernels round differently).
 */
const JS_TASKS = { ...JsTasks };

/** The sequential run of workload `name` through the SequentialSubmitter: arrays by datum name. */
function runSequentially(name: string, params: WorkloadParams): Map<string, ArrayLike<number>> {
  const generator = WORKLOADS[name]!;
  const s = new SequentialSubmitter(false, JS_TASKS);
  generator.submit(s, generator.instance(params));
  return new Map(s.names.map((d, i) => [d, s.arrays[i]!]));
}

/** Tiles NAME[i,j] of an nt x nt matrix, tile (i, j) at [i + j nt]; missing ones undefined. */
function tiles(data: Map<string, ArrayLike<number>>, nt: number, name = 'A'): Tile[] {
  const out: Tile[] = [];
  for (let i = 0; i < nt; i++) {
    for (let j = 0; j < nt; j++) out[i + j * nt] = data.get(`${name}[${i},${j}]`) as Tile;
  }
  return out;
}

describe('the sequential run of each generator equals the independent sequential algorithm', () => {
  const nt = 4;
  const n = 8;

  test('cholesky: tiledCholesky on the lower tiles, both submission orders', () => {
    const ref = spdMatrixTiles(nt, n, 5, 'double');
    tiledCholesky(ref, nt, n);
    for (const order of ['rows', 'columns'] as const) {
      const got = tiles(
        runSequentially('cholesky', { tiles: nt, tileSize: n, precision: 'double', order, dataSeed: 5 }),
        nt,
      );
      for (let i = 0; i < nt; i++) {
        for (let j = 0; j < nt; j++) {
          if (j <= i) assert.deepEqual(got[i + j * nt], ref[i + j * nt], `${order} A[${i},${j}]`);
          else assert.equal(got[i + j * nt], undefined);
        }
      }
    }
  });

  test('lu: tiledLu', () => {
    const ref = diagDominantTiles(nt, n, 1, 'single');
    tiledLu(ref, nt, n);
    assert.deepEqual(tiles(runSequentially('lu', { tiles: nt, tileSize: n, precision: 'single' }), nt), ref);
  });

  test('gemm: tiledGemm on the same seeded matrices', () => {
    const make = (m: number) =>
      Array.from({ length: nt * nt }, (_, t) => randomTile(n * n, 1_000_003 + m * nt * nt + t, 'double'));
    const [a, b, c] = [make(0), make(1), make(2)];
    const expected = cloneTiles(c!);
    tiledGemm(a!, b!, expected, nt, n);
    const got = runSequentially('gemm', { tiles: nt, tileSize: n, precision: 'double' });
    assert.deepEqual(tiles(got, nt, 'A'), a);
    assert.deepEqual(tiles(got, nt, 'C'), expected);
  });

  test('jacobi: plain sweeps of the whole grid', () => {
    const blocks = 3;
    const rows = 5;
    const iterations = 3;
    const size = blocks * rows;
    // The initial grid A, row-major, from the generator's own initial values (iteration 0 only reads A).
    const initial = runSequentially('jacobi', { tiles: blocks, tileSize: rows, iterations: 1 });
    const got = runSequentially('jacobi', { tiles: blocks, tileSize: rows, iterations });
    const grid = (data: Map<string, ArrayLike<number>>, g: string) => {
      const out = new Float64Array(size * size);
      let o = 0;
      for (let b = 0; b < blocks; b++) {
        for (const seg of ['first', 'inner', 'last']) {
          const part = data.get(`${g}.${seg}[${b}]`)!;
          out.set(part as Float64Array, o);
          o += part.length;
        }
      }
      return out;
    };
    let u: Float64Array = grid(initial, 'A');
    // Iteration 0 of the one-iteration run left A as it was.
    for (let k = 0; k < iterations; k++) {
      const v = u.slice();
      for (let r = 1; r < size - 1; r++) {
        for (let c = 1; c < size - 1; c++) {
          v[r * size + c] =
            0.25 *
            (u[(r - 1) * size + c]! + u[(r + 1) * size + c]! + u[r * size + c - 1]! + u[r * size + c + 1]!);
        }
      }
      u = v;
    }
    // After 3 iterations the result is in B (iterations 0 and 2 write B).
    assert.deepEqual(grid(got, 'B'), u);
  });

  test('lupp: the computing submitters refuse single precision', () => {
    assert.throws(
      () => runSequentially('lupp', { tiles: 2, tileSize: 4, precision: 'single' }),
      (e: unknown) => e instanceof LocusError && /lupp runs in double precision only/.test(e.message),
    );
    // The simulator takes it.
    assert.equal(generateWorkload('lupp', { tiles: 2, tileSize: 4, precision: 'single' }).graph.taskCount, 5);
  });
});

describe('real runs of every workload that has kernels: residual 0', { timeout: 300_000 }, () => {
  const platforms = {
    cpus: { cpus: 2 },
    // Two small emulated devices (six 16 x 16 double tiles each): data move between memories.
    devices: { cpus: 1, gpus: 2, gpuMemory: 6 * 16 * 16 * 8 },
  };
  test('the list', () => {
    assert.deepEqual(REAL_WORKLOAD_NAMES, ['cholesky', 'lu', 'lupp', 'gemm', 'jacobi', 'taskbench']);
  });

  for (const platform of Object.keys(platforms)) {
    for (const name of REAL_WORKLOAD_NAMES) {
      test(`${name} on ${platform}`, async () => {
        const r = await runWorkload(name, {
          ...platforms[platform as keyof typeof platforms],
          scheduler: 'dmdar',
          tiles: 4,
          tileSize: 16,
          iterations: 5,
          check: true,
        });
        assert.equal(r.residual, 0, `${name}: ${r.residual}`);
        assert.equal(r.report.workload, r.workload);
        assert.ok(r.workload.startsWith(`${name} `));
        const expectedTasks = generateWorkload(name, {
          tiles: 4,
          tileSize: 16,
          iterations: 5,
          precision: 'double',
        }).graph.taskCount;
        assert.equal(r.report.tasks, expectedTasks);
        if (name === 'cholesky' || name === 'lu' || name === 'lupp') assert.ok(r.backwardError! < 1e-12);
        else assert.equal(r.backwardError, undefined);
      });
    }
  }

  test('one-line errors: a workload without kernels, too much data', async () => {
    await assert.rejects(
      runWorkload('matmul2d', { tiles: 2, tileSize: 4 }),
      (e: unknown) =>
        e instanceof LocusError &&
        e.message ===
          "workload 'matmul2d' does not run for real: use one of cholesky, lu, lupp, gemm, jacobi, taskbench, or simulate it",
    );
    await assert.rejects(
      runWorkload('gemm', { tiles: 16, tileSize: 2048 }),
      (e: unknown) =>
        e instanceof LocusError &&
        /^gemm 16x16 tiles of 2048, double holds 24\.00 GiB of data, more than a real run here takes \(3\.00 GiB\)/.test(
          e.message,
        ),
    );
    assert.equal(REAL_MAX_BYTES, 3 * 2 ** 30);
  });
});
