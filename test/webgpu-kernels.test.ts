/**
 * The WGSL kernels (src/webgpu/) against the CPU references (src/kernels/reference.ts) on the
 * adapter found here (lavapipe on CI): float32 results within a float32 tolerance of the
 * float64 references. Skipped, with the reason, where no adapter is found.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { jacobiBlock } from '../src/kernels/jacobi.ts';
import {
  gemmRef,
  mulberry32,
  syrkRef,
  trsmLeftLowerUnitRef,
  trsmRightLowerTransRef,
  trsmRightUpperRef,
} from '../src/kernels/reference.ts';
import { haloCopy, STENCIL_A, STENCIL_B, stencilUpdate } from '../src/kernels/stencil3d.ts';
import type { LogicalDevice } from '../src/webgpu/device.ts';
import { createLogicalDevice } from '../src/webgpu/device.ts';
import { runWgsl } from '../src/webgpu/dispatch.ts';
import { gemmWgsl, matmul2dWgsl, syrkWgsl } from '../src/webgpu/gemm.ts';
import { jacobiWgsl } from '../src/webgpu/jacobi.ts';
import { haloWgsl, stencilWgsl } from '../src/webgpu/stencil.ts';
import { TRSM_SHAPES, trsmKernel, trsmRowWgsl, trsmWgsl } from '../src/webgpu/trsm.ts';
import { noAdapter } from './helpers/webgpu.ts';

/** A random n x n tile (float32 values, in [-1, 1)). */
function tile(n: number, seed: number): Float32Array {
  const r = mulberry32(seed);
  return Float32Array.from({ length: n * n }, () => r() * 2 - 1);
}

/** A well-conditioned triangle: random off-diagonal entries scaled by 1/n, diagonal in [1, 2). */
function triangle(n: number, seed: number): Float32Array {
  const t = tile(n, seed);
  for (let i = 0; i < t.length; i++) t[i] = t[i]! / n;
  for (let j = 0; j < n; j++) t[j + j * n] = 1.5 + t[j + j * n]!;
  return t;
}

/** Asserts |got - want| <= tol * (1 + |want|) everywhere. */
function close(got: Float32Array, want: Float64Array, tol: number, what: string): void {
  let worst = 0;
  let at = -1;
  for (let i = 0; i < want.length; i++) {
    const e = Math.abs(got[i]! - want[i]!) / (1 + Math.abs(want[i]!));
    if (!(e <= worst)) {
      worst = e;
      at = i;
    }
  }
  assert.ok(worst <= tol, `${what}: relative error ${worst} at ${at} (got ${got[at]}, want ${want[at]})`);
}

const skip = noAdapter === undefined ? {} : { skip: noAdapter };

