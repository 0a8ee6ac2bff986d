/**
 * `locus sweep`'s output folder: an earlier sweep there (its runs.csv, settings.json or
 * summary.csv) is neither overwritten nor continued silently (issue 26 item 6): --resume
 * continues it, --force overwrites it, and without either the sweep is refused in one line.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LocusError } from '../core/types.ts';

/** The files by which a folder holds an earlier sweep. */
const SWEEP_FILES = ['runs.csv', 'settings.json', 'summary.csv'] as const;

/**
 * Refuses to overwrite an earlier sweep in `out` unless `resume` or `force`; refuses both.
 * `files` are the files by which a folder holds one (a figure with its own files names them);
 * a figure that cannot resume (`resumable` false) does not offer --resume.
 */
export function checkEarlierSweep(
  out: string,
  resume: boolean,
  force: boolean,
  files: readonly string[] = SWEEP_FILES,
  resumable = true,
): void {
  if (resume && force)
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      '--resume continues the earlier sweep and --force overwrites it: give one',
    );
  if (resume || force) return;
  const found = files.filter((f) => existsSync(join(out, f)));
  if (found.length > 0)
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `${out} holds an earlier sweep (${found.join(', ')}): give ${resumable ? '--resume to continue it, ' : ''}--force to overwrite it, or --out another folder`,
    );
}
