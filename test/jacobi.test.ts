/**
 * The `jacobi` workload: the generator's handles, tasks and dependencies, the kernel against a
 * plain whole-grid sweep, and "data stay put": a real and a simulated run move, after the
 * first iteration, exactly the halo rows that cross between the two devices.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LocusError } from '../src/core/types.ts';
import { mulberry32 } from '../src/kernels/generate.ts';
import { jacobiBlock } from '../src/kernels/jacobi.ts';
import { jacobiTask } from '../src/kernels/tasks.ts';
import { newTile, type Tile } from '../src/kernels/types.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { jacobi } from '../src/workloads/jacobi.ts';

// Real runs save their measurements into the performance models: keep them out of ~/.locus.
const MODELS = mkdtempSync(join(tmpdir(), 'locus-models-'));
const ENV = { ...process.env, LOCUS_PERFMODEL_DIR: MODELS };

function locus(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], { encoding: 'utf8', env: ENV });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A plain sweep of a whole n x n row-major grid, fixed border: the definition. */
function plainSweep(u: Tile, n: number): Tile {
  const v = u.slice();
  for (let r = 1; r < n - 1; r++) {
    for (let c = 1; c < n - 1; c++) {
      v[r * n + c] =
        0.25 * (u[(r - 1) * n + c]! + u[(r + 1) * n + c]! + u[r * n + c - 1]! + u[r * n + c + 1]!);
    }
  }
  return v;
}

function randomGrid(length: number, seed: number, precision: 'single' | 'double'): Tile {
  const rnd = mulberry32(seed);
  const t = newTile(length, precision);
  for (let i = 0; i < length; i++) t[i] = 2 * rnd() - 1;
  return t;
}

/** Sweeps of the blocks in submission order, grids[0] to grids[1] then back: the generator's tasks run in order. */
function sequentialJacobi(grids: Tile[][][], tiles: number, n: number, iterations: number): void {
  for (let k = 0; k < iterations; k++) {
    const src = grids[k % 2]!;
    const dst = grids[1 - (k % 2)]!;
    for (let b = 0; b < tiles; b++) {
      const above = b > 0 ? src[b - 1]!.at(-1)! : null;
      const below = b < tiles - 1 ? src[b + 1]![0]! : null;
      jacobiBlock(src[b]!, dst[b]!, n, above, below);
    }
  }
}

/** Cuts a row-major grid into blocks of `tileSize` rows, each [first, inner, last] as the workload does. */
function cut(u: Tile, tiles: number, tileSize: number): Tile[][] {
  const n = tiles * tileSize;
  return Array.from({ length: tiles }, (_, b) => {
    const at = (r0: number, rows: number) => u.slice((b * tileSize + r0) * n, (b * tileSize + r0 + rows) * n);
    if (tileSize === 1) return [at(0, 1)];
    if (tileSize === 2) return [at(0, 1), at(1, 1)];
    return [at(0, 1), at(1, tileSize - 2), at(tileSize - 1, 1)];
  });
}

function join2(blocks: Tile[][], precision: 'single' | 'double'): Tile {
  const parts = blocks.flat();
  const out = newTile(
    parts.reduce((s, p) => s + p.length, 0),
    precision,
  );
  let o = 0;
  for (const p of parts) {
    out.set(p as never, o);
    o += p.length;
  }
  return out;
}

