/**
 * The kernel addon (native/kernels, src/kernels/native) against naive references: gemm in
 * every transpose case, syrk on both triangles, trsm in every side, triangle, transpose and
 * diagonal form, potrf, LU with and without pivoting, in float32 and float64, on odd sizes
 * with offsets and leading dimensions larger than the rows; its argument checks; and every
 * task of the native table against the JavaScript task on the same tiles. Skipped, with the
 * reason, where the addon is not built (the JavaScript kernels then run everywhere).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mulberry32 } from '../src/kernels/generate.ts';
import { type KernelAddon, kernelAddon, kernelsReason, type Real } from '../src/kernels/native/addon.ts';
import { nativeTasks } from '../src/kernels/native/tasks.ts';
import * as JsTasks from '../src/kernels/tasks-js.ts';

const addon = kernelAddon();
const skip = addon === undefined ? { skip: kernelsReason() } : {};
const k = addon as KernelAddon;

type Ctor = Float32ArrayConstructor | Float64ArrayConstructor;
const TYPES: [string, Ctor, number][] = [
  ['float64', Float64Array, 1e-11],
  ['float32', Float32Array, 2e-4],
];

/** A rows x cols matrix stored from `off` with leading dimension `ld`, filled with values in [-1, 1). */
function matrix(T: Ctor, rows: number, cols: number, off: number, ld: number, seed: number): Real {
  if (ld < rows) throw new RangeError('ld < rows');
  const rand = mulberry32(seed);
  const a = new T(off + ld * Math.max(cols, 1) + 3);
  for (let i = 0; i < a.length; i++) a[i] = rand() * 2 - 1;
  return a;
}

/** Element (i, j) of op(X) for X at off with ld. */
const at = (x: Real, off: number, ld: number, trans: number, i: number, j: number) =>
  trans ? x[off + j + i * ld]! : x[off + i + j * ld]!;

/** Largest |x - y| over a rows x cols window, relative to the largest |y| (at least 1). */
function maxDiff(
  x: Real,
  y: Real,
  off: number,
  ld: number,
  rows: number,
  cols: number,
  keep?: (i: number, j: number) => boolean,
) {
  let d = 0;
  let s = 1;
  for (let j = 0; j < cols; j++)
    for (let i = 0; i < rows; i++) {
      if (keep && !keep(i, j)) continue;
      d = Math.max(d, Math.abs(x[off + i + j * ld]! - y[off + i + j * ld]!));
      s = Math.max(s, Math.abs(y[off + i + j * ld]!));
    }
  return d / s;
}

