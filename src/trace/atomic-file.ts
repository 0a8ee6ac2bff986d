/**
 * Files that appear whole or not at all: written under a temporary name in the target's
 * folder, then renamed over the target (a rename within one folder is atomic), so that a run
 * stopped half-way (Ctrl-C, a failure) never leaves a truncated file under the user's name.
 */
import { closeSync, existsSync, openSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { LocusError } from '../core/types.ts';

/** The temporary name `file` is written under: hidden, in its folder, unique to this process. */
export function temporaryPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.partial`);
}

/** Writes `data` to `file` atomically; the one-line error starts with `says` then the cause. */
export function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  says = `cannot write ${file}`,
): void {
  const tmp = temporaryPath(file);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new LocusError('LOCUS_FILE_WRITE_FAILED', `${says}: ${(e as Error).message}`);
  }
}

/**
 * Checks before a long run that `file` can be written at its end, leaving the folder as it
 * was: `file`, when it exists, must not be a folder, its folder must exist, and a temporary
 * file is created there and removed. Throws a one-line LocusError starting with `says`.
 */
export function checkWritable(file: string, says = `cannot write ${file}`): void {
  const fail = (why: string) => new LocusError('LOCUS_FILE_WRITE_FAILED', `${says}: ${why}`);
  const folder = dirname(resolve(file));
  if (existsSync(file) && statSync(file).isDirectory()) throw fail(`${file} is a folder`);
  if (!existsSync(folder)) throw fail(`folder ${folder} does not exist`);
  const tmp = temporaryPath(file);
  try {
    closeSync(openSync(tmp, 'w'));
    rmSync(tmp);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw fail(`folder ${folder} is not writable (${code})`);
  }
}