describe('jacobi generator', () => {
  test('handles: first, inner and last row of every block of two grids; one task per block and iteration', () => {
    const w = jacobi({ tiles: 4, tileSize: 8, iterations: 3 });
    const g = w.graph;
    const n = 32;
    assert.equal(g.handleCount, 2 * 4 * 3);
    assert.equal(g.taskCount, 4 * 3);
    // Double by default: every handle of both grids adds up to 2 N^2 doubles.
    let bytes = 0;
    for (let h = 0; h < g.handleCount; h++) bytes += g.handleSize.data[h]!;
    assert.equal(bytes, 2 * n * n * 8);
    assert.equal(g.handleSize.data[0], n * 8); // A.first[0]
    assert.equal(g.handleSize.data[1], 6 * n * 8); // A.inner[0]
    assert.equal(g.handleLabel(2), 'A.last[0]');
    assert.equal(g.handleLabel(12), 'B.first[0]');
    // 4 flops per inner point of the grid, every iteration.
    assert.equal(w.totalFlops, 4 * 3 * (n - 2) * (n - 2));
    assert.equal(w.params.precision, 'double');
    // Smaller blocks: a 2-row block has no inner handle, a 1-row block only its row.
    assert.equal(jacobi({ tiles: 4, tileSize: 2, iterations: 1 }).graph.handleCount, 2 * 4 * 2);
    assert.equal(jacobi({ tiles: 4, tileSize: 1, iterations: 1 }).graph.handleCount, 2 * 4);
    const single = jacobi({ tiles: 2, tileSize: 4, iterations: 1, precision: 'single' });
    assert.equal(single.graph.handleSize.data[0], 8 * 4);
  });

  test('accesses: the block and one halo row of each neighbour read, the block of the other grid written', () => {
    const g = jacobi({ tiles: 4, tileSize: 8, iterations: 3 }).graph;
    const label = (h: number) => g.handleLabel(h);
    const acc = (t: number) => g.accesses(t).map(([h, m]) => `${label(h)}:${m}`);
    // Task 5 = JACOBI(1,1): reads grid B, writes grid A (R = 1, W = 2).
    assert.equal(g.taskLabel(5), 'JACOBI(1,1) (#5)');
    assert.deepEqual(acc(5), [
      'B.last[0]:1',
      'B.first[1]:1',
      'B.inner[1]:1',
      'B.last[1]:1',
      'B.first[2]:1',
      'A.first[1]:2',
      'A.inner[1]:2',
      'A.last[1]:2',
    ]);
    // The border blocks read one halo row only.
    assert.equal(acc(0).length, 3 + 1 + 3);
    assert.equal(acc(3).length, 1 + 3 + 3);
    for (let t = 0; t < g.taskCount; t++) {
      assert.equal(g.taskAffinity.data[t], t % 4);
      assert.equal(g.taskPhase.data[t], Math.floor(t / 4));
    }
  });

  test('dependencies: the neighbours of the previous iteration and the block two iterations back', () => {
    const tiles = 5;
    const iterations = 4;
    const g = jacobi({ tiles, tileSize: 3, iterations }).graph;
    for (let k = 0; k < iterations; k++) {
      for (let b = 0; b < tiles; b++) {
        const expected: number[] = [];
        if (k >= 2) expected.push((k - 2) * tiles + b);
        if (k >= 1)
          for (let d = -1; d <= 1; d++)
            if (b + d >= 0 && b + d < tiles) expected.push((k - 1) * tiles + b + d);
        assert.deepEqual(
          g.predecessors(k * tiles + b).sort((x, y) => x - y),
          expected.sort((x, y) => x - y),
          `JACOBI(${b},${k})`,
        );
      }
    }
  });

  test('bad parameters: one-line LocusErrors', () => {
    assert.throws(
      () => jacobi({ tiles: 0 }),
      (e: unknown) => e instanceof LocusError && /^tiles must be/.test(e.message),
    );
    assert.throws(
      () => jacobi({ tiles: 1024, tileSize: 128 }),
      (e: unknown) =>
        e instanceof LocusError && /grid edge tiles x tileSize must be at most 65536/.test(e.message),
    );
    assert.throws(
      () => jacobi({ iterations: 0 }),
      (e: unknown) => e instanceof LocusError && /^iterations must be a positive integer/.test(e.message),
    );
    assert.throws(
      () => generateWorkload('jacobi', { tiles: 8, tileSize: 64, host: { name: 'ram', capacity: 1000 } }),
      (e: unknown) => e instanceof LocusError && /do not fit in host memory ram/.test(e.message),
    );
  });
});

