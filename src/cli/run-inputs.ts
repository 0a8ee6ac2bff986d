/** What `locus run` in every mode (simulated, real, simulated cluster) reads from its options alike. */
import { accessSync, constants, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
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

/**
 * Checks that the --trace file can be written before a long run, so that it fails now, not
 * after it, without creating or emptying it (a run refused later leaves it as it was): an
 * existing file must be a writable file, a new one's folder must exist and be writable.
 */
export function checkTraceFile(file: string | undefined): void {
  if (file === undefined) return;
  const fail = (why: string) =>
    new LocusError('LOCUS_FILE_WRITE_FAILED', `--trace ${file}: cannot write the trace: ${why}`);
  let stats: Stats | undefined;
  try {
    stats = statSync(file);
  } catch {
    stats = undefined;
  }
  const target = stats === undefined ? dirname(resolve(file)) : file;
  if (stats?.isDirectory()) throw fail('it is a directory');
  try {
    accessSync(target, constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw fail(
      code === 'ENOENT'
        ? `folder ${target} does not exist`
        : `${stats === undefined ? `folder ${target}` : 'the file'} is not writable (${code})`,
    );
  }
  if (stats === undefined && !statSync(target).isDirectory()) throw fail(`${target} is not a folder`);
}