describe('kernel addon', skip, () => {
  test('info names the library and runs it on one thread', () => {
    const i = k.info();
    assert.match(i.library, /^(openblas \S+|blas)$/);
    assert.equal(i.threads, 1);
  });

  for (const [name, T, tol] of TYPES) {
    test(`${name} gemm, every transpose, offsets and leading dimensions`, () => {
      for (const [m, n, kk] of [
        [7, 5, 3],
        [1, 9, 4],
        [33, 17, 65],
      ] as const)
        for (const ta of [0, 1])
          for (const tb of [0, 1]) {
            const [ar, ac] = ta ? [kk, m] : [m, kk];
            const [br, bc] = tb ? [n, kk] : [kk, n];
            const a = matrix(T, ar, ac, 2, ar + 3, 1);
            const b = matrix(T, br, bc, 5, br + 1, 2);
            const c = matrix(T, m, n, 1, m + 2, 3);
            const want = c.slice();
            for (let j = 0; j < n; j++)
              for (let i = 0; i < m; i++) {
                let s = 0;
                for (let p = 0; p < kk; p++) s += at(a, 2, ar + 3, ta, i, p) * at(b, 5, br + 1, tb, p, j);
                want[1 + i + j * (m + 2)] = -0.5 * s + 2 * want[1 + i + j * (m + 2)]!;
              }
            k.gemm(ta, tb, m, n, kk, -0.5, a, 2, ar + 3, b, 5, br + 1, 2, c, 1, m + 2);
            assert.ok(maxDiff(c, want, 1, m + 2, m, n) < tol, `m=${m} n=${n} k=${kk} ta=${ta} tb=${tb}`);
            // Nothing outside C's window moved.
            for (let i = 0; i < c.length; i++) {
              const inside = i >= 1 && (i - 1) % (m + 2) < m && Math.floor((i - 1) / (m + 2)) < n;
              if (!inside) assert.equal(c[i], want[i]);
            }
          }
    });

    test(`${name} syrk on either triangle, with and without transpose`, () => {
      const n = 19;
      const kk = 11;
      for (const lower of [0, 1])
        for (const tr of [0, 1]) {
          const [ar, ac] = tr ? [kk, n] : [n, kk];
          const a = matrix(T, ar, ac, 3, ar + 2, 4);
          const c = matrix(T, n, n, 0, n + 1, 5);
          const want = c.slice();
          const inTri = (i: number, j: number) => (lower ? i >= j : i <= j);
          for (let j = 0; j < n; j++)
            for (let i = 0; i < n; i++) {
              if (!inTri(i, j)) continue;
              let s = 0;
              for (let p = 0; p < kk; p++) s += at(a, 3, ar + 2, tr, i, p) * at(a, 3, ar + 2, tr, j, p);
              want[i + j * (n + 1)] = -1 * s + want[i + j * (n + 1)]!;
            }
          k.syrk(lower, tr, n, kk, -1, a, 3, ar + 2, 1, c, 0, n + 1);
          assert.ok(maxDiff(c, want, 0, n + 1, n, n, inTri) < tol);
          // The other triangle is untouched.
          assert.equal(
            maxDiff(c, want, 0, n + 1, n, n, (i, j) => !inTri(i, j)),
            0,
          );
        }
    });

    test(`${name} trsm in all sixteen forms`, () => {
      const m = 13;
      const n = 9;
      for (const right of [0, 1])
        for (const lower of [0, 1])
          for (const ta of [0, 1])
            for (const unit of [0, 1]) {
              const na = right ? n : m;
              const a = matrix(T, na, na, 1, na + 2, 6);
              // A well-conditioned triangle: a heavy diagonal.
              for (let i = 0; i < na; i++) a[1 + i + i * (na + 2)] = 4 + i / na;
              const b = matrix(T, m, n, 2, m + 1, 7);
              const x = b.slice();
              k.trsm(right, lower, ta, unit, m, n, 2, a, 1, na + 2, x, 2, m + 1);
              // op(A) entries of the triangle only; the diagonal is 1 when unit.
              const opA = (i: number, j: number) => {
                const [r, c] = ta ? [j, i] : [i, j];
                if (r === c) return unit ? 1 : a[1 + r + c * (na + 2)]!;
                return (lower ? r > c : r < c) ? a[1 + r + c * (na + 2)]! : 0;
              };
              // Check op(A) X = 2 B (left) or X op(A) = 2 B (right).
              const back = b.slice();
              for (let j = 0; j < n; j++)
                for (let i = 0; i < m; i++) {
                  let s = 0;
                  if (right) for (let p = 0; p < n; p++) s += x[2 + i + p * (m + 1)]! * opA(p, j);
                  else for (let p = 0; p < m; p++) s += opA(i, p) * x[2 + p + j * (m + 1)]!;
                  back[2 + i + j * (m + 1)] = s / 2;
                }
              assert.ok(
                maxDiff(back, b, 2, m + 1, m, n) < tol * 10,
                `right=${right} lower=${lower} ta=${ta} unit=${unit}`,
              );
            }
    });

    test(`${name} potrf: L L^T = A, and a matrix that is not positive definite`, () => {
      const n = 70;
      const g = matrix(T, n, n, 0, n, 8);
      const a = new T(n * n);
      for (let j = 0; j < n; j++)
        for (let i = 0; i < n; i++) {
          let s = i === j ? n : 0;
          for (let p = 0; p < n; p++) s += (g[i + p * n]! * g[j + p * n]!) / n;
          a[i + j * n] = s;
        }
      const l = a.slice();
      assert.equal(k.potrf(1, n, l, 0, n), 0);
      const back = a.slice();
      for (let j = 0; j < n; j++)
        for (let i = j; i < n; i++) {
          let s = 0;
          for (let p = 0; p <= j; p++) s += l[i + p * n]! * l[j + p * n]!;
          back[i + j * n] = s;
        }
      assert.ok(maxDiff(back, a, 0, n, n, n, (i, j) => i >= j) < tol);
      const bad = a.slice();
      bad[5 + 5 * n] = -1;
      assert.equal(k.potrf(1, n, bad, 0, n), 6);
    });

    for (const pivot of [false, true])
      test(`${name} LU ${pivot ? 'with partial pivoting' : 'without pivoting'} across panel boundaries: P A = L U`, () => {
        for (const [m, n] of [
          [130, 90],
          [40, 70],
        ] as const) {
          const lda = m + 3;
          const a = matrix(T, m, n, 2, lda, 9);
          if (!pivot) for (let i = 0; i < Math.min(m, n); i++) a[2 + i + i * lda] = m + n;
          const lu = a.slice();
          const mn = Math.min(m, n);
          const ipiv = new Int32Array(mn + 1);
          const info = pivot ? k.getrf(m, n, lu, 2, lda, ipiv, 1) : k.getrfNoPiv(m, n, lu, 2, lda);
          assert.equal(info, 0);
          // P A: the interchanges applied in order.
          const pa = a.slice();
          if (pivot)
            for (let r = 0; r < mn; r++) {
              const p = ipiv[1 + r]!;
              assert.ok(p >= r && p < m);
              for (let j = 0; j < n; j++) {
                const x = pa[2 + r + j * lda]!;
                pa[2 + r + j * lda] = pa[2 + p + j * lda]!;
                pa[2 + p + j * lda] = x;
              }
            }
          const back = pa.slice();
          for (let j = 0; j < n; j++)
            for (let i = 0; i < m; i++) {
              let s = 0;
              for (let p = 0; p <= Math.min(i, j, mn - 1); p++) {
                const l = p === i ? 1 : lu[2 + i + p * lda]!;
                s += l * lu[2 + p + j * lda]!;
              }
              back[2 + i + j * lda] = s;
            }
          assert.ok(maxDiff(back, pa, 2, lda, m, n) < tol * 10, `m=${m} n=${n}`);
        }
      });
  }

  test('a zero pivot without pivoting is its 1-based column', () => {
    const a = Float64Array.from([1, 2, 3, 6]); // 2 x 2: second pivot 6 - 2 * 3 = 0
    assert.equal(k.getrfNoPiv(2, 2, a, 0, 2), 2);
  });

  test('bad arguments are one-line TypeErrors and RangeErrors, never a crash', () => {
    const f = new Float32Array(16);
    assert.throws(() => k.gemm(0, 0, 4, 4, 4, 1, new Float32Array(15), 0, 4, f, 0, 4, 0, f, 0, 4), {
      name: 'RangeError',
      message:
        /gemm: A: a 4 x 4 matrix at offset 0 with leading dimension 4 needs 16 elements, the array has 15/,
    });
    assert.throws(() => k.gemm(0, 0, 4, 4, 4, 1, f, 0, 4, new Float64Array(16), 0, 4, 0, f, 0, 4), {
      name: 'TypeError',
      message: /gemm: B must be a Float32Array/,
    });
    assert.throws(
      () => k.trsm(0, 1, 0, 1, 4, 4, 1, f, 0, 3, f, 0, 4),
      /trsm: A: offset 0 and leading dimension 3 are invalid/,
    );
    assert.throws(
      () => k.potrf(1, 4, new Int32Array(16) as never, 0, 4),
      /potrf: A must be a Float32Array or a Float64Array/,
    );
    assert.throws(() => k.getrf(4, 4, f, 0, 4, new Int32Array(3), 0), /getrf: ipiv is too short/);
    assert.throws(
      () => k.getrf(4, 4, f, 0, 4, new Float32Array(4) as never, 0),
      /getrf: ipiv must be an Int32Array/,
    );
    assert.throws(
      () => (k.gemm as (...a: unknown[]) => void)(0, 0, 4),
      /gemm: 3 arguments given, 16 expected/,
    );
    assert.throws(
      () => k.gemm(0, 0, 4.5, 4, 4, 1, f, 0, 4, f, 0, 4, 0, f, 0, 4),
      /gemm: m must be an integer/,
    );
  });
});

