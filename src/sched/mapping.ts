/**
 * Owner-computes mappings of matrix blocks to GPUs (seed 004, section 5: "a 2-D cyclic data
 * distribution"; "block row-wise, block column-wise, cyclic variants ... are easily supported"):
 * block (i, j) belongs to one GPU for the whole run, and a task runs on the GPU that owns the
 * block it writes.
 */
import { readFileSync } from 'node:fs';
import type { TaskGraph } from '../core/graph.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';

/** A mapping of block (row, column) to a GPU index (0 .. GPUs - 1). */
export type BlockMapping =
  | { kind: 'cyclic2d'; p: number; q: number }
  | { kind: 'rows' }
  | { kind: 'cols' }
  | { kind: 'grid'; grid: number[][]; source: string };

/** The most square p x q grid with p q = gpus and p <= q (4 GPUs: 2 x 2). */
export function defaultGrid(gpus: number): { p: number; q: number } {
  let p = Math.max(1, Math.floor(Math.sqrt(gpus)));
  while (gpus % p !== 0) p--;
  return { p, q: gpus / p };
}

/**
 * Parses `--mapping`: `2d` (default grid), `2d:PxQ`, `rows` (1-D row-cyclic), `cols`
 * (column-cyclic), or a JSON file `{ "grid": [[0, 1], [2, 3]] }` giving the GPU of block
 * (i, j) as grid[i mod rows][j mod cols].
 */
export function parseMapping(spec: string, gpus: number): BlockMapping {
  if (gpus < 1)
    throw new LocusError('LOCUS_POLICY_INCOMPATIBLE', 'a block mapping needs GPUs: the platform has none');
  if (spec === 'rows' || spec === 'cols') return { kind: spec };
  const m = /^2d(?::(\d+)x(\d+))?$/.exec(spec);
  if (m) {
    const grid = m[1] ? { p: Number(m[1]), q: Number(m[2]) } : defaultGrid(gpus);
    if (grid.p * grid.q !== gpus || grid.p < 1) {
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `block mapping '${spec}': a ${grid.p} x ${grid.q} grid needs ${grid.p * grid.q} GPUs, the platform has ${gpus}`,
      );
    }
    return { kind: 'cyclic2d', ...grid };
  }
  if (spec.endsWith('.json')) {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(spec, 'utf8'));
    } catch (e) {
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `block mapping '${spec}': cannot read it as JSON (${(e as Error).message})`,
      );
    }
    const grid = (data as { grid?: unknown }).grid;
    const ok =
      Array.isArray(grid) &&
      grid.length > 0 &&
      grid.every(
        (row) =>
          Array.isArray(row) &&
          row.length === (grid[0] as unknown[]).length &&
          row.length > 0 &&
          row.every((g) => Number.isInteger(g) && g >= 0 && g < gpus),
      );
    if (!ok) {
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `block mapping '${spec}': expected { "grid": [[...], ...] }, rows of equal length holding GPU indices 0 to ${gpus - 1}`,
      );
    }
    return { kind: 'grid', grid: grid as number[][], source: spec };
  }
  throw new LocusError(
    'LOCUS_OPTION_INVALID',
    `a block mapping is 2d, 2d:PxQ, rows, cols or a .json file (got '${spec}')`,
  );
}

/** The GPU index (0 .. gpus - 1) owning block (i, j). */
export function blockOwner(m: BlockMapping, i: number, j: number, gpus: number): number {
  switch (m.kind) {
    case 'cyclic2d':
      return (i % m.p) * m.q + (j % m.q);
    case 'rows':
      return i % gpus;
    case 'cols':
      return j % gpus;
    default:
      return m.grid[i % m.grid.length]![j % m.grid[0]!.length]!;
  }
}

/** The GPU workers of a platform, in order (the mapping's GPU indices refer to them). */
export function gpuWorkers(platform: Platform): number[] {
  return platform.workers.flatMap((w, i) => (w.kind === 'gpu' ? [i] : []));
}

/** Owner memory node of every handle with block coordinates, -1 for the others. */
export function handleOwnerNodes(graph: TaskGraph, platform: Platform, m: BlockMapping): Int32Array {
  const gpus = gpuWorkers(platform);
  const out = new Int32Array(graph.handleCount).fill(-1);
  for (let h = 0; h < graph.handleCount; h++) {
    const i = graph.handleBlockRow.data[h]!;
    const j = graph.handleBlockCol.data[h]!;
    if (i < 0 || j < 0) continue;
    out[h] = platform.workers[gpus[blockOwner(m, i, j, gpus.length)]!]!.node;
  }
  return out;
}
