/** The JavaScript CPU tile kernels against naive references, in both precisions, plus tiled drivers and residuals. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assemble,
  choleskyResidual,
  cloneTiles,
  diagDominantTiles,
  gemmRef,
  getrfRef,
  luResidual,
  mulberry32,
  type Precision,
  potrfRef,
  randomTile,
  relativeDifference,
  spdMatrixTiles,
  stencil7,
  stencil7Ref,
  stencilInPlace,
  syrkRef,
  type Tile,
  tiledCholesky,
  tiledGemm,
  tiledLu,
  trsmLeftLowerUnitRef,
  trsmRightLowerTransRef,
  trsmRightUpperRef,
} from '../src/kernels/index.ts';
// The JavaScript kernels themselves (the index's run the addon where it is built).
import {
  gemm,
  getrf,
  potrf,
  syrk,
  trsmLeftLowerUnit,
  trsmRightLowerTrans,
  trsmRightUpper,
} from '../src/kernels/javascript.ts';

const SIZES = [1, 2, 3, 7, 16, 33, 64];
const PRECISIONS: Precision[] = ['double', 'single'];
const TOL: Record<Precision, number> = { double: 1e-12, single: 1e-4 };

/** A float64 copy of a tile, for references computed in double whatever the kernel's precision. */
function f64(t: Tile): Float64Array {
  return Float64Array.from(t);
}

/** A diagonally dominant n x n tile (every triangle of it is well conditioned). */
function dominant(n: number, seed: number, p: Precision): Tile {
  return diagDominantTiles(1, n, seed, p)[0]!;
}

function close(got: Tile, want: Tile, p: Precision, what: string): void {
  const d = relativeDifference(got, want);
  assert.ok(d <= TOL[p], `${what}: relative difference ${d} > ${TOL[p]}`);
}

describe('gemm', () => {
  for (const p of PRECISIONS) {
    test(`all transposition cases and alpha/beta against the naive loop (${p})`, () => {
      let seed = 1;
      for (const n of SIZES) {
        for (const [transA, transB, alpha, beta] of [
          [false, false, -1, 1],
          [false, true, -1, 1],
          [true, false, 0.75, -0.5],
          [true, true, 2, 0],
          [false, false, 1, 1],
          [false, true, 0, 3],
        ] as const) {
          const a = randomTile(n * n, seed++, p);
          const b = randomTile(n * n, seed++, p);
          const c = randomTile(n * n, seed++, p);
          const want = f64(c);
          gemmRef(f64(a), f64(b), want, n, transA, transB, alpha, beta);
          gemm(a, b, c, n, transA, transB, alpha, beta);
          close(c, want, p, `n=${n} transA=${transA} transB=${transB} alpha=${alpha} beta=${beta}`);
        }
      }
    });
  }

  test('defaults give C += A B; beta = 0 ignores NaNs in C; n = 0 is a no-op', () => {
    const n = 5;
    const a = randomTile(n * n, 11, 'double');
    const b = randomTile(n * n, 12, 'double');
    const c = randomTile(n * n, 13, 'double');
    const want = f64(c);
    gemmRef(a, b, want, n);
    gemm(a, b, c, n);
    close(c, want, 'double', 'defaults');
    const nan = new Float64Array(n * n).fill(Number.NaN);
    gemm(a, b, nan, n, false, false, 1, 0);
    gemmRef(a, b, want, n, false, false, 1, 0);
    close(nan, want, 'double', 'beta = 0');
    gemm(new Float64Array(0), new Float64Array(0), new Float64Array(0), 0);
  });

  test('mixed precisions: float32 A and B into a float64 C', () => {
    const n = 9;
    const a = randomTile(n * n, 21, 'single');
    const b = randomTile(n * n, 22, 'single');
    const c = randomTile(n * n, 23, 'double');
    const want = f64(c);
    gemmRef(a, b, want, n, false, true, -1, 1);
    gemm(a, b, c, n, false, true, -1, 1);
    close(c, want, 'double', 'mixed');
  });

  test('short tiles and bad sizes are RangeErrors', () => {
    assert.throws(() => gemm(new Float64Array(3), new Float64Array(4), new Float64Array(4), 2), RangeError);
    assert.throws(() => gemm(new Float64Array(4), new Float64Array(4), new Float64Array(4), 1.5), RangeError);
  });
});

