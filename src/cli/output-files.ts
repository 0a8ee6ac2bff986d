/** Output folders and files of the commands (`locus sweep`, `platform export`, ...), with one-line errors. */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LocusError } from '../core/types.ts';

/** Writes a file; a LocusError names it when that fails. */
export function writeOutputFile(file: string, data: string | Buffer): void {
  try {
    writeFileSync(file, data);
  } catch (e) {
    throw new LocusError('LOCUS_FILE_WRITE_FAILED', `cannot write ${file}: ${(e as Error).message}`);
  }
}

/**
 * Writes `text` to the `--out` file when there is one (a LocusError naming the option when that
 * fails) and returns true, else to stdout and returns false: the commands that print a file.
 */
export function writeOutOrStdout(out: string | undefined, text: string): boolean {
  if (out === undefined) {
    process.stdout.write(text);
    return false;
  }
  try {
    writeFileSync(out, text);
  } catch (e) {
    throw new LocusError('LOCUS_FILE_WRITE_FAILED', `--out ${out}: cannot write: ${(e as Error).message}`);
  }
  return true;
}

/**
 * Creates `out` and its missing parents one level at a time. Not mkdirSync's recursive mode:
 * on Node 20 it never returns for a path under /proc (`locus sweep --out /proc/x` hung).
 */
export function makeOutputFolder(out: string): void {
  const missing: string[] = [];
  let dir = resolve(out);
  while (!existsSync(dir)) {
    missing.push(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  try {
    if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
    for (let i = missing.length - 1; i >= 0; i--) mkdirSync(missing[i]!);
  } catch (e) {
    throw new LocusError(
      'LOCUS_FILE_WRITE_FAILED',
      `cannot create the output folder ${out}: ${(e as Error).message}; pick another --out`,
    );
  }
}
