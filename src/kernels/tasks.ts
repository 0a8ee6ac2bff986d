/**
 * The tile tasks, one table chosen when the module loads (issue 22): the kernel addon's
 * BLAS/LAPACK implementations (src/kernels/native/tasks.ts) where it is built and loads, the
 * JavaScript ones (src/kernels/tasks-js.ts) otherwise or with LOCUS_KERNELS=js. Worker threads,
 * the sequential reference run and calibration import this module, so each thread makes the
 * same choice; `kernelsName()` (src/kernels/native/addon.ts) names it.
 */
import { kernelAddon } from './native/addon.ts';
import { nativeTasks } from './native/tasks.ts';
import * as Js from './tasks-js.ts';

const addon = kernelAddon();
const T = addon === undefined ? Js : nativeTasks(addon);

/** POTRF: [A_kk RW] = L_kk (Cholesky). */
export const potrfTask = T.potrfTask;
/** Cholesky panel TRSM: [L_kk R, A_ik RW], A_ik = A_ik L_kk^-T. */
export const trsmCholeskyTask = T.trsmCholeskyTask;
/** Cholesky SYRK: [A_ik R, A_ii RW], A_ii -= A_ik A_ik^T. */
export const syrkTask = T.syrkTask;
/** Cholesky update: [A_ik R, A_jk R, A_ij RW], A_ij -= A_ik A_jk^T. */
export const gemmCholeskyTask = T.gemmCholeskyTask;
/** GETRF without pivoting: [A_kk RW] = L_kk \ U_kk (packed, unit L). */
export const getrfTask = T.getrfTask;
/** LU row panel: [A_kk R, A_kj RW], U_kj = L_kk^-1 A_kj. */
export const trsmLuRowTask = T.trsmLuRowTask;
/** LU column panel: [A_kk R, A_ik RW], L_ik = A_ik U_kk^-1. */
export const trsmLuColumnTask = T.trsmLuColumnTask;
/** LU update: [A_ik R, A_kj R, A_ij RW], A_ij -= A_ik A_kj. */
export const gemmLuTask = T.gemmLuTask;
/** Matrix product step: [A_ik R, B_kj R, C_ij RW], C_ij += A_ik B_kj. */
export const gemmTask = T.gemmTask;
/** LU with pivoting, panel: [piv W, A_kk .. A_(N-1)k RW], pivots into piv. */
export const panelTask = T.panelTask;
/** Interchanges then panel-row TRSM: [piv R, A_kk R, A_kj .. A_(N-1)j RW]. */
export const laswpTrsmTask = T.laswpTrsmTask;
/** Interchanges of a column of L: [piv R, A_kj .. A_(N-1)j RW]. */
export const laswpTask = T.laswpTask;
/** One Jacobi sweep of a block of rows (src/kernels/tasks-js.ts). */
export const jacobiTask = T.jacobiTask;
/** Block product of matmul2d: [A R (m x k), B R (k x m), C W (m x m)], C = A B; args = [m, k]. */
export const matmul2dTask = T.matmul2dTask;
/** One red-black half sweep of a stencil block (src/kernels/tasks-js.ts). */
export const stencilTask = T.stencilTask;
/** A stencil block's boundary planes into its halos (src/kernels/tasks-js.ts). */
export const haloTask = T.haloTask;
/** A Task Bench task: [out W, inputs R...], args = [kernel code, iterations, t, x] (src/kernels/taskbench.ts). */
export const taskbenchTask = T.taskbenchTask;
