/**
 * The `locus run` command line of a playground run: what the page shows under its results, so
 * that each figure can be checked against the command (a pasted platform file is written
 * `platform.json`).
 */
import { flagOf } from '../cli/errors.ts';
import type { PlaygroundRun } from './simulate-run.ts';

/** `locus run -w W --tiles N ... --sched P --seed S`. */
export function commandLine(run: PlaygroundRun): string {
  const words = ['locus', 'run', '-w', run.workload];
  for (const [key, value] of Object.entries(run.params)) {
    if (value === undefined) continue;
    if (value === true) words.push(flagOf(key));
    else if (value !== false) words.push(flagOf(key), String(value));
  }
  if ('preset' in run.platform) {
    words.push('--platform', run.platform.preset);
    if (run.platform.gpus !== undefined) words.push('--gpus', String(run.platform.gpus));
    if (run.platform.cpus !== undefined) words.push('--cpus', String(run.platform.cpus));
  } else words.push('--platform', 'platform.json');
  if (run.platform.gpuMem !== undefined) words.push('--gpu-mem', String(run.platform.gpuMem));
  words.push('--sched', run.policy, '--seed', String(run.seed));
  return words.join(' ');
}
