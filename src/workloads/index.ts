/**
 * The registry of workload generators, by command-line name.
 */
import { LocusError } from '../core/types.ts';
import { choleskyGenerator } from './cholesky.ts';
import { gemmGenerator } from './gemm.ts';
import { jacobiGenerator } from './jacobi.ts';
import { luGenerator } from './lu.ts';
import { luppGenerator } from './lupp.ts';
import { matmul2dGenerator } from './matmul2d.ts';
import { randomGenerator } from './random.ts';
import { stencilGenerator } from './stencil.ts';
import { taskbenchGenerator } from './taskbench/workload.ts';
import type { Workload, WorkloadGenerator, WorkloadParams } from './types.ts';

export type { Workload, WorkloadGenerator, WorkloadParams } from './types.ts';

/** Every workload generator, by name. */
export const WORKLOADS: Record<string, WorkloadGenerator> = {
  matmul2d: matmul2dGenerator,
  gemm: gemmGenerator,
  cholesky: choleskyGenerator,
  lu: luGenerator,
  lupp: luppGenerator,
  stencil: stencilGenerator,
  jacobi: jacobiGenerator,
  random: randomGenerator,
  taskbench: taskbenchGenerator,
};

/** Builds the named workload; throws a LocusError for an unknown name or bad parameters. */
export function generateWorkload(name: string, params: WorkloadParams = {}): Workload {
  const generator = Object.hasOwn(WORKLOADS, name) ? WORKLOADS[name] : undefined;
  if (generator === undefined) {
    throw new LocusError(
      'LOCUS_NAME_UNKNOWN',
      `unknown workload '${name}': use one of ${Object.keys(WORKLOADS).join(', ')}`,
    );
  }
  return generator.generate(params);
}
