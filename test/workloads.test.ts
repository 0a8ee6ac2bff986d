import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import { AccessMode, LocusError } from '../src/core/types.ts';
import { cholesky } from '../src/workloads/cholesky.ts';
import { gemm } from '../src/workloads/gemm.ts';
import { generateWorkload, WORKLOADS } from '../src/workloads/index.ts';
import { lu } from '../src/workloads/lu.ts';
import { matmul2d } from '../src/workloads/matmul2d.ts';
import { random } from '../src/workloads/random.ts';
import { stencil } from '../src/workloads/stencil.ts';

const { R, W, RW } = AccessMode;

/** A graph with one codelet, for hand-built dependency cases. */
function tiny(): { g: TaskGraph; c: number } {
  const g = new TaskGraph();
  return { g, c: g.addCodelet({ name: 'k', kinds: ['cpu', 'gpu'] }) };
}

/** Names of the tasks of a graph, in submission order. */
function names(g: TaskGraph): (string | undefined)[] {
  return Array.from({ length: g.taskCount }, (_, t) => g.taskNames[t]);
}

/** Task id by name. */
function byName(g: TaskGraph, name: string): number {
  const t = g.taskNames.indexOf(name);
  assert.ok(t >= 0, `no task named ${name}`);
  return t;
}

/** Counts tasks per codelet name. */
function countByCodelet(g: TaskGraph): Record<string, number> {
  const out: Record<string, number> = {};
  for (let t = 0; t < g.taskCount; t++) {
    const name = g.codelets[g.taskCodelet.data[t]!]!.name;
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

/** Asserts that fn throws a LocusError whose message matches `message`. */
function throwsLocus(fn: () => unknown, message: RegExp | string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof LocusError, `expected a LocusError, got ${String(e)}`);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    assert.ok(!e.message.includes('\n'), 'the message is one line');
    return true;
  });
}

