/**
 * Helpers shared by the workload generators: parameter validation with one-line errors,
 * element sizes, and the bookkeeping every Workload reports (working set, flops, summary).
 */
import type { TaskGraph } from '../core/graph.ts';
import { AccessMode, LocusError } from '../core/types.ts';
import type { Workload, WorkloadParams } from './types.ts';

/** The parameters of a dense tiled-matrix workload: an N x N matrix of square tiles. */
export interface TiledMatrixParams {
  tiles: number;
  tileSize: number;
  precision: 'single' | 'double';
  dataSeed: number;
}

/**
 * Reads a tiled-matrix workload's parameters (tiles up to `maxTiles`, tile size, precision,
 * data seed), the defaults filling what `params` leaves out.
 */
export function tiledMatrixParams(
  params: WorkloadParams,
  defaults: { readonly tiles: number; readonly tileSize: number; readonly precision: 'single' | 'double' },
  maxTiles: number,
): TiledMatrixParams {
  return {
    tiles: intParam('tiles', params.tiles, defaults.tiles, 1, maxTiles),
    tileSize: intParam('tileSize', params.tileSize, defaults.tileSize, 1, MAX_TILE_SIZE),
    precision: precisionParam(params.precision ?? defaults.precision),
    dataSeed: dataSeedParam(params.dataSeed),
  };
}

/** Kinds of every codelet the generators register (all run on CPUs and GPUs). */
export const CPU_GPU = ['cpu', 'gpu'] as const;

/**
 * Reads an integer parameter: `value` if given, else `fallback`; throws a LocusError naming
 * the command-line flag unless it is an integer in [min, max].
 */
export function intParam(
  flag: string,
  value: number | undefined,
  fallback: number,
  min = 1,
  max = 1e9,
): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    const what =
      min === 1 ? 'a positive integer' : min === 0 ? 'a non-negative integer' : `an integer >= ${min}`;
    throw new LocusError('LOCUS_OPTION_INVALID', `${flag} must be ${what} (got ${String(v)})`, {
      params: [flag],
    });
  }
  if (v > max)
    throw new LocusError('LOCUS_OPTION_INVALID', `${flag} must be at most ${max} (got ${v})`, {
      params: [flag],
    });
  return v;
}

/** Validates the precision parameter (default 'single'). */
export function precisionParam(value: WorkloadParams['precision']): 'single' | 'double' {
  const p = value ?? 'single';
  if (p !== 'single' && p !== 'double') {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `precision must be 'single' or 'double' (got '${String(p)}')`,
      {
        params: ['precision'],
      },
    );
  }
  return p;
}

/** Bytes per element: 4 for single precision, 8 for double. */
export function elementBytes(precision: 'single' | 'double'): number {
  return precision === 'double' ? 8 : 4;
}

/** The element type of a precision: float32 for single, float64 for double. */
export function elementType(precision: 'single' | 'double'): 'float32' | 'float64' {
  return precision === 'double' ? 'float64' : 'float32';
}

/**
 * A function computing `make()` on its first call and returning that value afterwards: the
 * initial values of a whole matrix, made only when a submitter that computes asks for a tile.
 */
export function once<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}

/** Validates the seed of the initial values (default 1). */
export function dataSeedParam(value: number | undefined): number {
  return intParam('seed', value, 1, 0, 0x7fffffff);
}

/** Largest tile edge accepted by the generators (a 65536^2 double tile is already 32 GiB). */
export const MAX_TILE_SIZE = 65536;

/**
 * Throws the engine's one-line "do not fit in host memory" error before a generator builds its
 * tasks, when the workload's data (`bytes`, every handle) exceed `params.host`'s capacity.
 */
export function checkHostMemory(params: WorkloadParams, bytes: number): void {
  const host = params.host;
  if (host === undefined || !(bytes > host.capacity)) return;
  const capacity = Number.isFinite(host.capacity) ? formatBytes(host.capacity) : 'unlimited';
  throw new LocusError(
    'LOCUS_HOST_MEMORY_TOO_SMALL',
    host.kind === 'disk'
      ? `the data (${formatBytes(bytes)}) do not fit in disk ${host.name} (${capacity}): use a larger disk or a smaller workload`
      : `the data (${formatBytes(bytes)}) do not fit in host memory ${host.name} (${capacity}): use a platform with more memory, a disk below it (out of core), or a smaller workload`,
  );
}

/** Formats a byte count as "14.06 MiB" or "2.10 GiB". */
export function formatBytes(bytes: number): string {
  const MiB = 1024 * 1024;
  if (bytes < MiB) return `${(bytes / 1024).toFixed(2)} KiB`;
  if (bytes < 1024 * MiB) return `${(bytes / MiB).toFixed(2)} MiB`;
  return `${(bytes / (1024 * MiB)).toFixed(2)} GiB`;
}

/** Formats a flop count as "7.08 GFlop" / "2.83 TFlop". */
export function formatFlops(flops: number): string {
  if (flops >= 1e12) return `${(flops / 1e12).toFixed(2)} TFlop`;
  if (flops >= 1e9) return `${(flops / 1e9).toFixed(2)} GFlop`;
  return `${(flops / 1e6).toFixed(2)} MFlop`;
}

/** Total bytes of the handles that at least one task reads (R or RW). */
export function readWorkingSet(graph: TaskGraph): number {
  const read = new Uint8Array(graph.handleCount);
  const n = graph.accessHandle.length;
  const handles = graph.accessHandle.data;
  const modes = graph.accessMode.data;
  for (let a = 0; a < n; a++) if (modes[a]! & AccessMode.R) read[handles[a]!] = 1;
  let bytes = 0;
  const sizes = graph.handleSize.data;
  for (let h = 0; h < read.length; h++) if (read[h]) bytes += sizes[h]!;
  return bytes;
}

/** Sum of the flops of all tasks. */
export function sumFlops(graph: TaskGraph): number {
  let flops = 0;
  const data = graph.taskFlops.data;
  for (let t = 0; t < graph.taskCount; t++) flops += data[t]!;
  return flops;
}

/**
 * Assembles a Workload: computes its working set and flops and appends them and the task
 * count to `description` to form the one-line summary.
 */
export function finishWorkload(
  name: string,
  graph: TaskGraph,
  description: string,
  params: Workload['params'],
): Workload {
  const workingSetBytes = readWorkingSet(graph);
  const totalFlops = sumFlops(graph);
  const summary = `${name} ${description}: ${graph.taskCount} tasks, ${formatBytes(workingSetBytes)}, ${formatFlops(totalFlops)}`;
  return { name, graph, summary, workingSetBytes, totalFlops, params };
}
