/**
 * The JavaScript tile kernels as worker threads call them (the fallback and the reference of
 * the native ones: src/kernels/tasks.ts chooses): `(data, args)`, one view per task access in
 * access order, args[0] the tile edge n. These are the CPU implementations of the dense
 * linear-algebra workloads of src/workloads (tiled Cholesky, LU without pivoting, GEMM),
 * named after the access pattern they expect. The tile edge is converted to an integer (`| 0`):
 * read from a Float64Array it is a double, and V8 then compiles the kernels' index arithmetic
 * in floating point, a third slower.
 */
import { blockProduct } from './block-product.ts';
import { gemm } from './gemm.ts';
import { getrf } from './getrf.ts';
import { laswp, panelGetrf } from './getrf-pivot.ts';
import { jacobiBlock } from './jacobi.ts';
import { potrf } from './potrf.ts';
import { haloCopy, stencilUpdate } from './stencil3d.ts';
import { syrk } from './syrk.ts';
import { trsmLeftLowerUnit, trsmRightLowerTrans, trsmRightUpper } from './trsm.ts';
import type { Tile } from './types.ts';

type Views = readonly ArrayLike<number>[];
const t = (data: Views, i: number): Tile => data[i] as Tile;

/** POTRF: [A_kk RW] = L_kk (Cholesky). */
export function potrfTask(data: Views, args: Float64Array): void {
  potrf(t(data, 0), args[0]! | 0);
}

/** Cholesky panel TRSM: [L_kk R, A_ik RW], A_ik = A_ik L_kk^-T. */
export function trsmCholeskyTask(data: Views, args: Float64Array): void {
  trsmRightLowerTrans(t(data, 0), t(data, 1), args[0]! | 0);
}

/** Cholesky SYRK: [A_ik R, A_ii RW], A_ii -= A_ik A_ik^T. */
export function syrkTask(data: Views, args: Float64Array): void {
  syrk(t(data, 0), t(data, 1), args[0]! | 0);
}

/** Cholesky update: [A_ik R, A_jk R, A_ij RW], A_ij -= A_ik A_jk^T. */
export function gemmCholeskyTask(data: Views, args: Float64Array): void {
  gemm(t(data, 0), t(data, 1), t(data, 2), args[0]! | 0, false, true, -1, 1);
}

/** GETRF without pivoting: [A_kk RW] = L_kk \ U_kk (packed, unit L). */
export function getrfTask(data: Views, args: Float64Array): void {
  getrf(t(data, 0), args[0]! | 0);
}

/** LU row panel: [A_kk R, A_kj RW], U_kj = L_kk^-1 A_kj. */
export function trsmLuRowTask(data: Views, args: Float64Array): void {
  trsmLeftLowerUnit(t(data, 0), t(data, 1), args[0]! | 0);
}

/** LU column panel: [A_kk R, A_ik RW], L_ik = A_ik U_kk^-1. */
export function trsmLuColumnTask(data: Views, args: Float64Array): void {
  trsmRightUpper(t(data, 0), t(data, 1), args[0]! | 0);
}

/** LU update: [A_ik R, A_kj R, A_ij RW], A_ij -= A_ik A_kj. */
export function gemmLuTask(data: Views, args: Float64Array): void {
  gemm(t(data, 0), t(data, 1), t(data, 2), args[0]! | 0, false, false, -1, 1);
}

/** Matrix product step: [A_ik R, B_kj R, C_ij RW], C_ij += A_ik B_kj. */
export function gemmTask(data: Views, args: Float64Array): void {
  gemm(t(data, 0), t(data, 1), t(data, 2), args[0]! | 0, false, false, 1, 1);
}

/** LU with pivoting, panel: [piv W, A_kk .. A_(N-1)k RW] (float64), pivots into piv. */
export function panelTask(data: Views, args: Float64Array): void {
  panelGetrf(data.slice(1) as Float64Array[], args[0]! | 0, data[0] as Int32Array);
}

/** Interchanges then panel-row TRSM: [piv R, A_kk R, A_kj .. A_(N-1)j RW], U_kj = L_kk^-1 A_kj. */
export function laswpTrsmTask(data: Views, args: Float64Array): void {
  const b = args[0]! | 0;
  const column = data.slice(2) as Float64Array[];
  laswp(column, b, data[0] as Int32Array);
  trsmLeftLowerUnit(t(data, 1), column[0]!, b);
}

/** Interchanges of a column of L: [piv R, A_kj .. A_(N-1)j RW]. */
export function laswpTask(data: Views, args: Float64Array): void {
  laswp(data.slice(1) as Float64Array[], args[0]! | 0, data[0] as Int32Array);
}

/**
 * One Jacobi sweep of a block of rows (the `jacobi` workload): [above R]?, the block's source
 * row segments R, [below R]?, its destination row segments W; args = [n (row length), 1 if
 * there is an above row, 1 if there is a below row, number of segments per grid].
 */
export function jacobiTask(data: Views, args: Float64Array): void {
  const n = args[0]! | 0;
  const hasAbove = args[1]! !== 0;
  const hasBelow = args[2]! !== 0;
  const segs = args[3]! | 0;
  let i = 0;
  const above = hasAbove ? t(data, i++) : null;
  const src = data.slice(i, i + segs) as Tile[];
  i += segs;
  const below = hasBelow ? t(data, i++) : null;
  const dst = data.slice(i, i + segs) as Tile[];
  jacobiBlock(src, dst, n, above, below);
}

/**
 * Block product of matmul2d (seed 000): [A R (m x k), B R (k x m), C W (m x m)], C = A B;
 * args = [m, k].
 */
export function matmul2dTask(data: Views, args: Float64Array): void {
  const m = args[0]! | 0;
  blockProduct(t(data, 0), t(data, 1), t(data, 2), m, m, args[1]! | 0);
}

/**
 * One red-black half sweep of a stencil block (src/kernels/stencil3d.ts): [lower R]?,
 * block RW, [upper R]?; args = [X (plane edge), parity, z0 (the block's first global plane),
 * 1 if there is a lower plane, 1 if there is an upper plane].
 */
export function stencilTask(data: Views, args: Float64Array): void {
  const hasLower = args[3]! !== 0;
  const hasUpper = args[4]! !== 0;
  const b = hasLower ? 1 : 0;
  stencilUpdate(
    t(data, b),
    args[0]! | 0,
    args[2]! | 0,
    args[1]! | 0,
    hasLower ? t(data, 0) : null,
    hasUpper ? t(data, b + 1) : null,
  );
}

/**
 * A stencil block's boundary planes into its halos: block R, [bottom W]?, [top W]?; args =
 * [X (plane edge), 1 if there is a bottom halo, 1 if there is a top halo].
 */
export function haloTask(data: Views, args: Float64Array): void {
  const x = args[0]! | 0;
  const hasBottom = args[1]! !== 0;
  const hasTop = args[2]! !== 0;
  haloCopy(t(data, 0), x * x, hasBottom ? t(data, 1) : null, hasTop ? t(data, hasBottom ? 2 : 1) : null);
}

/** A Task Bench task (src/kernels/taskbench.ts: the same in both tables, it calls no BLAS). */
export { taskbenchTask } from './taskbench.ts';
