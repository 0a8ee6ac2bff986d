/**
 * MPI processes from Node: init with MPI_THREAD_MULTIPLE, rank/size, communicators, and
 * non-blocking sends and receives whose progress comes from the event loop (a polling loop of
 * MPI_Testsome that yields every turn with setImmediate, so timers and the engine keep running).
 * A watchdog aborts the whole job with one clear line when requests make no progress for
 * `timeoutS` seconds (a peer that died without the job noticing).
 */
import { LocusError } from '../core/types.ts';
import { type Completion, loadMpi, type MpiAddon } from './addon.ts';

/** A communicator handle: COMM_WORLD is 0, dup() makes others. */
export type Comm = number;

/** The world communicator. */
export const COMM_WORLD: Comm = 0;

/** What a completed request gives: the sender's rank and tag (receives), the bytes received. */
export interface MpiStatus {
  source: number;
  tag: number;
  bytes: number;
}

/** A request in flight: `done` settles when MPI completes it (through the polling loop). */
export interface RawRequest {
  id: number;
  done: Promise<MpiStatus>;
}

/** Options of Mpi.init(). */
export interface MpiInitOptions {
  /** Seconds without any completion while requests are in flight before the job is aborted (default 120; 0: never). */
  timeoutS?: number;
}

/** MPI_Testsome calls per event-loop turn while nothing completes. */
const SPINS = 16;

const THREAD_NAMES = ['single', 'funneled', 'serialized', 'multiple'];

/** One MPI process of the job (one per Node process: init() returns the same one). */
export class Mpi {
  /** This process's rank in COMM_WORLD. */
  readonly rank: number;
  /** The number of processes in COMM_WORLD. */
  readonly size: number;
  /** The thread support level MPI provided ('multiple' asked for). */
  readonly threadLevel: string;
  /** MPI_ANY_SOURCE and MPI_ANY_TAG. */
  readonly ANY_SOURCE: number;
  /** MPI_ANY_TAG. */
  readonly ANY_TAG: number;
  /** The MPI library's version string. */
  readonly library: string;
  private readonly addon: MpiAddon;
  private readonly pending = new Map<
    number,
    { resolve: (s: MpiStatus) => void; reject: (e: Error) => void }
  >();
  private polling = false;
  private lastProgress = Date.now();
  private readonly timeoutS: number;
  private static instance: Mpi | undefined;

  private constructor(addon: MpiAddon, options: MpiInitOptions) {
    this.addon = addon;
    const { provided, rank, size } = addon.init();
    const c = addon.constants();
    this.rank = rank;
    this.size = size;
    this.threadLevel = THREAD_NAMES[provided] ?? `level ${provided}`;
    this.ANY_SOURCE = c.ANY_SOURCE;
    this.ANY_TAG = c.ANY_TAG;
    this.library = c.library.split('\n')[0]!.trim();
    this.timeoutS = options.timeoutS ?? 120;
  }

  /** Initializes MPI (MPI_Init_thread asking MPI_THREAD_MULTIPLE) once per process. */
  static init(options: MpiInitOptions = {}): Mpi {
    if (Mpi.instance) return Mpi.instance;
    const addon = loadMpi();
    if (addon.state() === 'finalized')
      throw new LocusError('LOCUS_MPI_FAILED', 'MPI was finalized in this process: it cannot start again');
    Mpi.instance = new Mpi(addon, options);
    return Mpi.instance;
  }

  /** The rank of this process in `comm`. */
  commRank(comm: Comm): number {
    return this.addon.rank(comm);
  }

  /** The number of processes in `comm`. */
  commSize(comm: Comm): number {
    return this.addon.size(comm);
  }

  /** MPI_Comm_dup (collective): a communicator whose messages never match those of `comm`. */
  dup(comm: Comm = COMM_WORLD): Comm {
    return this.addon.commDup(comm);
  }

  /** MPI_Comm_free of a communicator dup() made (collective). */
  free(comm: Comm): void {
    this.addon.commFree(comm);
  }