describe('jacobi kernel', () => {
  for (const precision of ['double', 'single'] as const) {
    test(`blocks of row segments give the plain sweep bit for bit (${precision})`, () => {
      for (const [tiles, tileSize] of [
        [4, 5],
        [3, 2],
        [6, 1],
        [1, 7],
      ] as const) {
        const n = tiles * tileSize;
        let u = randomGrid(n * n, 7 + tiles, precision);
        let grids = [cut(u, tiles, tileSize), cut(newTile(n * n, precision), tiles, tileSize)];
        for (let k = 0; k < 3; k++) {
          u = plainSweep(u, n);
          sequentialJacobi(grids, tiles, n, 1);
          grids = [grids[1]!, grids[0]!];
          assert.deepEqual(join2(grids[0]!, precision), u, `${tiles}x${tileSize}, iteration ${k}`);
        }
      }
    });
  }

  test('the task wrapper reads [above, block, below, destination] as the workload lists them', () => {
    const n = 6;
    const u = randomGrid(n * n, 3, 'double');
    const blocks = cut(u, 3, 2);
    const dst = [new Float64Array(n), new Float64Array(n)];
    jacobiTask([blocks[0]![1]!, ...blocks[1]!, blocks[2]![0]!, ...dst], Float64Array.of(n, 1, 1, 2));
    const v = plainSweep(u, n);
    assert.deepEqual(join2([dst], 'double'), v.slice(2 * n, 4 * n));
  });

  test('bad shapes are RangeErrors', () => {
    assert.throws(() => jacobiBlock([new Float64Array(5)], [new Float64Array(5)], 4, null, null), RangeError);
    assert.throws(() => jacobiBlock([new Float64Array(8)], [new Float64Array(4)], 4, null, null), RangeError);
  });
});

/**
 * The bytes a run under `static` moves per iteration on 2 GPUs without peer-to-peer copies
 * (the 'local' preset: emulated devices, copies between them staged through host memory).
 * `static` places every task by its affinity (its block) with the owner-computes split of
 * src/sched/owner.ts: block b of B on GPU floor(b G / B), so neighbouring blocks share a GPU
 * and only where the owner changes do a block's halo rows live on the other device. Iteration
 * 0 loads the whole source grid A (each block once, on its owner) plus, for every such
 * boundary, the two halo rows read across it (the last row of the upper block, the first row
 * of the lower one); nothing comes back. The destination grid is written only (no copy in),
 * and stays where it was written. From iteration 1 on, each halo row read across a boundary
 * was just written by the other device: it goes to host memory (bytesFromDevices) and on to
 * the reader (bytesToDevices), one row of N elements each, and nothing else moves.
 */
function expectedIterations(tiles: number, tileSize: number, iterations: number, gpus: number, elem: number) {
  const n = tiles * tileSize;
  const owner = (b: number) => Math.min(gpus - 1, Math.floor((b * gpus) / tiles));
  let boundaries = 0;
  for (let b = 0; b + 1 < tiles; b++) if (owner(b) !== owner(b + 1)) boundaries++;
  const halo = 2 * boundaries * n * elem;
  return Array.from({ length: iterations }, (_, k) => ({
    bytesToDevices: k === 0 ? n * n * elem + halo : halo,
    bytesFromDevices: k === 0 ? 0 : halo,
    bytesDeviceToDevice: 0,
  }));
}

