/** What `locus run` in every mode (simulated, real, simulated cluster) reads from its options alike. */
import { LocusError } from '../core/types.ts';
import { checkWritable, writeFileAtomic } from '../trace/atomic-file.ts';
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
    pattern: o.pattern,
    width: o.width,
    steps: o.steps,
    kernel: o.kernel,
    radix: o.radix,
    period: o.period,
    outputBytes: o.outputBytes,
    imbalance: o.imbalance,
    scratchBytes: o.scratchBytes,
    seed: o.seed,
    keepOutputs: o.keepOutputs,
    hints: o.hints,
    order: o.order as 'rows' | 'columns' | undefined,
    ...(o.priorities === 'starpu' ? { starpuPriorities: true } : {}),
  };
}

/**
 * Checks --priorities for a run in any mode but the simulated cluster: none, bottom-level, or
 * starpu (StarPU's cholesky_implicit priorities, for -w cholesky only). One-line LocusError.
 */
export function checkPriorities(o: Pick<RunOptions, 'priorities' | 'workload'>): void {
  if (o.priorities !== 'none' && o.priorities !== 'bottom-level' && o.priorities !== 'starpu') {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--priorities must be none, bottom-level or starpu (got '${o.priorities}')`,
    );
  }
  if (o.priorities === 'starpu' && o.workload !== 'cholesky') {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `--priorities starpu applies to -w cholesky only (StarPU's cholesky_implicit priorities), not ${o.workload}`,
    );
  }
}

/**
 * Checks before a long run that the --trace file can be written at its end, so that it fails
 * now, not after it; the file itself appears only whole (see writeTraceFile).
 */
export function checkTraceFile(file: string | undefined): void {
  if (file !== undefined) checkWritable(file, traceError(file));
}

/**
 * Checks before a long run that the --html file can be written, and that it is not the
 * --trace file.
 */
export function checkHtmlFile(o: Pick<RunOptions, 'html' | 'trace'>): void {
  if (o.html === undefined) return;
  if (o.html === o.trace) {
    throw new LocusError('LOCUS_OPTION_CONFLICT', `--html and --trace both name ${o.html}: give two files`);
  }
  checkWritable(o.html, `--html ${o.html}: cannot write the report`);
}

/** Writes a finished trace to the --trace file atomically (whole or not at all). */
export function writeTraceFile(file: string, json: unknown): void {
  writeFileAtomic(file, JSON.stringify(json), traceError(file));
}

/** How a --trace write failure starts. */
function traceError(file: string): string {
  return `--trace ${file}: cannot write the trace`;
}
