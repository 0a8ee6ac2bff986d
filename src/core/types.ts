/**
 * Basic vocabulary shared by every part of Locus: access modes, worker kinds and the
 * integer ids that the engine uses everywhere instead of objects.
 */

/** How a task accesses a data handle (bit flags: R = 1, W = 2, RW = 3), as in StarPU. */
export const AccessMode = { R: 1, W: 2, RW: 3 } as const;
/** One of the access modes R, W or RW. */
export type AccessMode = (typeof AccessMode)[keyof typeof AccessMode];

/** Parses 'R' | 'W' | 'RW' into an AccessMode; throws on anything else. */
export function parseAccessMode(text: string): AccessMode {
  if (text === 'R') return AccessMode.R;
  if (text === 'W') return AccessMode.W;
  if (text === 'RW') return AccessMode.RW;
  throw new LocusError('LOCUS_OPTION_INVALID', `unknown access mode '${text}': use R, W or RW`);
}

/** Prints an AccessMode as 'R', 'W' or 'RW'. */
export function formatAccessMode(mode: number): string {
  return mode === AccessMode.R ? 'R' : mode === AccessMode.W ? 'W' : 'RW';
}

/** The kinds of processing unit a codelet can have an implementation for. */
export type WorkerKind = 'cpu' | 'gpu';

/** Every worker kind, in a fixed order (used to index per-kind tables). */
export const WORKER_KINDS: readonly WorkerKind[] = ['cpu', 'gpu'];

/**
 * The stable codes a LocusError carries in `err.code`, grouped by what went wrong rather than
 * by message; docs/errors.md explains each one, which API raises it and how to fix it.
 */
export const LOCUS_ERROR_CODES = [
  'LOCUS_OPTION_INVALID',
  'LOCUS_OPTION_CONFLICT',
  'LOCUS_NAME_UNKNOWN',
  'LOCUS_PLATFORM_INVALID',
  'LOCUS_GRAPH_INVALID',
  'LOCUS_DATA_INVALID',
  'LOCUS_STATE_INVALID',
  'LOCUS_POLICY_INCOMPATIBLE',
  'LOCUS_WORKER_MISSING',
  'LOCUS_GPU_MEMORY_TOO_SMALL',
  'LOCUS_HOST_MEMORY_TOO_SMALL',
  'LOCUS_DISK_FULL',
  'LOCUS_DISK_UNUSABLE',
  'LOCUS_SIMULATION_FAILED',
  'LOCUS_TASK_FAILED',
  'LOCUS_TASK_CANCELLED',
  'LOCUS_INTERRUPTED',
  'LOCUS_WORKER_THREAD_FAILED',
  'LOCUS_MODEL_UNCALIBRATED',
  'LOCUS_FILE_READ_FAILED',
  'LOCUS_FILE_WRITE_FAILED',
  'LOCUS_FILE_INVALID',
  'LOCUS_OPTIONAL_PACKAGE_MISSING',
  'LOCUS_MPI_UNAVAILABLE',
  'LOCUS_MPI_FAILED',
] as const;

/** One of the stable codes of LOCUS_ERROR_CODES. */
export type LocusErrorCode = (typeof LOCUS_ERROR_CODES)[number];

/**
 * An error caused by the user's input (a bad option, file or task graph) or by a run that could
 * not finish (a failed task, an interrupt). `code` is stable across versions (see
 * docs/errors.md); the message is one line for people and may change. The CLI prints the message
 * as `locus: <message>` and exits with code 2; anything else is a bug and keeps its stack.
 */
export class LocusError extends Error {
  override name = 'LocusError';
  /** The stable code of this kind of error, e.g. 'LOCUS_OPTION_INVALID'. */
  readonly code: LocusErrorCode;
  /**
   * The API parameters the message names ('tileSize'), in the order it names them: the CLI
   * shows each as its command-line flag ('--tile-size').
   */
  readonly params: readonly string[];

  /** An error with a stable `code` and a one-line `message`; `options.cause` as for Error. */
  constructor(code: LocusErrorCode, message: string, options?: LocusErrorOptions) {
    super(message, options);
    this.code = code;
    this.params = options?.params ?? [];
  }
}

/** Options of a LocusError: the cause, and the API parameters its message names. */
export interface LocusErrorOptions extends ErrorOptions {
  /** Parameter names as the message writes them (see LocusError.params). */
  params?: readonly string[];
}
