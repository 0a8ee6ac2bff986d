/**
 * MPI processes from Node: init with MPI_THREAD_MULTIPLE, rank/size, communicators,
 * non-blocking sends and receives whose progress comes from the event loop (a polling loop of
 * MPI_Testsome that yields every turn with setImmediate, so timers and the engine keep running),
 * and blocking sends and receives (one addon call each, no event-loop turn). A watchdog aborts
 * the whole job with one clear line when requests make no progress for `timeoutS` seconds (a
 * peer that died without the job noticing).
 */
import { LocusError } from '../core/types.ts';
import { loadMpi, type MpiAddon } from './addon.ts';

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
  /**
   * Microseconds each polling turn may busy-poll MPI_Testsome (in C) while nothing completes,
   * before yielding to the event loop (default DEFAULT_SPIN_US; 0: one MPI_Testsome per turn).
   * Larger values cut message latency and hold the event loop that much longer per turn.
   */
  spinUs?: number;
}

/**
 * Milliseconds a chain of polls may run as microtasks (each after the continuations of the
 * requests the previous one completed) before a poll goes through setImmediate, so the event
 * loop (timers, I/O) turns at least this often while messages keep completing.
 */
const CHAIN_MS = 0.5;

/** Microtask polls between two readings of the clock (the chain's age). */
const CLOCK_EVERY = 16;

/** MPI_Testsome calls (each with its bounded spin) per poll while nothing completes. */
const TRIES = 16;

/**
 * Default of MpiInitOptions.spinUs: no spin. On the shared 2-core test machine, with ranks
 * oversubscribed, spinning did not lower the median ping-pong round trip measurably and holds a
 * core the worker threads and the peer may need; on dedicated cores a few microseconds may pay
 * (bench/mpi-pingpong.ts --spin-us compares).
 */