  /** MPI_Isend of `buf`'s bytes; the addon keeps `buf` alive until the send completes. */
  isend(buf: ArrayBufferView | ArrayBuffer, dest: number, tag: number, comm: Comm = COMM_WORLD): RawRequest {
    return this.track(this.call(() => this.addon.isend(buf, dest, tag, comm)));
  }

  /** MPI_Irecv into `buf`; the addon keeps `buf` alive until the receive completes. */
  irecv(
    buf: ArrayBufferView | ArrayBuffer,
    source: number,
    tag: number,
    comm: Comm = COMM_WORLD,
  ): RawRequest {
    return this.track(this.call(() => this.addon.irecv(buf, source, tag, comm)));
  }

  /** Requests in flight. */
  get inflight(): number {
    return this.pending.size;
  }

  /** MPI_Barrier (blocking: the event loop stops until every process reaches it). */
  barrier(comm: Comm = COMM_WORLD): void {
    this.call(() => this.addon.barrier(comm));
  }

  /** MPI_Wtime. */
  wtime(): number {
    return this.addon.wtime();
  }

  /** MPI_Finalize, once every request completed. */
  async finalize(): Promise<void> {
    await Promise.allSettled([...this.pending.keys()].map((id) => this.waitFor(id)));
    this.call(() => this.addon.finalize());
  }

  /** MPI_Abort: prints `message` (one line, on stderr) and ends every process of the job. */
  abort(message: string, code = 1): never {
    process.stderr.write(`locus: rank ${this.rank}: ${message}\n`);
    return this.addon.abort(code);
  }

  /** Settles when request `id` completes (no blocking call: the polling loop completes it). */
  private waitFor(id: number): Promise<void> {
    return new Promise((resolve) => {
      const p = this.pending.get(id);
      if (!p) return resolve();
      const { resolve: r0, reject: j0 } = p;
      this.pending.set(id, {
        resolve: (s) => {
          r0(s);
          resolve();
        },
        reject: (e) => {
          j0(e);
          resolve();
        },
      });
    });
  }

  private call<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof LocusError) throw e;
      const msg = e instanceof Error ? e.message : String(e);
      throw new LocusError('LOCUS_MPI_FAILED', msg.replace(/^locus-mpi: /, 'MPI: '));
    }
  }

  private track(id: number): RawRequest {
    const done = new Promise<MpiStatus>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    if (!this.polling) {
      this.polling = true;
      this.lastProgress = Date.now();
      setImmediate(this.poll);
    }
    return { id, done };
  }

  private readonly poll = (): void => {
    let done: Completion[];
    try {
      // A few tries in a row before yielding (a message often lands within microseconds); each
      // is one non-blocking MPI_Testsome, so the turn stays short.
      done = this.addon.testsome();
      for (let i = 1; i < SPINS && done.length === 0; i++) done = this.addon.testsome();
    } catch (e) {
      this.failAll(e instanceof Error ? e.message : String(e));
      return;
    }
    if (done.length > 0) this.lastProgress = Date.now();
    for (const [id, source, tag, bytes, error, text] of done) {
      const p = this.pending.get(id);
      this.pending.delete(id);
      if (!p) continue;
      if (error !== 0) {
        const what = `MPI request (peer ${source}, tag ${tag}) failed: ${text ?? `error ${error}`}`;
        p.reject(new LocusError('LOCUS_MPI_FAILED', what));
      } else p.resolve({ source, tag, bytes });
    }
    if (this.pending.size === 0) {
      this.polling = false;
      return;
    }
    if (this.timeoutS > 0 && Date.now() - this.lastProgress > this.timeoutS * 1000) {
      this.abort(
        `no MPI message completed in ${this.timeoutS} s with ${this.pending.size} requests in flight (a peer died or the ranks do not match their sends and receives): aborting the job`,
      );
    }
    setImmediate(this.poll);
  };

  private failAll(message: string): void {
    this.polling = false;
    const e = new LocusError('LOCUS_MPI_FAILED', message.replace(/^locus-mpi: /, 'MPI: '));
    for (const [, p] of this.pending) p.reject(e);
    this.pending.clear();
  }
}
