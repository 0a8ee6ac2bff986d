/** What `locus run` in every mode (simulated, real, simulated cluster) reads from its options alike. */
import { writeFileSync } from 'node:fs';
import { LocusError } from '../core/types.ts';
import type { WorkloadParams } from '../workloads/index.ts';
import type { RunOptions } from './run-command.ts';

/** The workload generator's parameters the run options give. */
export function workloadParams(o: RunOptions): WorkloadParams {
  return {
    tiles: o.tiles,
    tileSize: o.tileSize,
    inner: o.inner,
    precision: o.precision as 'single' | 'double' | undefined,
    iterations: o.iterations,
    tasks: o.tasks,
    data: o.data,
    degree: o.degree,
    shared: o.shared,
    seed: o.seed,
    keepOutputs: o.keepOutputs,
    hints: o.hints,
    order: o.order as 'rows' | 'columns' | undefined,
  };
}

/** Creates (empties) the --trace file before a long run, so that it fails now, not after it. */
export function checkTraceFile(file: string | undefined): void {
  if (file === undefined) return;
  try {
    writeFileSync(file, '');
  } catch (e) {
    throw new LocusError(
      'LOCUS_FILE_WRITE_FAILED',
      `--trace ${file}: cannot write the trace: ${(e as Error).message}`,
    );
  }
}