describe('TaskGraph dependency inference', () => {
  test('read after write', () => {
    const { g, c } = tiny();
    const h = g.addHandle(8);
    const w = g.submit(c, [[h, W]]);
    const r = g.submit(c, [[h, R]]);
    assert.deepEqual(g.predecessors(r), [w]);
    assert.deepEqual(g.successors(w), [r]);
  });

  test('write after read', () => {
    const { g, c } = tiny();
    const h = g.addHandle(8);
    const r1 = g.submit(c, [[h, R]]);
    const r2 = g.submit(c, [[h, R]]);
    const w = g.submit(c, [[h, RW]]);
    assert.deepEqual(g.predecessors(w), [r1, r2]);
    assert.equal(g.predCount.data[w], 2);
  });

  test('write after write', () => {
    const { g, c } = tiny();
    const h = g.addHandle(8);
    const w1 = g.submit(c, [[h, W]]);
    const w2 = g.submit(c, [[h, W]]);
    assert.deepEqual(g.predecessors(w2), [w1]);
  });

  test('read after read adds no edge', () => {
    const { g, c } = tiny();
    const h = g.addHandle(8);
    const r1 = g.submit(c, [[h, R]]);
    const r2 = g.submit(c, [[h, R]]);
    assert.deepEqual(g.predecessors(r2), []);
    assert.deepEqual(g.successors(r1), []);
    assert.equal(g.predCount.data[r2], 0);
  });

  test('readers after a write depend on the writer, the next writer on all of them', () => {
    const { g, c } = tiny();
    const h = g.addHandle(8);
    const w1 = g.submit(c, [[h, W]]);
    const r1 = g.submit(c, [[h, R]]);
    const r2 = g.submit(c, [[h, R]]);
    const w2 = g.submit(c, [[h, RW]]);
    const r3 = g.submit(c, [[h, R]]);
    assert.deepEqual(g.predecessors(r1), [w1]);
    assert.deepEqual(g.predecessors(r2), [w1]);
    assert.deepEqual(g.predecessors(w2), [w1, r1, r2]);
    assert.deepEqual(g.predecessors(r3), [w2]);
  });

  test('duplicate edges are not duplicated, consecutive or not', () => {
    const { g, c } = tiny();
    const [h1, h2, h3] = [g.addHandle(8), g.addHandle(8), g.addHandle(8)];
    const t0 = g.submit(c, [
      [h1, W],
      [h2, W],
    ]);
    const t1 = g.submit(c, [[h3, W]]);
    // t2 meets t0 through h1, t1 through h3, then t0 again through h2.
    const t2 = g.submit(c, [
      [h1, R],
      [h3, R],
      [h2, RW],
    ]);
    assert.deepEqual(g.predecessors(t2), [t0, t1]);
    assert.deepEqual(g.successors(t0), [t2]);
    assert.equal(g.predCount.data[t2], 2);
    // An explicit dependency that repeats an inferred one is not added twice.
    g.addDependency(t0, t2);
    assert.equal(g.predCount.data[t2], 2);
    assert.deepEqual(g.successors(t0), [t2]);
  });

  test('a task accessing a handle twice is rejected', () => {
    const { g, c } = tiny();
    const h = g.addHandle(8);
    throwsLocus(
      () =>
        g.submit(c, [
          [h, R],
          [h, W],
        ]),
      /accesses handle #0 twice/,
    );
  });

  test('a rejected submit leaves the graph unchanged', () => {
    const { g, c } = tiny();
    const h = g.addHandle(8);
    const k = g.addHandle(8);
    g.submit(c, [[h, W]]);
    assert.throws(() =>
      g.submit(c, [
        [h, R],
        [h, W],
      ]),
    );
    assert.equal(g.taskCount, 1);
    assert.equal(g.accessStart.length, g.taskCount + 1);
    const t = g.submit(c, [[k, R]]);
    assert.deepEqual(g.accesses(t), [[k, R]]);
    assert.deepEqual(g.predecessors(t), []);
  });

  test('an explicit dependency cycle is reported by checkAcyclic, naming the cycle', () => {
    const { g, c } = tiny();
    const h = g.addHandle(8);
    const a = g.submit(c, [[h, W]], { name: 'A' });
    const b = g.submit(c, [[h, R]], { name: 'B' });
    g.checkAcyclic();
    g.addDependency(b, a);
    throwsLocus(() => g.checkAcyclic(), /^cycle in explicit dependencies: .*A \(#0\).*B \(#1\)/);
  });

  test('a forward explicit dependency is no cycle', () => {
    const { g, c } = tiny();
    const a = g.submit(c, []);
    const b = g.submit(c, []);
    g.addDependency(a, b);
    g.checkAcyclic();
    assert.deepEqual(g.predecessors(b), [a]);
    throwsLocus(() => g.addDependency(a, a), /cannot depend on itself/);
  });

  test('the cycle named when the first blocked task lies downstream of the cycle', () => {
    const { g, c } = tiny();
    for (let i = 0; i < 3; i++) g.submit(c, [], { name: `T${i}` });
    g.addDependency(1, 2);
    g.addDependency(2, 1); // cycle T1 <-> T2
    g.addDependency(1, 0); // T0 blocked behind the cycle, a sink
    throwsLocus(() => g.checkAcyclic(), /T1 \(#1\).*T2 \(#2\)|T2 \(#2\).*T1 \(#1\)/);
  });

  test('the cycle named when the walk meets a downstream sink first', () => {
    const { g, c } = tiny();
    for (let i = 0; i < 3; i++) g.submit(c, [], { name: `T${i}` });
    g.addDependency(0, 1);
    g.addDependency(1, 0); // cycle T0 <-> T1
    g.addDependency(0, 2); // pushed last, so the first successor of T0 the walk sees
    throwsLocus(() => g.checkAcyclic(), /T0 \(#0\).*T1 \(#1\)|T1 \(#1\).*T0 \(#0\)/);
  });

  test('bottom levels on a diamond', () => {
    const { g, c } = tiny();
    const [x, y, z] = [g.addHandle(8), g.addHandle(8), g.addHandle(8)];
    const top = g.submit(c, [[x, W]], { flops: 1 });
    const left = g.submit(
      c,
      [
        [x, R],
        [y, W],
      ],
      { flops: 2 },
    );
    const right = g.submit(
      c,
      [
        [x, R],
        [z, W],
      ],
      { flops: 5 },
    );
    const bottom = g.submit(
      c,
      [
        [y, R],
        [z, R],
      ],
      { flops: 1 },
    );
    assert.deepEqual(g.predecessors(bottom), [left, right]);
    assert.deepEqual(g.successors(top), [left, right]);
    const bl = g.bottomLevels((t) => g.taskFlops.data[t]!);
    assert.deepEqual(Array.from(bl), [7, 3, 6, 1]);
    g.setBottomLevelPriorities();
    assert.deepEqual(Array.from(g.taskPriority.data.subarray(0, 4)), [7, 3, 6, 1]);
  });
});

describe('matmul2d', () => {
  test('N = 3: 9 independent tasks on 6 input blocks of 14.06 MiB', () => {
    const w = matmul2d({ tiles: 3 });
    const g = w.graph;
    assert.equal(g.taskCount, 9);
    assert.deepEqual(
      g.codelets.map((c) => c.name),
      ['gemm'],
    );
    let inputs = 0;
    let outputs = 0;
    for (let h = 0; h < g.handleCount; h++) {
      if (g.handleDiscard.data[h]) {
        outputs++;
        assert.equal(g.handleSize.data[h], 960 * 960 * 4);
      } else {
        inputs++;
        assert.equal(g.handleSize.data[h], 14745600);
      }
    }
    assert.equal(inputs, 6);
    assert.equal(outputs, 9);
    assert.equal(w.workingSetBytes, 6 * 14745600);
    assert.equal(w.totalFlops, 9 * 2 * 960 * 960 * 3840);
    assert.equal(g.taskFlops.data[0], 7077888000);
    for (let t = 0; t < 9; t++) {
      assert.deepEqual(g.predecessors(t), []);
      assert.deepEqual(g.successors(t), []);
    }
    // Row-major order: task (i, j) = 3i + j reads A[i] and B[j] and writes C[i,j].
    assert.deepEqual(names(g).slice(0, 4), ['GEMM(0,0)', 'GEMM(0,1)', 'GEMM(0,2)', 'GEMM(1,0)']);
    const t = 5; // (1, 2)
    const acc = g.accesses(t);
    assert.deepEqual(
      acc.map(([h, m]) => [g.handleLabel(h), m]),
      [
        ['A[1]', R],
        ['B[2]', R],
        ['C[1,2]', W],
      ],
    );
    assert.match(w.summary, /^matmul2d 3x3 tasks.*: 9 tasks, 84\.38 MiB/);
    assert.deepEqual(w.params, {
      tiles: 3,
      tileSize: 960,
      inner: 3840,
      precision: 'single',
      keepOutputs: false,
    });
  });

  test('defaults are seed 000 Fig. 2 with N = 20', () => {
    const w = matmul2d();
    assert.equal(w.graph.taskCount, 400);
    assert.equal(w.params.tiles, 20);
    assert.equal(w.workingSetBytes, 40 * 14745600);
  });

  test('keepOutputs registers C blocks without discard; double precision doubles sizes', () => {
    const w = matmul2d({ tiles: 2, keepOutputs: true, precision: 'double' });
    const g = w.graph;
    for (let h = 0; h < g.handleCount; h++) assert.equal(g.handleDiscard.data[h], 0);
    assert.equal(g.handleSize.data[0], 2 * 14745600);
    assert.equal(w.workingSetBytes, 4 * 2 * 14745600);
  });

  test('317 x 317 = 100,489 tasks build quickly', () => {
    const start = performance.now();
    const w = matmul2d({ tiles: 317 });
    const ms = performance.now() - start;
    assert.equal(w.graph.taskCount, 100489);
    assert.equal(w.graph.handleCount, 2 * 317 + 100489);
    assert.ok(ms < 2000, `took ${ms.toFixed(0)} ms`);
  });
});

describe('gemm', () => {
  test('N = 1: one task', () => {
    const w = gemm({ tiles: 1 });
    assert.equal(w.graph.taskCount, 1);
    assert.equal(w.totalFlops, 2 * 960 ** 3);
  });

  test('N = 2: 8 tasks, chains along k through C[i,j]', () => {
    const g = gemm({ tiles: 2 }).graph;
    assert.equal(g.taskCount, 8);
    assert.deepEqual(names(g), [
      'GEMM(0,0,0)',
      'GEMM(0,0,1)',
      'GEMM(0,1,0)',
      'GEMM(0,1,1)',
      'GEMM(1,0,0)',
      'GEMM(1,0,1)',
      'GEMM(1,1,0)',
      'GEMM(1,1,1)',
    ]);
    for (let t = 0; t < 8; t += 2) {
      assert.deepEqual(g.predecessors(t), []);
      assert.deepEqual(g.successors(t), [t + 1]);
      assert.deepEqual(g.predecessors(t + 1), [t]);
      assert.deepEqual(g.successors(t + 1), []);
    }
    const acc = g.accesses(byName(g, 'GEMM(1,0,1)')).map(([h, m]) => [g.handleLabel(h), m]);
    assert.deepEqual(acc, [
      ['A[1,1]', R],
      ['B[1,0]', R],
      ['C[1,0]', RW],
    ]);
  });

  test('default N = 8: 512 tasks', () => {
    assert.equal(gemm().graph.taskCount, 512);
  });
});

describe('cholesky', () => {
  test('N = 4: 20 tasks (4 potrf, 6 trsm, 6 syrk, 4 gemm), lower triangle only', () => {
    const w = cholesky({ tiles: 4 });
    assert.equal(w.graph.taskCount, 20);
    assert.deepEqual(countByCodelet(w.graph), { potrf: 4, trsm: 6, syrk: 6, gemm: 4 });
    assert.equal(w.graph.handleCount, 10);
    assert.equal(w.graph.handleSize.data[0], 1920 * 1920 * 4);
    const cube = 1920 ** 3;
    assert.equal(w.totalFlops, (4 * cube) / 3 + 6 * cube + 6 * cube + 4 * 2 * cube);
    for (let t = 0; t < 20; t++) assert.equal(w.graph.taskPriority.data[t], 0);
  });

  test('N = 2: POTRF -> TRSM -> SYRK -> POTRF', () => {
    const g = cholesky({ tiles: 2 }).graph;
    assert.deepEqual(names(g), ['POTRF(0)', 'TRSM(1,0)', 'SYRK(1,0)', 'POTRF(1)']);
    assert.deepEqual(g.predecessors(0), []);
    assert.deepEqual(g.successors(0), [1]);
    assert.deepEqual(g.successors(1), [2]);
    assert.deepEqual(g.successors(2), [3]);
    assert.deepEqual(g.predecessors(3), [2]);
  });

  test('N = 3: StarPU submission order and dependencies', () => {
    const g = cholesky({ tiles: 3 }).graph;
    assert.deepEqual(names(g), [
      'POTRF(0)',
      'TRSM(1,0)',
      'TRSM(2,0)',
      'SYRK(1,0)',
      'GEMM(2,1,0)',
      'SYRK(2,0)',
      'POTRF(1)',
      'TRSM(2,1)',
      'SYRK(2,1)',
      'POTRF(2)',
    ]);
    const preds = Array.from({ length: 10 }, (_, t) => g.predecessors(t));
    assert.deepEqual(preds, [[], [0], [0], [1], [1, 2], [2], [3], [4, 6], [5, 7], [8]]);
    const acc = g.accesses(4).map(([h, m]) => [g.handleLabel(h), m]);
    assert.deepEqual(acc, [
      ['A[2,0]', R],
      ['A[1,0]', R],
      ['A[2,1]', RW],
    ]);
  });
});

describe('lu', () => {
  test('N = 2: GETRF -> two TRSM -> GEMM -> GETRF', () => {
    const g = lu({ tiles: 2 }).graph;
    assert.deepEqual(names(g), ['GETRF(0)', 'TRSM(0,1)', 'TRSM(1,0)', 'GEMM(1,1,0)', 'GETRF(1)']);
    const preds = Array.from({ length: 5 }, (_, t) => g.predecessors(t));
    assert.deepEqual(preds, [[], [0], [0], [1, 2], [3]]);
  });

  test('N = 3: 14 tasks', () => {
    const w = lu({ tiles: 3 });
    assert.equal(w.graph.taskCount, 14);
    assert.deepEqual(countByCodelet(w.graph), { getrf: 3, trsm: 6, gemm: 5 });
    assert.equal(w.graph.handleCount, 9);
  });

  test('default N = 10: N(N+1)(2N+1)/6 = 385 tasks', () => {
    assert.equal(lu().graph.taskCount, 385);
  });
});

describe('stencil', () => {
  test('3 blocks, 2 iterations: neighbours meet only through halos', () => {
    const w = stencil({ tiles: 3, iterations: 2, tileSize: 4, inner: 12 });
    const g = w.graph;
    assert.deepEqual(names(g), [
      'STENCIL(0,0)',
      'STENCIL(1,0)',
      'STENCIL(2,0)',
      'HALO(0,0)',
      'HALO(1,0)',
      'HALO(2,0)',
      'STENCIL(0,1)',
      'STENCIL(1,1)',
      'STENCIL(2,1)',
    ]);
    const preds = Array.from({ length: 9 }, (_, t) => g.predecessors(t));
    assert.deepEqual(preds, [[], [], [], [0], [1], [2], [0, 3, 4], [1, 3, 4, 5], [2, 4, 5]]);
    // 3 blocks of 4 planes, 2 halo sides x 2 buffers per inner boundary.
    assert.equal(g.handleCount, 3 + 2 * 2 * 2);
    assert.equal(g.handleSize.data[0], 4 * 4 * 4 * 4);
    const acc = g.accesses(7).map(([h, m]) => [g.handleLabel(h), m]);
    assert.deepEqual(acc, [
      ['halo[0].top[1]', R],
      ['block[1]', RW],
      ['halo[2].bottom[1]', R],
    ]);
    assert.equal(g.taskFlops.data[0], 8 * 4 * 4 * 4);
    assert.deepEqual(
      g.codelets.map((c) => c.name),
      ['stencil', 'halo'],
    );
  });

  test('defaults: 256 x 256 x 4096 in 64 blocks, 10 iterations', () => {
    const w = stencil();
    assert.equal(w.graph.taskCount, 64 * 10 + 64 * 9);
    const blockBytes = 256 * 256 * 64 * 4;
    assert.equal(w.graph.handleSize.data[0], blockBytes);
    assert.equal(w.workingSetBytes, 64 * blockBytes + 4 * 63 * 256 * 256 * 4);
  });

  test('uneven blocks and a single block', () => {
    const g = stencil({ tiles: 3, inner: 10, tileSize: 2, iterations: 1 }).graph;
    assert.deepEqual(Array.from(g.handleSize.data.subarray(0, 3)), [4 * 4 * 4, 3 * 4 * 4, 3 * 4 * 4]);
    const one = stencil({ tiles: 1, inner: 8, tileSize: 2, iterations: 3 }).graph;
    assert.equal(one.taskCount, 3);
    assert.deepEqual(one.predecessors(2), [1]);
  });
});

describe('random', () => {
  const inputsOf = (g: TaskGraph): number[][] =>
    Array.from({ length: g.taskCount }, (_, t) =>
      g
        .accesses(t)
        .filter(([, m]) => m === R)
        .map(([h]) => h),
    );

  test('deterministic for a seed, different for another', () => {
    const a = random({ tasks: 200, data: 50, degree: 3, seed: 7 });
    const b = random({ tasks: 200, data: 50, degree: 3, seed: 7 });
    const c = random({ tasks: 200, data: 50, degree: 3, seed: 8 });
    assert.deepEqual(inputsOf(a.graph), inputsOf(b.graph));
    assert.notDeepEqual(inputsOf(a.graph), inputsOf(c.graph));
  });

  test('distinct inputs, a discarded output, no dependencies', () => {
    const w = random({ tasks: 300, data: 10, degree: 4, tileSize: 8 });
    const g = w.graph;
    assert.equal(g.taskCount, 300);
    assert.deepEqual(
      g.codelets.map((c) => c.name),
      ['random'],
    );
    for (let t = 0; t < g.taskCount; t++) {
      const acc = g.accesses(t);
      assert.equal(acc.length, 5);
      const inputs = acc.filter(([, m]) => m === R).map(([h]) => h);
      assert.equal(new Set(inputs).size, 4);
      for (const h of inputs) assert.ok(h < 10);
      const [out, mode] = acc[4]!;
      assert.equal(mode, W);
      assert.equal(g.handleDiscard.data[out], 1);
      assert.deepEqual(g.predecessors(t), []);
    }
    assert.equal(g.taskFlops.data[0], 2 * 8 ** 3);
    assert.equal(w.workingSetBytes, 10 * 8 * 8 * 4);
  });

  test('degree = data reads every datum; defaults', () => {
    const g = random({ tasks: 5, data: 3, degree: 3 }).graph;
    for (let t = 0; t < 5; t++)
      assert.deepEqual(g.accesses(t).slice(0, 3), [
        [0, R],
        [1, R],
        [2, R],
      ]);
    const d = random();
    assert.equal(d.graph.taskCount, 1000);
    assert.deepEqual(d.params, {
      tiles: 100,
      tileSize: 960,
      precision: 'single',
      tasks: 1000,
      data: 100,
      degree: 2,
      seed: 1,
    });
  });
});

describe('registry and parameter validation', () => {
  test('every generator is registered under its name with the expected codelets', () => {
    assert.deepEqual(Object.keys(WORKLOADS), [
      'matmul2d',
      'gemm',
      'cholesky',
      'lu',
      'lupp',
      'stencil',
      'jacobi',
      'random',
      'taskbench',
    ]);
    const allowed = new Set([
      'gemm',
      'potrf',
      'trsm',
      'syrk',
      'getrf',
      'laswp',
      'stencil',
      'halo',
      'jacobi',
      'random',
      'taskbench_empty',
    ]);
    for (const [name, gen] of Object.entries(WORKLOADS)) {
      assert.equal(gen.name, name);
      const w = generateWorkload(name, {
        tiles: 3,
        tileSize: 16,
        inner: 48,
        iterations: 2,
        tasks: 10,
        data: 5,
        pattern: 'stencil_1d',
      });
      assert.equal(w.name, name);
      assert.ok(w.graph.taskCount > 0);
      assert.ok(w.summary.startsWith(`${name} `));
      assert.ok(!w.summary.includes('\n'));
      assert.ok(w.workingSetBytes > 0);
      let flops = 0;
      for (let t = 0; t < w.graph.taskCount; t++) flops += w.graph.taskFlops.data[t]!;
      assert.equal(w.totalFlops, flops);
      for (const c of w.graph.codelets) {
        assert.ok(allowed.has(c.name), c.name);
        assert.deepEqual(c.kinds, ['cpu', 'gpu']);
      }
    }
  });

  test('unknown workload', () => {
    throwsLocus(
      () => generateWorkload('qr', {}),
      "unknown workload 'qr': use one of matmul2d, gemm, cholesky, lu, lupp, stencil, jacobi, random, taskbench",
    );
    throwsLocus(() => generateWorkload('toString', {}), /unknown workload 'toString'/);
  });

  test('bad parameters throw one-line LocusErrors', () => {
    throwsLocus(() => matmul2d({ tiles: 0 }), 'tiles must be a positive integer (got 0)');
    throwsLocus(() => matmul2d({ tiles: 2.5 }), 'tiles must be a positive integer (got 2.5)');
    throwsLocus(() => matmul2d({ tiles: Number.NaN }), 'tiles must be a positive integer (got NaN)');
    throwsLocus(() => matmul2d({ tiles: 2001 }), 'tiles must be at most 2000 (got 2001)');
    throwsLocus(() => matmul2d({ inner: -1 }), 'inner must be a positive integer (got -1)');
    throwsLocus(() => gemm({ tileSize: 0 }), 'tileSize must be a positive integer (got 0)');
    throwsLocus(
      () => cholesky({ precision: 'half' as 'single' }),
      "precision must be 'single' or 'double' (got 'half')",
    );
    throwsLocus(() => lu({ tiles: -3 }), 'tiles must be a positive integer (got -3)');
    throwsLocus(() => stencil({ iterations: 0 }), 'iterations must be a positive integer (got 0)');
    throwsLocus(() => stencil({ tiles: 9, inner: 8 }), /^tiles must be at most the grid depth inner/);
    throwsLocus(() => random({ degree: 5, data: 3 }), /^degree must be at most data/);
    throwsLocus(() => random({ seed: -1 }), 'seed must be a non-negative integer (got -1)');
    throwsLocus(() => random({ tasks: 0 }), 'tasks must be a positive integer (got 0)');
  });
});