describe('potrf', () => {
  for (const p of PRECISIONS) {
    test(`lower Cholesky against Cholesky-Crout, upper part untouched (${p})`, () => {
      for (const n of SIZES) {
        const a = spdMatrixTiles(1, n, 100 + n, p)[0]!;
        // Junk in the strict upper triangle: potrf must neither read nor change it.
        for (let j = 0; j < n; j++) for (let i = 0; i < j; i++) a[i + j * n] = 1e6 + i - j;
        const before = a.slice();
        const want = f64(a);
        potrfRef(want, n);
        potrf(a, n);
        close(a, want, p, `n=${n}`);
        for (let j = 0; j < n; j++) for (let i = 0; i < j; i++) assert.equal(a[i + j * n], before[i + j * n]);
      }
    });

    test(`throws on a non-positive pivot, naming the column (${p})`, () => {
      for (const [n, col] of [
        [1, 0],
        [6, 4],
        [64, 40],
      ] as const) {
        const a = spdMatrixTiles(1, n, 7, p)[0]!;
        a[col + col * n] = -1;
        assert.throws(() => potrf(a, n), { message: `potrf: matrix not positive definite at column ${col}` });
        assert.throws(() => potrfRef(f64(a), n), {
          message: `potrf: matrix not positive definite at column ${col}`,
        });
      }
      const nan = spdMatrixTiles(1, 3, 7, p)[0]!;
      nan[4] = Number.NaN;
      assert.throws(() => potrf(nan, 3), { message: 'potrf: matrix not positive definite at column 1' });
    });
  }
});

describe('trsm', () => {
  const cases = [
    ['trsmRightLowerTrans', trsmRightLowerTrans, trsmRightLowerTransRef],
    ['trsmLeftLowerUnit', trsmLeftLowerUnit, trsmLeftLowerUnitRef],
    ['trsmRightUpper', trsmRightUpper, trsmRightUpperRef],
  ] as const;
  for (const p of PRECISIONS) {
    for (const [name, kernel, ref] of cases) {
      test(`${name} against substitution (${p})`, () => {
        for (const n of SIZES) {
          // A full dominant tile: the kernel must read only its own triangle.
          const t = dominant(n, 200 + n, p);
          const b = randomTile(n * n, 300 + n, p);
          const want = f64(b);
          ref(f64(t), want, n);
          const tBefore = t.slice();
          kernel(t, b, n);
          close(b, want, p, `n=${n}`);
          assert.deepEqual(t, tBefore);
        }
      });
    }
  }
});

describe('syrk', () => {
  for (const p of PRECISIONS) {
    test(`C -= A A^T on the lower triangle, upper untouched (${p})`, () => {
      for (const n of SIZES) {
        const a = randomTile(n * n, 400 + n, p);
        const c = randomTile(n * n, 500 + n, p);
        const before = c.slice();
        const want = f64(c);
        syrkRef(f64(a), want, n);
        syrk(a, c, n);
        close(c, want, p, `n=${n}`);
        for (let j = 0; j < n; j++) for (let i = 0; i < j; i++) assert.equal(c[i + j * n], before[i + j * n]);
      }
    });
  }
});

describe('getrf', () => {
  for (const p of PRECISIONS) {
    test(`unpivoted LU against Doolittle (${p})`, () => {
      for (const n of SIZES) {
        const a = dominant(n, 600 + n, p);
        const want = f64(a);
        getrfRef(want, n);
        getrf(a, n);
        close(a, want, p, `n=${n}`);
      }
    });

    test(`throws on a zero pivot, naming the column (${p})`, () => {
      for (const [n, col] of [
        [1, 0],
        [5, 3],
        [64, 40],
      ] as const) {
        const a = new (p === 'double' ? Float64Array : Float32Array)(n * n);
        for (let i = 0; i < n; i++) a[i + i * n] = i === col ? 0 : 2;
        assert.throws(() => getrf(a, n), { message: `getrf: zero pivot at column ${col}` });
      }
    });
  }
});