describe('data stay put', () => {
  const args = ['--workload', 'jacobi', '--tiles', '8', '--tile-size', '64', '--iterations', '50'];
  const platform = ['--gpus', '2', '--gpu-mem', '4MiB', '--sched', 'static', '--json'];
  // 512 x 512 doubles in 8 blocks on 2 GPUs: one boundary (blocks 3 | 4), two rows of 4 KiB.
  const expected = expectedIterations(8, 64, 50, 2, 8);

  test('the derivation: 2 MiB then 8 KiB each way per iteration', () => {
    assert.deepEqual(expected[0], {
      bytesToDevices: 2 * 1024 * 1024 + 8192,
      bytesFromDevices: 0,
      bytesDeviceToDevice: 0,
    });
    assert.deepEqual(expected[1], { bytesToDevices: 8192, bytesFromDevices: 8192, bytesDeviceToDevice: 0 });
  });

  test('a real run matches the sequential sweeps bit for bit and moves only halo rows', () => {
    const r = locus('run', '--mode', 'real', ...args, ...platform, '--check', '--no-record');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.residual, 0);
    assert.equal(j.mode, 'real');
    assert.equal(j.tasks, 400);
    assert.deepEqual(j.iterations, expected);
    // The report comes before the results are brought home: its totals are the iterations' sums.
    assert.equal(
      j.bytesToDevices,
      expected.reduce((s, i) => s + i.bytesToDevices, 0),
    );
    assert.equal(j.bytesFromDevices, 49 * 8192);
    assert.equal(j.evictions, 0);
  });

  test('the default scheduler (eager) also gives residual 0', () => {
    const r = locus(
      'run',
      '--mode',
      'real',
      ...args,
      '--gpus',
      '2',
      '--gpu-mem',
      '4MiB',
      '--check',
      '--json',
      '--no-record',
    );
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.residual, 0);
    assert.equal(j.iterations.length, 50);
  });

  test('the same workload simulated on the same platform moves the same bytes per iteration', () => {
    const r = locus('run', '--mode', 'sim', '--platform', 'local', ...args, ...platform);
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.mode, 'simulated');
    assert.deepEqual(j.iterations, expected);
    // The end-of-run flush writes the rest home and belongs to no iteration: the last
    // iteration's grid whole, the other but for its halo rows already home.
    const grid = 512 * 512 * 8;
    assert.equal(j.bytesFromDevices, 49 * 8192 + 2 * grid - 8192);
  });

  test('with peer-to-peer copies (v100x2) the halo rows go device to device', () => {
    const w = jacobi({ tiles: 8, tileSize: 64, iterations: 5 });
    const { report } = simulate({
      graph: w.graph,
      platform: resolvePlatform('v100x2', { gpuMem: 4 * 1024 * 1024 }),
      scheduler: 'static',
      eviction: 'lru',
    });
    assert.deepEqual(report.iterations![0], {
      bytesToDevices: 512 * 512 * 8 + 8192,
      bytesFromDevices: 0,
      bytesDeviceToDevice: 0,
    });
    for (const it of report.iterations!.slice(1)) {
      assert.deepEqual(it, { bytesToDevices: 0, bytesFromDevices: 0, bytesDeviceToDevice: 8192 });
    }
  });

  test('--iterations is refused for the other real applications', () => {
    const r = locus(
      'run',
      '--mode',
      'real',
      '--workload',
      'gemm',
      '--tiles',
      '2',
      '--tile-size',
      '8',
      '--iterations',
      '3',
    );
    assert.equal(r.code, 2);
    assert.match(r.err, /--iterations applies to --mode simulated only/);
  });
});

describe('report iterations', () => {
  test('only graphs with phases get them, and they add up to the totals without the flush', () => {
    const platform = resolvePlatform('local', { gpus: 2, gpuMem: 4 * 1024 * 1024 });
    const plain = simulate({ graph: generateWorkload('gemm', { tiles: 2, tileSize: 16 }).graph, platform });
    assert.equal(plain.report.iterations, undefined);
    const w = jacobi({ tiles: 6, tileSize: 16, iterations: 4 });
    const { report } = simulate({ graph: w.graph, platform, flushAtEnd: false });
    assert.equal(report.iterations!.length, 4);
    const sum = (key: 'bytesToDevices' | 'bytesFromDevices') =>
      report.iterations!.reduce((s, i) => s + i[key], 0);
    assert.equal(sum('bytesToDevices'), report.bytesToDevices);
    assert.equal(sum('bytesFromDevices'), report.bytesFromDevices);
  });
});
