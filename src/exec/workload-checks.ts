/**
 * What only a run that computes can check: which workloads have kernels for every task (so
 * they run for real), and the backward errors of the factorizations, computed from the
 * initial values and the results named as the workloads name their data.
 */
import { gemm } from '../kernels/gemm.ts';
import { assemble, choleskyResidual, frobenius, luResidual } from '../kernels/residual.ts';
import type { Tile } from '../kernels/types.ts';
import type { WorkloadInstance } from '../workloads/types.ts';
import type { DataArray } from './runtime.ts';

/** A workload's data by name: initial values or results. */
export type DataByName = (name: string) => DataArray | undefined;

/** A backward error from the initial values and the results. */
export type BackwardError = (instance: WorkloadInstance, initial: DataByName, result: DataByName) => number;

/** Largest matrix order whose backward error a check computes (a 2 N^3 product). */
export const BACKWARD_ERROR_MAX_N = 2048;

/** The tiles A[i,j] of an nt x nt matrix, tile (i, j) at [i + j nt], missing ones undefined. */
function tilesOf(data: DataByName, nt: number): Tile[] {
  const tiles: Tile[] = [];
  for (let i = 0; i < nt; i++) for (let j = 0; j < nt; j++) tiles[i + j * nt] = data(`A[${i},${j}]`) as Tile;
  return tiles;
}

/** ||A - L L^T||_F / ||A||_F of the lower tiles. */
function choleskyBackwardError(w: WorkloadInstance, initial: DataByName, result: DataByName): number {
  const { tiles: nt, tileSize: n } = w.params;
  return choleskyResidual(tilesOf(initial, nt), tilesOf(result, nt), nt, n);
}

/** ||A - L U||_F / ||A||_F. */
function luBackwardError(w: WorkloadInstance, initial: DataByName, result: DataByName): number {
  const { tiles: nt, tileSize: n } = w.params;
  return luResidual(tilesOf(initial, nt), tilesOf(result, nt), nt, n);
}

/**
 * ||P A - L U||_F / ||A||_F, P from the pivots piv[k] of every step (row k b + c swapped with
 * k b + piv[k][c]).
 */
function luppBackwardError(w: WorkloadInstance, initial: DataByName, result: DataByName): number {
  const { tiles: nt, tileSize: b } = w.params;
  const n = nt * b;
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  for (let k = 0; k < nt; k++) {
    const piv = result(`piv[${k}]`)!;
    for (let c = 0; c < b; c++) {
      const r1 = k * b + c;
      const r2 = k * b + piv[c]!;
      const x = perm[r1]!;
      perm[r1] = perm[r2]!;
      perm[r2] = x;
    }
  }
  const full = assemble(tilesOf(initial, nt), nt, b);
  const pa = new Float64Array(n * n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) pa[i + j * n] = full[perm[i]! + j * n]!;
  const lu = tilesOf(result, nt);
  const l = assemble(lu, nt, b, 'unitLower');
  const u = assemble(lu, nt, b, 'upper');
  const norm = frobenius(pa);
  gemm(l, u, pa, n, false, false, -1, 1);
  return frobenius(pa) / norm;
}

/**
 * The workloads that run for real on WebGPU devices only, besides REAL_WORKLOADS: seed 000's
 * matmul2d and seed 001's stencil, whose kernels have WGSL (and CPU references). They read
 * --inner (and the stencil --iterations).
 */
export const GPU_ONLY_WORKLOADS: readonly string[] = ['matmul2d', 'stencil'];

/**
 * The workloads that run for real (every codelet has a kernel in src/kernels/tasks.ts), in
 * the order the CLI lists them, with their backward error when they have one.
 */
export const REAL_WORKLOADS: Readonly<Record<string, { backwardError?: BackwardError }>> = {
  cholesky: { backwardError: choleskyBackwardError },
  lu: { backwardError: luBackwardError },
  lupp: { backwardError: luppBackwardError },
  gemm: {},
  jacobi: {},
  taskbench: {},
};
