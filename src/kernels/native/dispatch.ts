/**
 * The public tile kernels (`locus-runtime/kernels`): the JavaScript kernels' signatures and
 * checks, run by the kernel addon's BLAS and LAPACK when it is loaded and the tiles share one
 * precision (the JavaScript kernels also mix float32 and float64 tiles; those calls, and every
 * call without the addon, run the JavaScript kernels). Each call costs one Node-API call over
 * the BLAS's own time: about a microsecond (docs/kernels.md).
 */
import { gemm as gemmJs } from '../gemm.ts';
import { getrf as getrfJs } from '../getrf.ts';
import { potrf as potrfJs } from '../potrf.ts';
import { syrk as syrkJs } from '../syrk.ts';
import {
  trsmLeftLowerUnit as trsmLeftLowerUnitJs,
  trsmRightLowerTrans as trsmRightLowerTransJs,
  trsmRightUpper as trsmRightUpperJs,
} from '../trsm.ts';
import { checkLength, checkSize, type Tile } from '../types.ts';
import { kernelAddon } from './addon.ts';

const k = kernelAddon();

/** Whether the tiles can go to the addon: it is loaded and they share one precision. */
function same(a: Tile, b: Tile, c?: Tile): boolean {
  if (k === undefined) return false;
  const single = a instanceof Float32Array;
  return b instanceof Float32Array === single && (c === undefined || c instanceof Float32Array === single);
}

/** Checks n and the two tiles of a triangular solve, as the JavaScript kernels do. */
function checkTwo(kernel: string, x: Tile, y: Tile, n: number): void {
  checkSize(kernel, 'n', n);
  checkLength(kernel, 'triangle', x, n * n);
  checkLength(kernel, 'b', y, n * n);
}

/** C = alpha op(A) op(B) + beta C on n x n tiles (src/kernels/gemm.ts's contract). */
export function gemm(
  a: Tile,
  b: Tile,
  c: Tile,
  n: number,
  transA = false,
  transB = false,
  alpha = 1,
  beta = 1,
): void {
  if (!same(a, b, c)) {
    gemmJs(a, b, c, n, transA, transB, alpha, beta);
    return;
  }
  checkSize('gemm', 'n', n);
  checkLength('gemm', 'a', a, n * n);
  checkLength('gemm', 'b', b, n * n);
  checkLength('gemm', 'c', c, n * n);
  if (n > 0) k!.gemm(transA ? 1 : 0, transB ? 1 : 0, n, n, n, alpha, a, 0, n, b, 0, n, beta, c, 0, n);
}

/** Lower Cholesky of an n x n tile in place (src/kernels/potrf.ts's contract). */
export function potrf(a: Tile, n: number): void {
  if (k === undefined) {
    potrfJs(a, n);
    return;
  }
  checkSize('potrf', 'n', n);
  checkLength('potrf', 'a', a, n * n);
  const info = n > 0 ? k.potrf(1, n, a, 0, n) : 0;
  if (info > 0) throw new Error(`potrf: matrix not positive definite at column ${info - 1}`);
}

/** C -= A A^T on the lower triangle of n x n tiles (src/kernels/syrk.ts's contract). */
export function syrk(a: Tile, c: Tile, n: number): void {
  if (!same(a, c)) {
    syrkJs(a, c, n);
    return;
  }
  checkSize('syrk', 'n', n);
  checkLength('syrk', 'a', a, n * n);
  checkLength('syrk', 'c', c, n * n);
  if (n > 0) k!.syrk(1, 0, n, n, -1, a, 0, n, 1, c, 0, n);
}

/** LU without pivoting of an n x n tile in place (src/kernels/getrf.ts's contract). */
export function getrf(a: Tile, n: number): void {
  if (k === undefined) {
    getrfJs(a, n);
    return;
  }
  checkSize('getrf', 'n', n);
  checkLength('getrf', 'a', a, n * n);
  const info = n > 0 ? k.getrfNoPiv(n, n, a, 0, n) : 0;
  if (info > 0) throw new Error(`getrf: zero pivot at column ${info - 1}`);
}

/**
 * A triangular solve on n x n tiles with the JavaScript kernel's contract: the addon's trsm in
 * the form (right, lower, transA, unitDiag) where the tiles share a precision, `js` otherwise.
 */
function trsmOf(
  name: string,
  js: (t: Tile, b: Tile, n: number) => void,
  form: readonly [right: number, lower: number, transA: number, unitDiag: number],
): (t: Tile, b: Tile, n: number) => void {
  const [right, lower, transA, unit] = form;
  return (t, b, n) => {
    if (!same(t, b)) {
      js(t, b, n);
      return;
    }
    checkTwo(name, t, b, n);
    if (n > 0) k!.trsm(right, lower, transA, unit, n, n, 1, t, 0, n, b, 0, n);
  };
}

/** B = B L^-T, L lower (the Cholesky panel solve; src/kernels/trsm.ts's contract). */
export const trsmRightLowerTrans = trsmOf('trsmRightLowerTrans', trsmRightLowerTransJs, [1, 1, 1, 0]);

/** B = L^-1 B, L unit lower (the LU row-panel solve; src/kernels/trsm.ts's contract). */
export const trsmLeftLowerUnit = trsmOf('trsmLeftLowerUnit', trsmLeftLowerUnitJs, [0, 1, 0, 1]);

/** B = B U^-1, U upper (the LU column-panel solve; src/kernels/trsm.ts's contract). */
export const trsmRightUpper = trsmOf('trsmRightUpper', trsmRightUpperJs, [1, 0, 0, 0]);

/**
 * Opt in to a multithreaded BLAS inside a task: the library's own thread count (OpenBLAS,
 * BLIS or MKL). By default Locus runs it on one thread per worker, one worker per core, as
 * StarPU does. Returns false where the library offers no such call or the addon is not loaded.
 */
export function setBlasThreads(n: number): boolean {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`setBlasThreads: ${n} is not a positive integer`);
  return k?.setThreads(n) ?? false;
}