describe('native task table against the JavaScript tasks', skip, () => {
  const T = nativeTasks(k);
  const Js: Readonly<
    Record<keyof typeof JsTasks, (d: readonly ArrayLike<number>[], a: Float64Array) => void>
  > = { ...JsTasks };
  for (const [name, Ctor, tol] of TYPES) {
    const n = 37;
    const tiles = (count: number, seed: number, spd = false) =>
      Array.from({ length: count }, (_, t) => {
        const x = matrix(Ctor, n, n, 0, n, seed + t).subarray(0, n * n) as Real;
        if (spd) {
          // Diagonally dominant and symmetric: positive definite.
          for (let j = 0; j < n; j++) for (let i = 0; i < j; i++) x[i + j * n] = x[j + i * n]!;
          for (let i = 0; i < n; i++) x[i + i * n] = 2 * n;
        }
        return x;
      });
    const args = Float64Array.from([n]);
    const cases: [keyof typeof JsTasks, () => Real[], number[]][] = [
      ['potrfTask', () => tiles(1, 10, true), [0]],
      ['trsmCholeskyTask', () => [...tiles(1, 11, true), ...tiles(1, 12)], [1]],
      ['syrkTask', () => tiles(2, 13), [1]],
      ['gemmCholeskyTask', () => tiles(3, 14), [2]],
      ['getrfTask', () => tiles(1, 15, true), [0]],
      ['trsmLuRowTask', () => [...tiles(1, 16, true), ...tiles(1, 17)], [1]],
      ['trsmLuColumnTask', () => [...tiles(1, 18, true), ...tiles(1, 19)], [1]],
      ['gemmLuTask', () => tiles(3, 20), [2]],
      ['gemmTask', () => tiles(3, 21), [2]],
    ];
    for (const [task, make, written] of cases)
      test(`${name} ${task}`, () => {
        const a = make();
        const b = a.map((x) => x.slice());
        // The Cholesky tasks write lower triangles: make the JavaScript pass see the same.
        T[task](a, args);
        Js[task](b, args);
        for (const w of written) {
          const lowerOnly = task === 'potrfTask' || task === 'syrkTask';
          assert.ok(
            maxDiff(a[w]!, b[w]!, 0, n, n, n, lowerOnly ? (i, j) => i >= j : undefined) < tol * 10,
            task,
          );
        }
      });
    test(`${name} matmul2dTask (m x k by k x m)`, () => {
      const m = 12;
      const kk = 20;
      const a = [
        matrix(Ctor, m, kk, 0, m, 30).subarray(0, m * kk),
        matrix(Ctor, kk, m, 0, kk, 31).subarray(0, m * kk),
        new Ctor(m * m),
      ];
      const b = a.map((x) => x.slice());
      T.matmul2dTask(a, Float64Array.from([m, kk]));
      Js.matmul2dTask(b, Float64Array.from([m, kk]));
      assert.ok(maxDiff(a[2]!, b[2]!, 0, m, m, m) < tol);
    });
  }

  test('float64 panelTask and laswpTrsmTask: the same pivots and factors as the JavaScript panel', () => {
    const b = 16;
    const count = 4;
    const col = () =>
      Array.from(
        { length: count },
        (_, t) => matrix(Float64Array, b, b, 0, b, 40 + t).subarray(0, b * b) as Float64Array,
      );
    const a = [new Int32Array(b), ...col()];
    const j = [new Int32Array(b), ...a.slice(1).map((x) => (x as Float64Array).slice())];
    T.panelTask(a, Float64Array.from([b]));
    Js.panelTask(j, Float64Array.from([b]));
    assert.deepEqual([...(a[0] as Int32Array)], [...(j[0] as Int32Array)]);
    for (let t = 1; t <= count; t++) assert.ok(maxDiff(a[t] as Real, j[t] as Real, 0, b, b, b) < 1e-11);
    // The row interchanges and the row-panel solve on another column.
    const other = col();
    const x = [a[0]!, a[1]!, ...other];
    const y = [j[0]!, j[1]!, ...other.map((t) => t.slice())];
    T.laswpTrsmTask(x, Float64Array.from([b]));
    Js.laswpTrsmTask(y, Float64Array.from([b]));
    for (let t = 2; t < x.length; t++) assert.ok(maxDiff(x[t] as Real, y[t] as Real, 0, b, b, b) < 1e-11);
  });

  test('numerical failures read as the JavaScript kernels say them', () => {
    const n = 4;
    const bad = new Float64Array(n * n); // zero matrix: not positive definite, zero pivots
    assert.throws(
      () => T.potrfTask([bad.slice()], Float64Array.from([n])),
      /potrf: matrix not positive definite at column 0/,
    );
    assert.throws(() => T.getrfTask([bad.slice()], Float64Array.from([n])), /getrf: zero pivot at column 0/);
    assert.throws(
      () => T.panelTask([new Int32Array(n), bad.slice()], Float64Array.from([n])),
      /getrf: the matrix is singular \(column 0 of the panel is zero\)/,
    );
  });
});