describe('tiled drivers on 4 x 4 tiles of 32', () => {
  const nt = 4;
  const n = 32;
  for (const [p, tol] of [
    ['double', 1e-12],
    ['single', 1e-5],
  ] as const) {
    test(`Cholesky: ||A - L L^T|| / ||A|| small (${p})`, () => {
      const a = spdMatrixTiles(nt, n, 42, p);
      const l = cloneTiles(a);
      tiledCholesky(l, nt, n);
      const r = choleskyResidual(a, l, nt, n);
      assert.ok(r < tol, `residual ${r}`);
    });

    test(`LU: ||A - L U|| / ||A|| small (${p})`, () => {
      const a = diagDominantTiles(nt, n, 43, p);
      const lu = cloneTiles(a);
      tiledLu(lu, nt, n);
      const r = luResidual(a, lu, nt, n);
      assert.ok(r < tol, `residual ${r}`);
    });

    test(`GEMM: C += A B matches the whole-matrix product (${p})`, () => {
      const a = diagDominantTiles(nt, n, 44, p);
      const b = diagDominantTiles(nt, n, 45, p);
      const c = diagDominantTiles(nt, n, 46, p);
      const size = nt * n;
      const want = assemble(c, nt, n);
      gemmRef(assemble(a, nt, n), assemble(b, nt, n), want, size);
      tiledGemm(a, b, c, nt, n);
      const d = relativeDifference(assemble(c, nt, n), want);
      assert.ok(d < tol, `difference ${d}`);
    });
  }

  test('the tiled Cholesky agrees with potrf on the assembled matrix', () => {
    const a = spdMatrixTiles(nt, n, 47, 'double');
    const l = cloneTiles(a);
    tiledCholesky(l, nt, n);
    const whole = assemble(a, nt, n);
    potrf(whole, nt * n);
    assert.ok(relativeDifference(assemble(l, nt, n, 'lower'), assemble([whole], 1, nt * n, 'lower')) < 1e-12);
  });

  test('residuals see a wrong factor', () => {
    const a = spdMatrixTiles(2, 8, 48, 'double');
    const l = cloneTiles(a);
    tiledCholesky(l, 2, 8);
    l[1]![3] += 0.5;
    assert.ok(choleskyResidual(a, l, 2, 8) > 1e-4);
  });
});

describe('generators', () => {
  test('are deterministic from the seed and exactly symmetric / dominant', () => {
    assert.deepEqual(spdMatrixTiles(2, 3, 9, 'single'), spdMatrixTiles(2, 3, 9, 'single'));
    assert.notDeepEqual(spdMatrixTiles(2, 3, 9, 'double'), spdMatrixTiles(2, 3, 10, 'double'));
    const m = assemble(spdMatrixTiles(3, 4, 5, 'double'), 3, 4);
    const size = 12;
    for (let s = 0; s < size; s++) {
      let off = 0;
      for (let r = 0; r < size; r++) {
        assert.equal(m[r + s * size], m[s + r * size]);
        if (r !== s) off += Math.abs(m[r + s * size]!);
      }
      assert.ok(m[s + s * size]! > off);
    }
    const rnd = mulberry32(1);
    const first = rnd();
    assert.ok(first >= 0 && first < 1);
    assert.equal(mulberry32(1)(), first);
  });
});

describe('stencil7', () => {
  const shapes = [
    [1, 1, 1],
    [1, 3, 2],
    [3, 4, 5],
    [7, 5, 3],
    [16, 9, 4],
  ] as const;
  for (const p of PRECISIONS) {
    test(`matches the naive stencil, with and without halo planes (${p})`, () => {
      let seed = 900;
      for (const [nx, ny, nz] of shapes) {
        for (const halos of [false, true]) {
          const src = randomTile(nx * ny * nz, seed++, p);
          const below = halos ? randomTile(nx * ny, seed++, p) : null;
          const above = halos ? randomTile(nx * ny, seed++, p) : null;
          const got = randomTile(nx * ny * nz, seed++, p);
          const want = f64(got);
          stencil7(src, got, nx, ny, nz, below, above, 0.4, 0.1);
          stencil7Ref(f64(src), want, nx, ny, nz, below && f64(below), above && f64(above), 0.4, 0.1);
          close(got, want, p, `${nx}x${ny}x${nz} halos=${halos}`);

          const block = src.slice();
          const scratch = randomTile(2 * nx * ny, seed++, p);
          stencilInPlace(block, scratch, nx, ny, nz, below, above, 0.4, 0.1);
          assert.deepEqual(block, got, `in place ${nx}x${ny}x${nz}`);
        }
      }
    });
  }

  test('checks its sizes', () => {
    assert.throws(
      () => stencil7(new Float64Array(8), new Float64Array(7), 2, 2, 2, null, null, 1, 1),
      RangeError,
    );
    assert.throws(
      () => stencilInPlace(new Float64Array(8), new Float64Array(7), 2, 2, 2, null, null, 1, 1),
      RangeError,
    );
  });
});
