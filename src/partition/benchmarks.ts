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

/** Default sizes. */
export const DEFAULT_SIZES: Readonly<Record<BenchmarkName, number>> = {
  jacobi: 1024,
  fdtd2d: 512,
  '2spmv': 100_000,
  nbody: 8000,
};

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
      return { ...spmv2Sequence(size, 64, seed), source };
    case 'nbody':
      return { ...nbodySequence(size, Math.max(4, Math.round(Math.sqrt(size / 8))), seed), source };
  }
}
