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

/** Refuses to overwrite an earlier sweep in `out` unless `resume` or `force`; refuses both. */
export function checkEarlierSweep(out: string, resume: boolean, force: boolean): void {
  if (resume && force)
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      '--resume continues the earlier sweep and --force overwrites it: give one',
    );
  if (resume || force) return;
  const found = SWEEP_FILES.filter((f) => existsSync(join(out, f)));
  if (found.length > 0)
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `${out} holds an earlier sweep (${found.join(', ')}): give --resume to continue it, --force to overwrite it, or --out another folder`,
    );
}