describe(
  'locus-runtime/kernels: the public kernels dispatch to the addon with the JavaScript contract',
  skip,
  () => {
    const n = 24;
    for (const [name, Ctor, tol] of TYPES) {
      test(`${name}: each public kernel equals the JavaScript one`, async () => {
        const Public = await import('../src/kernels/native/dispatch.ts');
        const Js = await import('../src/kernels/javascript.ts');
        const tile = (seed: number, spd = false) => {
          const x = matrix(Ctor, n, n, 0, n, seed).subarray(0, n * n) as Real;
          if (spd) {
            for (let j = 0; j < n; j++) for (let i = 0; i < j; i++) x[i + j * n] = x[j + i * n]!;
            for (let i = 0; i < n; i++) x[i + i * n] = 2 * n;
          }
          return x;
        };
        const pairs: [string, (p: typeof Public) => Real, boolean][] = [
          [
            'gemm',
            (p) => {
              const c = tile(3);
              p.gemm(tile(1), tile(2), c, n, false, true, -1, 1);
              return c;
            },
            false,
          ],
          [
            'potrf',
            (p) => {
              const a = tile(4, true);
              p.potrf(a, n);
              return a;
            },
            true,
          ],
          [
            'syrk',
            (p) => {
              const c = tile(5);
              p.syrk(tile(6), c, n);
              return c;
            },
            true,
          ],
          [
            'getrf',
            (p) => {
              const a = tile(7, true);
              p.getrf(a, n);
              return a;
            },
            false,
          ],
          [
            'trsmRightLowerTrans',
            (p) => {
              const b = tile(8);
              p.trsmRightLowerTrans(tile(9, true), b, n);
              return b;
            },
            false,
          ],
          [
            'trsmLeftLowerUnit',
            (p) => {
              const b = tile(10);
              p.trsmLeftLowerUnit(tile(11, true), b, n);
              return b;
            },
            false,
          ],
          [
            'trsmRightUpper',
            (p) => {
              const b = tile(12);
              p.trsmRightUpper(tile(13, true), b, n);
              return b;
            },
            false,
          ],
        ];
        for (const [kernel, run, lower] of pairs) {
          const got = run(Public);
          const want = run(Js as unknown as typeof Public);
          assert.ok(maxDiff(got, want, 0, n, n, n, lower ? (i, j) => i >= j : undefined) < tol * 10, kernel);
        }
      });
    }

    test('mixed precisions run the JavaScript kernel; bad lengths fail as the JavaScript kernels do', async () => {
      const Public = await import('../src/kernels/native/dispatch.ts');
      const c = new Float64Array(n * n);
      Public.gemm(new Float32Array(n * n).fill(1), new Float64Array(n * n).fill(1), c, n);
      assert.equal(c[0], n);
      assert.throws(
        () => Public.gemm(new Float64Array(3), c, c, n),
        /gemm: a has 3 elements, needs at least 576/,
      );
      assert.throws(
        () => Public.trsmRightUpper(new Float64Array(3), c, n),
        /trsmRightUpper: triangle has 3 elements/,
      );
      assert.throws(() => Public.setBlasThreads(0), /setBlasThreads: 0 is not a positive integer/);
    });
  },
);