export const DEFAULT_SPIN_US = 0;

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
  /** The settling functions of each request in flight, by request id (the addon reuses ids). */
  private readonly resolvers: (((s: MpiStatus) => void) | undefined)[] = [];
  private readonly rejecters: (((e: Error) => void) | undefined)[] = [];
  /** Requests in flight. */
  private count = 0;
  /** Where the addon writes completions (5 ints each), grown with the requests in flight. */
  private out = new Int32Array(5 * 64);
  /** Where the addon writes the completion of a blocking call. */
  private readonly blockOut = new Int32Array(5);
  /** A microtask poll is queued. */
  private microQueued = false;
  /** A setImmediate poll is queued. */
  private turnQueued = false;
  /** performance.now() when the last event-loop turn's poll began (the chain's start). */
  private turnStart = 0;
  /** Polls scheduled as microtasks since the last turn (the clock is read every CLOCK_EVERY). */
  private chained = 0;
  /** The chain of microtask polls is CHAIN_MS old: the next poll waits for a turn. */
  private chainExpired = false;
  /** Date.now() at the first poll that found nothing since the last completion (0: none yet). */
  private stalledSince = 0;
  private readonly timeoutS: number;
  private readonly spinUs: number;
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
    this.spinUs = options.spinUs ?? DEFAULT_SPIN_US;
  }

  /** Initializes MPI (MPI_Init_thread asking MPI_THREAD_MULTIPLE) once per process. */
  static init(options: MpiInitOptions = {}): Mpi {
    const spin = options.spinUs;
    if (spin !== undefined && !(Number.isFinite(spin) && spin >= 0 && spin <= 1e6))
      throw new LocusError(
        'LOCUS_MPI_FAILED',
        `Mpi.init: spinUs must be a number of microseconds from 0 to 1000000, got ${spin}`,
      );
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
    let id: number;
    try {
      id = this.addon.isend(buf, dest, tag, comm);
    } catch (e) {
      throw mpiError(e);
    }
    return this.track(id);
  }

  /** MPI_Irecv into `buf`; the addon keeps `buf` alive until the receive completes. */
  irecv(
    buf: ArrayBufferView | ArrayBuffer,
    source: number,
    tag: number,
    comm: Comm = COMM_WORLD,
  ): RawRequest {
    let id: number;
    try {
      id = this.addon.irecv(buf, source, tag, comm);
    } catch (e) {
      throw mpiError(e);
    }
    return this.track(id);
  }

  /**
   * MPI_Send (blocking): returns once `buf` may be reused. The event loop stops meanwhile (as
   * for barrier): the blocking calls suit code that has nothing else to do until the message
   * went, and cost no event-loop turn. The watchdog applies: no completion within timeoutS
   * seconds aborts the job.
   */
  send(buf: ArrayBufferView | ArrayBuffer, dest: number, tag: number, comm: Comm = COMM_WORLD): void {
    const out = this.blockOut;
    const done = this.call(() => this.addon.sendBlocking(buf, dest, tag, comm, this.timeoutS, out));
    this.blocked(done, `send to ${dest}, tag ${tag}`);
  }

  /** MPI_Recv (blocking) into `buf`: its status once the message arrived; as send() otherwise. */
  recv(buf: ArrayBufferView | ArrayBuffer, source: number, tag: number, comm: Comm = COMM_WORLD): MpiStatus {
    const out = this.blockOut;
    const done = this.call(() => this.addon.recvBlocking(buf, source, tag, comm, this.timeoutS, out));
    return this.blocked(done, `receive from ${source}, tag ${tag}`);
  }

  /** Requests in flight. */
  get inflight(): number {
    return this.count;
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
    const ids = [...this.resolvers.keys()].filter((id) => this.resolvers[id] !== undefined);
    await Promise.allSettled(ids.map((id) => this.waitFor(id)));
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
      const r0 = this.resolvers[id];
      const j0 = this.rejecters[id];
      if (!r0 || !j0) return resolve();
      this.resolvers[id] = (s) => {
        r0(s);
        resolve();
      };
      this.rejecters[id] = (e) => {
        j0(e);
        resolve();
      };
    });
  }

  private call<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw mpiError(e);
    }
  }

  /** The status of blocking call `what` (`done`: 0 if it timed out), or its error thrown. */
  private blocked(done: number, what: string): MpiStatus {
    const out = this.blockOut;
    if (done === 0) {
      this.abort(
        `no MPI message completed in ${this.timeoutS} s in a blocking send or receive (a peer died or the ranks do not match their sends and receives): aborting the job`,
      );
    }
    if (out[4] !== 0) {
      throw new LocusError('LOCUS_MPI_FAILED', `MPI ${what} failed: ${this.addon.errorText(out[4]!)}`);
    }
    return { source: out[1]!, tag: out[2]!, bytes: out[3]! };
  }

  private track(id: number): RawRequest {
    const done = new Promise<MpiStatus>((resolve, reject) => {
      this.resolvers[id] = resolve;
      this.rejecters[id] = reject;
    });
    if (++this.count === 1) this.stalledSince = 0;
    this.schedule();
    return { id, done };
  }

  /**
   * Schedules a poll after new requests were posted: as a microtask (it runs once the code that
   * posted them yields, without an event-loop hop) while the current chain of such polls is
   * younger than CHAIN_MS, else through setImmediate (a full event-loop turn: timers, I/O and
   * the engine run in between).
   */
  private schedule(): void {
    if (this.microQueued) return;
    // performance.now() costs about as much as the rest of a post: read it every CLOCK_EVERY.
    if (++this.chained % CLOCK_EVERY === 0 && performance.now() - this.turnStart >= CHAIN_MS)
      this.chainExpired = true;
    if (this.chainExpired) this.scheduleTurn();
    else {
      this.microQueued = true;
      queueMicrotask(this.microPoll);
    }
  }

  /** Schedules a poll on the next event-loop turn (setImmediate), once. */
  private scheduleTurn(): void {
    if (this.turnQueued) return;
    this.turnQueued = true;
    setImmediate(this.turnPoll);
  }

  private readonly microPoll = (): void => {
    this.microQueued = false;
    this.poll();
  };

  private readonly turnPoll = (): void => {
    this.turnQueued = false;
    this.turnStart = performance.now();
    this.chained = 0;
    this.chainExpired = false;
    this.poll();
  };

  private poll(): void {
    if (this.count === 0) return;
    if (this.out.length < 5 * this.count) this.out = new Int32Array(10 * this.count);
    let n: number;
    try {
      // Up to TRIES non-blocking MPI_Testsome calls in a row (each a bounded busy-poll in C of
      // at most spinUs microseconds), returning at the first completion: the turn stays short.
      n = this.addon.testsome(this.spinUs, this.out);
      for (let i = 1; i < TRIES && n === 0; i++) n = this.addon.testsome(this.spinUs, this.out);
    } catch (e) {
      this.failAll(e instanceof Error ? e.message : String(e));
      return;
    }
    // Settling queues the continuations as microtasks: those that post new requests schedule
    // a microtask poll then (track).
    const o = this.out;
    for (let k = 0; k < n; k++)
      this.settle(o[5 * k]!, o[5 * k + 1]!, o[5 * k + 2]!, o[5 * k + 3]!, o[5 * k + 4]!);
    if (this.count === 0) return;
    if (n > 0) {
      this.stalledSince = 0;
      // Messages are flowing: poll again once the continuations ran (a microtask while the
      // chain is young), not one event-loop turn later.
      this.schedule();
      return;
    }
    const now = Date.now();
    if (this.stalledSince === 0) this.stalledSince = now;
    else if (this.timeoutS > 0 && now - this.stalledSince > this.timeoutS * 1000) {
      this.abort(
        `no MPI message completed in ${this.timeoutS} s with ${this.count} requests in flight (a peer died or the ranks do not match their sends and receives): aborting the job`,
      );
    }
    this.scheduleTurn();
  }

  /** Settles the promise of one completed request. */
  private settle(id: number, source: number, tag: number, bytes: number, error: number): void {
    const resolve = this.resolvers[id];
    const reject = this.rejecters[id];
    this.resolvers[id] = undefined;
    this.rejecters[id] = undefined;
    if (!resolve || !reject) return;
    this.count--;
    if (error !== 0) {
      const what = `MPI request (peer ${source}, tag ${tag}) failed: ${this.addon.errorText(error)}`;
      reject(new LocusError('LOCUS_MPI_FAILED', what));
    } else resolve({ source, tag, bytes });
  }

  private failAll(message: string): void {
    const e = new LocusError('LOCUS_MPI_FAILED', message.replace(/^locus-mpi: /, 'MPI: '));
    const rejecters = this.rejecters.splice(0);
    this.resolvers.length = 0;
    this.count = 0;
    for (const reject of rejecters) reject?.(e);
  }
}

/** An addon error as a LocusError (LOCUS_MPI_FAILED). */
function mpiError(e: unknown): LocusError {
  if (e instanceof LocusError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new LocusError('LOCUS_MPI_FAILED', msg.replace(/^locus-mpi: /, 'MPI: '));
}
