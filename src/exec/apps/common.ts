/**
 * What the real applications share: their options, their result, and the codelets of the
 * tile kernels (src/kernels/tasks.ts) declared on a runtime with the workloads' flop counts.
 */
import { LocusError } from '../../core/types.ts';
import type { Tile } from '../../kernels/types.ts';
import type { RunReport } from '../../trace/report.ts';
import { GEMM, GETRF, POTRF, SYRK, TRSM } from '../../workloads/kernels.ts';
import type { Codelet, Data, Runtime, RuntimeOptions } from '../runtime.ts';

/**
 * The kernel module the workers import: tasks.js next to this compiled module, tasks.ts when
 * run from the sources.
 */
export const TASKS_MODULE = new URL(
  `../../kernels/tasks.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
  import.meta.url,
);

/** Options of a real application run. */
export interface AppOptions extends RuntimeOptions {
  /** Tiles per matrix edge. */
  tiles: number;
  /** Tile edge. */
  tileSize: number;
  /** Element type (default double). */
  precision?: 'double' | 'single';
  /** Compare with a sequential run of the same kernels (and report the residuals). */
  check?: boolean;
  /** Seed of the matrix generator (default 1). */
  dataSeed?: number;
  /** Iterations of iterated applications (jacobi; default 10). */
  iterations?: number;
  /**
   * Run on this runtime (its platform, mode and policies; left open) instead of creating one
   * from the options.
   */
  runtime?: Runtime;
  /** With `trace`: receives the run's Chrome trace (JSON) when it ends. */
  onTrace?: (json: unknown) => void;
}

/** What a real application run gives back. */
export interface AppResult {
  /** The runtime's report. */
  report: RunReport;
  /** With check: ||X - X_seq||_F / ||X_seq||_F against the sequential run. */
  residual?: number;
  /** With check: the factorisation's backward error ||A - L L^T|| / ||A|| (or ||A - LU|| / ||A||). */
  backwardError?: number;
  /** One line describing the problem. */
  workload: string;
}

/** Largest matrix order whose backward error a check computes (a 2 N^3 product). */
export const BACKWARD_ERROR_MAX_N = 2048;

/** Checks the sizes of an application run; throws a one-line LocusError. */
export function checkAppSizes(o: AppOptions, maxElements = 2 ** 28): void {
  for (const [flag, v] of [
    ['--tiles', o.tiles],
    ['--tile-size', o.tileSize],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new LocusError(`${flag} must be a positive integer (got ${v})`);
  }
  const n = o.tiles * o.tileSize;
  if (n * n > maxElements) {
    throw new LocusError(
      `a ${n} x ${n} matrix (--tiles ${o.tiles} x --tile-size ${o.tileSize}) is too large for a real run here: keep N^2 under ${maxElements}`,
    );
  }
}

/** Declares a codelet of TASKS_MODULE. */
export function tileCodelet(
  rt: Runtime,
  name: string,
  exportName: string,
  flops: (n: number) => number,
): Codelet {
  return rt.codelet({ name, kernel: { module: TASKS_MODULE, export: exportName }, flops });
}

/** The workloads' flop counts by codelet. */
export const FLOPS = {
  gemm: (n: number) => GEMM.flops!(n),
  potrf: (n: number) => POTRF.flops!(n),
  trsm: (n: number) => TRSM.flops!(n),
  syrk: (n: number) => SYRK.flops!(n),
  getrf: (n: number) => GETRF.flops!(n),
};

/** The runtime to use and whether the application must close it. */
export async function openRuntime(o: AppOptions): Promise<{ rt: Runtime; owned: boolean }> {
  if (o.runtime) return { rt: o.runtime, owned: false };
  const { Runtime } = await import('../runtime.ts');
  return { rt: await Runtime.create(o), owned: true };
}

/**
 * Registers the tiles (tile (i, j) at tiles[i + j nt]) row by row, as the workload generators
 * register their handles, those `keep` accepts (default all), named NAME[i,j]; returns the
 * handle of tile (i, j).
 */
export function registerTiles(
  rt: Runtime,
  tiles: readonly Tile[],
  nt: number,
  name = 'A',
  keep: (i: number, j: number) => boolean = () => true,
): (i: number, j: number) => Data {
  const handle: Data[] = [];
  for (let i = 0; i < nt; i++) {
    for (let j = 0; j < nt; j++) {
      if (keep(i, j)) handle[i + j * nt] = rt.data(tiles[i + j * nt]!, { name: `${name}[${i},${j}]` });
    }
  }
  return (i, j) => handle[i + j * nt]!;
}

/**
 * Waits for the submitted tasks, brings the results into the application's arrays, hands the
 * trace to `onTrace` when one was asked for, and names the workload in the report.
 */
export async function runSubmitted(rt: Runtime, o: AppOptions, workload: string): Promise<RunReport> {
  const report = await rt.wait();
  // The results may still be on the devices: bring them into the application's arrays.
  await rt.sync();
  if (o.onTrace && rt.trace) o.onTrace(rt.trace.toJSON());
  report.workload = workload;
  return report;
}

/** Tiles of a result as the sequential check reads them. */
export type Tiles = Tile[];
