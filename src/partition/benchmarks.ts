/**
 * The four benchmarks of seed 003 section V by name, with default sizes small enough for
 * real runs in JavaScript and an optional size scale.
 */
import { LocusError } from '../core/types.ts';
import { fdtd2dSequence } from './bench/fdtd2d.ts';
import { jacobiSequence } from './bench/jacobi.ts';
import { nbodySequence } from './bench/nbody.ts';
import { spmv2Sequence } from './bench/spmv2.ts';
import type { KernelSequence } from './kernel.ts';

/** Benchmark names. */
export const BENCHMARKS = ['jacobi', 'fdtd2d', '2spmv', 'nbody'] as const;

/** A benchmark name. */
export type BenchmarkName = (typeof BENCHMARKS)[number];

/** Parameters of a benchmark instance. */
export interface BenchmarkOptions {
  /** Problem size: grid side (jacobi, fdtd2d), rows (2spmv) or particles (nbody). */
  readonly size?: number;
  /** Seed of generated data (2spmv matrices, nbody start). */
  readonly seed?: number;
}

/**
 * Default sizes. The seed gives none; each is large enough that a split iteration on sbac18 is
 * not dominated by the fixed costs (launches, transfer latencies) and small enough for real
 * runs in JavaScript:
 * - 2spmv: 36,000 rows of about 120 non-zeros (SPMV_MAX_ROW), the shape of the `Protein`
 *   matrix of Williams et al.'s SpMV study (SC'07: 36K rows, 4.3M non-zeros, 119 per row).
 *   With 100,000 rows of about 10 non-zeros, sending the whole input vector to every device
 *   before each product cost more than the product, and no split beat one device;
 * - jacobi 2800 x 2800 and fdtd2d 2000 x 2000: PolyBench/C 4.2's EXTRALARGE jacobi-2d (N = 2800)
 *   and fdtd-2d (2000 x 2600, square here). At 1024 and 512 the CPU device's fixed launch cost
 *   (20 us) was a large part of its sub-kernels' time, so its time per row depended on its share
 *   and the LP's ratios crept for most of the run;
 * - nbody: 96,000 particles at PARTICLES_PER_BIN. The seed says the force kernel takes most
 *   of an iteration; on sbac18 an iteration split four ways also pays, per kernel, the transfer
 *   latencies of the halos (15 us each way) and the launches, about 0.4 ms for the seven
 *   kernels, so the force kernel must take a few ms on one GPU for a split to pay (32,000
 *   particles: 0.5 ms on one GPU, and every strategy near 1).
 */
export const DEFAULT_SIZES: Readonly<Record<BenchmarkName, number>> = {
  jacobi: 2800,
  fdtd2d: 2000,
  '2spmv': 36_000,
  nbody: 96_000,
};

/** Longest heavy row of the 2spmv matrices (mean row length about 0.148 x this, 118 here). */
export const SPMV_MAX_ROW = 800;

/**
 * N-body particles per bin (the bin side is the cut-off): 37, so that a particle tests 9 x 37 =
 * 333 candidates, as a particle of a 3-D Lennard-Jones liquid does in its 27 cells (reduced
 * density 0.8, cut-off 2.5 sigma: 0.8 x 2.5^3 = 12.5 particles a cell, Allen & Tildesley's
 * usual setting); SOTL is 3-D, this N-body 2-D. With 8 a bin the force kernel, the one the seed
 * says dominates, took a third of a single GPU's iteration.
 */
export const PARTICLES_PER_BIN = 37;

/** The benchmark `name` as a kernel sequence. */
export function benchmarkSequence(name: string, o: BenchmarkOptions = {}): KernelSequence {
  if (!(BENCHMARKS as readonly string[]).includes(name))
    throw new LocusError('LOCUS_OPTION_INVALID', `unknown benchmark '${name}': use ${BENCHMARKS.join(', ')}`);
  const b = name as BenchmarkName;
  const size = o.size ?? DEFAULT_SIZES[b];
  if (!Number.isInteger(size) || size < 8)
    throw new LocusError('LOCUS_OPTION_INVALID', `benchmark size must be an integer >= 8 (got ${size})`);
  const seed = o.seed ?? 1;
  const source = { module: import.meta.url, export: 'benchmarkSequence', args: [name, { size, seed }] };
  switch (b) {
    case 'jacobi':
      return { ...jacobiSequence(size), source };
    case 'fdtd2d':
      return { ...fdtd2dSequence(size, size), source };
    case '2spmv':
      return { ...spmv2Sequence(size, SPMV_MAX_ROW, seed), source };
    case 'nbody':
      return {
        ...nbodySequence(size, Math.max(4, Math.round(Math.sqrt(size / PARTICLES_PER_BIN))), seed),
        source,
      };
  }
}
