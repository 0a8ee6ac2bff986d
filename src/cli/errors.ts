/**
 * How the CLI shows a LocusError: its message on one line, with the command-line flags that fix
 * it where the library's message speaks of API options (the library cannot know the flags).
 */
import { LocusError, type LocusErrorCode } from '../core/types.ts';

/** The flags that address each kind of error whose library message names no flag. */
const FLAG_HINTS: Partial<Record<LocusErrorCode, readonly string[]>> = {
  LOCUS_GPU_MEMORY_TOO_SMALL: ['--gpu-mem', '--tile-size'],
  LOCUS_WORKER_MISSING: ['--gpus', '--cpus', '--platform'],
};

/**
 * The line the CLI prints for `e` (without the "locus: " prefix): the message, then the flags
 * of FLAG_HINTS for its code unless the message already names one of them. The code itself is
 * not printed, as Node prints no code in an error's message; library users read `err.code`.
 */
export function cliMessage(e: LocusError): string {
  let message = e.message.replace(/\s*\n\s*/g, ' ');
  // The library names API parameters ('tileSize'); the command line knows them as flags.
  for (const param of e.params) {
    message = message.replace(new RegExp(`(^|[^\\w-])${param}(?![\\w-])`), `$1${flagOf(param)}`);
  }
  const flags = FLAG_HINTS[e.code];
  if (flags === undefined || flags.some((f) => message.includes(f))) return message;
  return `${message} (flags: ${flags.join(', ')})`;
}

/**
 * Runs `parse` on the value of `flag`; a LocusError it throws comes back with the flag in
 * front of its message (same code), so that the line names what the user typed.
 */
export function forFlag<T>(flag: string, parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof LocusError) throw new LocusError(e.code, `${flag}: ${e.message}`, { cause: e });
    throw e;
  }
}

/** The command-line flag of an API parameter: tileSize -> --tile-size. */
export function flagOf(param: string): string {
  return `--${param.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * The line the CLI prints when writing its output failed (`locus run --json > /dev/full`, a
 * full disk, a closed terminal): an operating-system error of a write that no file writer of
 * Locus wrapped (those name their file), so a write to standard output or error. Undefined
 * for any other error.
 */
export function outputErrorLine(e: unknown): string | undefined {
  const err = e as NodeJS.ErrnoException | undefined;
  if (err === undefined || err === null || err.syscall !== 'write' || typeof err.code !== 'string')
    return undefined;
  return `locus: cannot write the output: ${err.message}; send it to a file or pipe that can take it\n`;
}

/** Whether `e` is the error of a run stopped by Ctrl-C (an AbortSignal). */
export function isInterrupted(e: unknown): boolean {
  return e instanceof LocusError && e.code === 'LOCUS_INTERRUPTED';
}
