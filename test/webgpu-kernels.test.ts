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
import type { LogicalDevice } from '../src/webgpu/device.ts';
import { createLogicalDevice } from '../src/webgpu/device.ts';
import { runWgsl } from '../src/webgpu/dispatch.ts';
import { gemmWgsl, syrkWgsl } from '../src/webgpu/gemm.ts';
import { jacobiWgsl } from '../src/webgpu/jacobi.ts';
import { trsmWgsl } from '../src/webgpu/trsm.ts';
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
    test(`TRSM variant ${variant}, n = 64`, async () => {
      const n = 64;
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