describe('WGSL kernels against the CPU references', { timeout: 300_000, ...skip }, () => {
  let dev: LogicalDevice;
  before(async () => {
    dev = await createLogicalDevice('gpu0', 64 * 1024 * 1024);
  });
  after(() => dev?.dispose());

  for (const n of [64, 68, 128]) {
    test(`GEMM C += A B and C = -A B^T + 2 C, n = ${n}`, async () => {
      const [a, b, c] = [tile(n, 1), tile(n, 2), tile(n, 3)];
      const [, , got] = await runWgsl(dev, gemmWgsl, [a, b, c], [0, 1, 1]);
      const want = Float64Array.from(c);
      gemmRef(Float64Array.from(a), Float64Array.from(b), want, n);
      close(got!, want, 1e-5 * n, 'gemm');
      const [, , got2] = await runWgsl(dev, gemmWgsl, [a, b, c], [1, -1, 2]);
      const want2 = Float64Array.from(c);
      gemmRef(Float64Array.from(a), Float64Array.from(b), want2, n, false, true, -1, 2);
      close(got2!, want2, 1e-5 * n, 'gemm (B^T)');
    });

    test(`SYRK C -= A A^T (lower), n = ${n}`, async () => {
      const [a, c] = [tile(n, 4), tile(n, 5)];
      const [, got] = await runWgsl(dev, syrkWgsl, [a, c], []);
      const want = Float64Array.from(c);
      syrkRef(Float64Array.from(a), want, n);
      close(got!, want, 1e-5 * n, 'syrk');
    });
  }

  for (const [variant, ref] of [
    [0, trsmRightLowerTransRef],
    [1, trsmLeftLowerUnitRef],
    [2, trsmRightUpperRef],
  ] as const) {
    // 64: whole blocks; 37: a partial block and a partial group of vectors.
    for (const n of [64, 37])
      test(`TRSM variant ${variant}, n = ${n}`, async () => {
        const t = triangle(n, 6 + variant);
        // The references read only their triangle; zero the other one as the GPU ignores it too.
        for (let j = 0; j < n; j++)
          for (let i = 0; i < n; i++) if (variant === 2 ? i > j : i < j) t[i + j * n] = 0;
        const b = tile(n, 9);
        const [, got] = await runWgsl(dev, trsmWgsl, [t, b], [variant]);
        const want = Float64Array.from(b);
        ref(Float64Array.from(t), want, n);
        close(got!, want, 1e-4, `trsm ${variant}`);
      });
  }

  test('TRSM in every shape the device check measures, and the earlier row kernel, n = 37', async () => {
    const n = 37;
    for (const [variant, ref] of [
      [0, trsmRightLowerTransRef],
      [1, trsmLeftLowerUnitRef],
      [2, trsmRightUpperRef],
    ] as const) {
      const t = triangle(n, 16 + variant);
      for (let j = 0; j < n; j++)
        for (let i = 0; i < n; i++) if (variant === 2 ? i > j : i < j) t[i + j * n] = 0;
      const b = tile(n, 19);
      const want = Float64Array.from(b);
      ref(Float64Array.from(t), want, n);
      for (const k of [trsmRowWgsl, ...TRSM_SHAPES.map(trsmKernel)]) {
        const [, got] = await runWgsl(dev, k, [t, b], [variant]);
        close(got!, want, 1e-4, `trsm ${variant}`);
      }
    }
  });

  for (const [above, below] of [
    [true, true],
    [false, true],
    [true, false],
  ] as const) {
    test(`Jacobi sweep of 3 segments (1, 5, 1 rows of 36), above ${above}, below ${below}`, async () => {
      const n = 36;
      const rows = [1, 5, 1];
      const src = rows.map((r, k) => tile(n, 20 + k).slice(0, r * n));
      const up = tile(n, 30).slice(0, n);
      const down = tile(n, 31).slice(0, n);
      const dst = rows.map((r) => new Float32Array(r * n));
      const data = [...(above ? [up] : []), ...src, ...(below ? [down] : []), ...dst];
      const got = await runWgsl(dev, jacobiWgsl, data, [n, above ? 1 : 0, below ? 1 : 0, 3]);
      const want = rows.map((r) => new Float64Array(r * n));
      jacobiBlock(
        src.map((x) => Float64Array.from(x)),
        want,
        n,
        above ? Float64Array.from(up) : null,
        below ? Float64Array.from(down) : null,
      );
      for (let k = 0; k < 3; k++) close(got[got.length - 3 + k]!, want[k]!, 1e-6, `jacobi segment ${k}`);
    });
  }

  for (const [m, k] of [
    [64, 256],
    [68, 132],
  ] as const) {
    test(`matmul2d block product C = A B, A ${m} x ${k}, B ${k} x ${m}`, async () => {
      const r = mulberry32(40 + m);
      const a = Float32Array.from({ length: m * k }, () => r() * 2 - 1);
      const b = Float32Array.from({ length: k * m }, () => r() * 2 - 1);
      // C is written (W): its old values must not leak into the result.
      const c = Float32Array.from({ length: m * m }, () => 99);
      const [, , got] = await runWgsl(dev, matmul2dWgsl, [a, b, c], [m, k]);
      const want = new Float64Array(m * m);
      for (let j = 0; j < m; j++)
        for (let p = 0; p < k; p++)
          for (let i = 0; i < m; i++) want[i + j * m]! += a[i + p * m]! * b[p + j * k]!;
      close(got!, want, 1e-5 * k, 'matmul2d');
    });
  }

  test('the CPU stencil half sweep is the red-black 7-point update of its definition', () => {
    // A whole 6 x 6 x 5 grid in one block (no neighbours): every interior point of the colour.
    const x = 6;
    const z = 5;
    const u = tile(x * 6, 50).slice(0, x * x * z);
    for (const parity of [0, 1]) {
      const want = Float64Array.from(u);
      let updated = 0;
      for (let k = 1; k < z - 1; k++)
        for (let j = 1; j < x - 1; j++)
          for (let i = 1; i < x - 1; i++) {
            if ((i + j + k) % 2 !== parity) continue;
            const at = (ii: number, jj: number, kk: number) => u[ii + jj * x + kk * x * x]!;
            const s =
              at(i - 1, j, k) +
              at(i + 1, j, k) +
              at(i, j - 1, k) +
              at(i, j + 1, k) +
              at(i, j, k - 1) +
              at(i, j, k + 1);
            want[i + j * x + k * x * x] = STENCIL_A * at(i, j, k) + STENCIL_B * s;
            updated++;
          }
      assert.equal(updated, 24, 'half of the 4 x 4 x 3 interior points');
      const got = Float32Array.from(u);
      stencilUpdate(got, x, 0, parity, null, null);
      close(got, want, 1e-6, `stencil parity ${parity}`);
    }
  });

  for (const [lower, upper] of [
    [true, true],
    [false, true],
    [true, false],
    [false, false],
  ] as const) {
    test(`stencil half sweep of a 12 x 12 x 5 block, lower ${lower}, upper ${upper}`, async () => {
      const x = 12;
      const p = x * x;
      const block = tile(x * 5, 60).slice(0, p * 5);
      const lo = tile(x, 61);
      const up = tile(x, 62);
      for (const parity of [0, 1]) {
        const data = [...(lower ? [lo] : []), block, ...(upper ? [up] : [])];
        const got = await runWgsl(dev, stencilWgsl, data, [x, parity, 7, lower ? 1 : 0, upper ? 1 : 0]);
        const want = Float32Array.from(block);
        stencilUpdate(want, x, 7, parity, lower ? lo : null, upper ? up : null);
        let changed = 0;
        for (let i = 0; i < want.length; i++) if (want[i] !== block[i]) changed++;
        assert.ok(changed > 0, 'the sweep changed points');
        close(got[lower ? 1 : 0]!, Float64Array.from(want), 1e-6, `stencil parity ${parity}`);
      }
    });
  }

  test('halo copy: the lowest and highest planes of a 12 x 12 x 3 block', async () => {
    const x = 12;
    const p = x * x;
    const block = tile(x * 3, 70).slice(0, p * 3);
    const got = await runWgsl(dev, haloWgsl, [block, new Float32Array(p), new Float32Array(p)], [x, 1, 1]);
    const bottom = new Float32Array(p);
    const top = new Float32Array(p);
    haloCopy(block, p, bottom, top);
    assert.deepEqual(got[1], bottom);
    assert.deepEqual(got[2], top);
    assert.deepEqual(bottom, block.subarray(0, p));
    assert.deepEqual(top, block.subarray(2 * p));
    const [, onlyTop] = await runWgsl(dev, haloWgsl, [block, new Float32Array(p)], [x, 0, 1]);
    assert.deepEqual(onlyTop, top);
  });

  test('a kernel whose WGSL does not compile rejects with the GPU message, every time', async () => {
    const bad = {
      source: () => '@compute @workgroup_size(1) fn main() { let x = nope; }',
      workgroups: () => [1, 1, 1] as const,
      params: () => new Uint32Array(1),
    };
    // Twice: the cached pipeline reports its compilation error again, not "invalid due to a previous error".
    for (let i = 0; i < 2; i++)
      await assert.rejects(runWgsl(dev, bad, [tile(4, 1)], []), /WebGPU error in a kernel on gpu0: .*nope/);
  });
});
