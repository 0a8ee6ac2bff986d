/**
 * The example's kernel module: the CPU implementations of its four codelets. Locus's worker
 * threads import this file by URL (each codelet names it and one of its exports), so it must
 * be a plain ES module whose exports are functions `(data, args) => void`:
 *
 * - `data` holds one typed array per access of the task, in the order the task was submitted
 *   with; each is the whole tile (column-major, element (i, j) at i + j * rows);
 * - `args` holds the task's SubmitOptions.args as a Float64Array.
 *
 * A kernel works in place on its RW data and returns nothing; throwing fails the task.
 */
import { gemm, potrf, syrk, trsmRightLowerTrans } from '../src/kernels/index.ts';

/** What a kernel receives: the runtime's views of the task's data, in access order. */
type Views = readonly (Float64Array | Float32Array | Int32Array | Uint8Array)[];
/** A float tile (the library's tile kernels take Float64Array or Float32Array). */
type Tile = Float64Array | Float32Array;

// Every task passes the tile edge n as args[0]. `args` is a Float64Array, so args[0] is a
// double; `| 0` makes it an integer. Without it V8 compiles the kernels' index arithmetic
// (i + j * n) in floating point, which makes them about a third slower.

/** POTRF, accesses [A_kk RW]: A_kk = L_kk with L_kk L_kk^T = A_kk (lower triangle). */
export function factorDiagonal(data: Views, args: Float64Array): void {
  potrf(data[0] as Tile, args[0]! | 0);
}

/** TRSM, accesses [L_kk R, A_mk RW]: A_mk = A_mk L_kk^-T. */
export function solvePanel(data: Views, args: Float64Array): void {
  trsmRightLowerTrans(data[0] as Tile, data[1] as Tile, args[0]! | 0);
}

/** SYRK, accesses [L_mk R, A_mm RW]: A_mm -= L_mk L_mk^T (lower triangle). */
export function updateDiagonal(data: Views, args: Float64Array): void {
  syrk(data[0] as Tile, data[1] as Tile, args[0]! | 0);
}

/** GEMM, accesses [L_mk R, L_ck R, A_mc RW]: A_mc -= L_mk L_ck^T. */
export function updateTile(data: Views, args: Float64Array): void {
  gemm(data[0] as Tile, data[1] as Tile, data[2] as Tile, args[0]! | 0, false, true, -1, 1);
}
