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
  throw new LocusError(`unknown access mode '${text}': use R, W or RW`);
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
 * An error caused by the user's input (a bad option, file or task graph). The CLI prints its
 * message as one line and exits with code 2; anything else is a bug and keeps its stack.
 */
export class LocusError extends Error {
  override name = 'LocusError';
}
