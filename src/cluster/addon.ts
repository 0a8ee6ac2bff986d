/**
 * Loads the MPI addon (native/locus_mpi.c, built by the package's install step when `mpicc`
 * exists). Where it is missing, the error says in one line what is missing.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { LocusError } from '../core/types.ts';

/** One completed request: [id, source, tag, bytes received, MPI error code (0: none), its text]. */
export type Completion = [
  id: number,
  source: number,
  tag: number,
  bytes: number,
  error: number,
  text?: string,
];

/** The functions the addon exports (see native/locus_mpi.c). */
export interface MpiAddon {
  init(): { provided: number; rank: number; size: number };
  constants(): {
    THREAD_SINGLE: number;
    THREAD_FUNNELED: number;
    THREAD_SERIALIZED: number;
    THREAD_MULTIPLE: number;
    ANY_SOURCE: number;
    ANY_TAG: number;
    TAG_UB: number;
    library: string;
  };
  rank(comm: number): number;
  size(comm: number): number;
  commDup(comm: number): number;
  commFree(comm: number): void;
  isend(buf: ArrayBufferView | ArrayBuffer, dest: number, tag: number, comm: number): number;
  irecv(buf: ArrayBufferView | ArrayBuffer, source: number, tag: number, comm: number): number;
  /**
   * Completes what it can: returns the number of completed requests, written to `out` as 5 ints
   * each ([id, source, tag, bytes received, MPI error code]); `out` holds 5 ints per request in
   * flight. Busy-polls up to `spinUs` microseconds while none has completed.
   */
  testsome(spinUs: number, out: Int32Array): number;
  /** The text of an MPI error code. */
  errorText(code: number): string;
  /**
   * A blocking send (receive) in one call: 1 once done, its [-1, peer, tag, bytes, error] in
   * `out`; 0 when not done within `timeoutS` seconds (no limit when timeoutS <= 0).
   */
  sendBlocking(
    buf: ArrayBufferView | ArrayBuffer,
    dest: number,
    tag: number,
    comm: number,
    timeoutS: number,
    out: Int32Array,
  ): number;
  recvBlocking(
    buf: ArrayBufferView | ArrayBuffer,
    source: number,
    tag: number,
    comm: number,
    timeoutS: number,
    out: Int32Array,
  ): number;
  test(id: number): Completion | null;
  wait(id: number): Completion;
  inflight(): number;
  barrier(comm: number): void;
  wtime(): number;
  finalize(): boolean;
  abort(code: number): never;
  state(): 'uninitialized' | 'initialized' | 'finalized';
}

/** Where the addon is looked for: LOCUS_MPI_ADDON, else native/build/Release of the package. */
export function addonPath(): string {
  return (
    process.env.LOCUS_MPI_ADDON ??
    fileURLToPath(new URL('../../native/build/Release/locus_mpi.node', import.meta.url))
  );
}

let cached: MpiAddon | undefined;

/** The addon, loaded once; LocusError LOCUS_MPI_UNAVAILABLE when it is not built or cannot load. */
export function loadMpi(): MpiAddon {
  if (cached) return cached;
  const path = addonPath();
  if (!existsSync(path)) {
    throw new LocusError(
      'LOCUS_MPI_UNAVAILABLE',
      `the MPI addon is not built (${path} is missing): install Open MPI (libopenmpi-dev) and run 'node native/build.mjs'`,
    );
  }
  try {
    cached = createRequire(import.meta.url)(path) as MpiAddon;
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new LocusError('LOCUS_MPI_UNAVAILABLE', `the MPI addon ${path} cannot be loaded: ${why}`);
  }
  return cached;
}
