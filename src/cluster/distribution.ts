/**
 * Data distributions of distributed task insertion: which MPI rank owns each data handle,
 * from the handle's block coordinates (workloads register tiles with `block: [i, j]`).
 * Pure: no MPI here (a simulated cluster reuses it).
 */
import { LocusError } from '../core/types.ts';

/** Block coordinates of a handle, when it has some, and its declaration index. */
export interface HandleInfo {
  /** Declaration index of the handle (0, 1, ...). */
  index: number;
  /** Block coordinates [row, col], when the workload gave some. */
  block?: readonly [number, number] | undefined;
}

/** Maps a handle to the rank that owns it (0 .. size - 1). */
export type Distribution = (handle: HandleInfo) => number;

/** The P x Q grid with P <= Q and P as large as possible: the squarest grid of `size` ranks. */
export function squarestGrid(size: number): [p: number, q: number] {
  let p = Math.floor(Math.sqrt(size));
  while (size % p !== 0) p--;
  return [p, size / p];
}

/**
 * 2-D block-cyclic over a P x Q process grid: block (i, j) goes to rank (i mod P) Q + (j mod Q).
 * A handle without block coordinates goes to rank index mod (P Q).
 */
export function blockCyclic2d(p: number, q: number): Distribution {
  return ({ index, block }) => (block ? (block[0] % p) * q + (block[1] % q) : index % (p * q));
}

/** 1-D cyclic over the block rows: block (i, j) goes to rank i mod size (index mod size without block). */
export function cyclic1d(size: number): Distribution {
  return ({ index, block }) => (block ? block[0] % size : index) % size;
}

/**
 * A distribution from its spec: '2d' (the squarest grid), '2d:PxQ' (P Q must be `size`), '1d',
 * or a function (used as is, its ranks checked where used).
 */
export function parseDistribution(spec: string | Distribution, size: number): Distribution {
  if (typeof spec === 'function') return spec;
  if (spec === '2d') return blockCyclic2d(...squarestGrid(size));
  if (spec === '1d') return cyclic1d(size);
  const m = /^2d:(\d+)x(\d+)$/.exec(spec);
  if (m) {
    const p = Number(m[1]);
    const q = Number(m[2]);
    if (p * q !== size)
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `--distribution ${spec}: a ${p} x ${q} grid has ${p * q} ranks but the job has ${size}: use 2d:PxQ with P x Q = ${size}, or 2d`,
      );
    return blockCyclic2d(p, q);
  }
  throw new LocusError('LOCUS_OPTION_INVALID', `--distribution must be 2d, 2d:PxQ or 1d (got '${spec}')`);
}
