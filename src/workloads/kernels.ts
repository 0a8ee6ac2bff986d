/**
 * The dense linear-algebra codelets the workloads submit, with their flop counts as
 * functions of the tile edge n (LAPACK working-note counts, leading terms): one table, so
 * every generator and platform file agrees on the names and the costs.
 */
import type { Codelet } from '../core/graph.ts';
import { CPU_GPU } from './common.ts';

/** GEMM C += A B on n x n tiles (2 n^3), or an m x n x k block product (2 m n k). */
export const GEMM: Codelet = { name: 'gemm', kinds: CPU_GPU, flops: (m, n = m, k = m) => 2 * m * n * k };
/** Cholesky factorisation of one n x n tile (n^3 / 3). */
export const POTRF: Codelet = { name: 'potrf', kinds: CPU_GPU, flops: (n) => (n * n * n) / 3 };
/** Triangular solve with an n x n right-hand side (n^3). */
export const TRSM: Codelet = { name: 'trsm', kinds: CPU_GPU, flops: (n) => n * n * n };
/** Symmetric rank-n update of an n x n tile (n^3). */
export const SYRK: Codelet = { name: 'syrk', kinds: CPU_GPU, flops: (n) => n * n * n };
/** LU factorisation without pivoting of one n x n tile (2 n^3 / 3). */
export const GETRF: Codelet = { name: 'getrf', kinds: CPU_GPU, flops: (n) => (2 * n * n * n) / 3 };

/** The tile codelets by name (calibration reads their flop counts). */
export const TILE_CODELETS = { gemm: GEMM, potrf: POTRF, trsm: TRSM, syrk: SYRK, getrf: GETRF } as const;
