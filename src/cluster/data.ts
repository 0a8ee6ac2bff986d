/**
 * Seed 001's MPI-like library on data handles (section IV, Table II): blocking, non-blocking,
 * array and detached sends and receives of a Runtime's data. A send acquires its datum for
 * reading (non-blocking acquire, ordered with the tasks submitted before it): MPI_Isend starts
 * once the datum is readable, and writers submitted after the send wait until it completes. A
 * receive acquires its datum for writing: tasks submitted after it that use the datum run once
 * the data arrived. Messages are posted in call order per (peer, tag, communicator), so sends
 * and receives match in program order as in MPI.
 */
import { LocusError } from '../core/types.ts';
import type { Data, Runtime } from '../exec/runtime.ts';
import { COMM_WORLD, type Comm, type Mpi } from './mpi.ts';

/** A non-blocking send or receive of one or several data (isend, irecv, arrayIsend, arrayIrecv). */
export class MpiRequest {
  private state: 'pending' | 'done' | 'failed' = 'pending';
  private error: Error | undefined;
  /** Settles when every message of the request completed and its data were released. */
  readonly done: Promise<void>;

  /** Wraps the promise of the request's completion. */
  constructor(done: Promise<void>) {
    this.done = done.then(
      () => {
        this.state = 'done';
      },
      (e: Error) => {
        this.state = 'failed';
        this.error = e;
        throw e;
      },
    );
    this.done.catch(() => {});
  }

  /** MPI_Test: true once complete; throws the request's error if it failed. */
  test(): boolean {
    if (this.state === 'failed') throw this.error;
    return this.state === 'done';
  }

  /** MPI_Wait: resolves once complete (the event loop keeps running meanwhile). */
  wait(): Promise<void> {
    return this.done;
  }
}

/** A callback of a detached operation: called once it completed (with its error if it failed). */
export type DetachedCallback = (error?: Error) => void;

/** The MPI-like library of one process: sends and receives data handles of `rt` through `mpi`. */
export class MpiData {
  private readonly rt: Runtime;
  private readonly mpi: Mpi;
  /** Per (send|recv, peer, tag, comm): the posting of the previous message there. */
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly detached = new Set<Promise<void>>();
  private readonly detachedErrors: Error[] = [];

  /** The library for runtime `rt` over MPI process `mpi`. */
  constructor(rt: Runtime, mpi: Mpi) {
    this.rt = rt;
    this.mpi = mpi;
  }

  /** starpu_mpi_isend: sends `d` to `dest` once readable; writers after it wait for the send. */
  isend(d: Data, dest: number, tag: number, comm: Comm = COMM_WORLD): MpiRequest {
    return new MpiRequest(this.transfer('send', d, dest, tag, comm));
  }

  /** starpu_mpi_irecv: receives `d` from `source`; tasks after it that use `d` see the data. */
  irecv(d: Data, source: number, tag: number, comm: Comm = COMM_WORLD): MpiRequest {
    return new MpiRequest(this.transfer('recv', d, source, tag, comm));
  }

  /** starpu_mpi_send: resolves once `d` was sent (an await: tasks and timers go on meanwhile). */
  send(d: Data, dest: number, tag: number, comm: Comm = COMM_WORLD): Promise<void> {
    return this.isend(d, dest, tag, comm).wait();
  }

  /** starpu_mpi_recv: resolves once `d` was received. */
  recv(d: Data, source: number, tag: number, comm: Comm = COMM_WORLD): Promise<void> {
    return this.irecv(d, source, tag, comm).wait();
  }

  /** starpu_mpi_array_isend: one request for several data, sent in order with one tag. */
  arrayIsend(ds: readonly Data[], dest: number, tag: number, comm: Comm = COMM_WORLD): MpiRequest {
    return new MpiRequest(
      Promise.all(ds.map((d) => this.transfer('send', d, dest, tag, comm))).then(() => {}),
    );
  }

  /** starpu_mpi_array_irecv: one request for several data, received in order with one tag. */
  arrayIrecv(ds: readonly Data[], source: number, tag: number, comm: Comm = COMM_WORLD): MpiRequest {
    return new MpiRequest(
      Promise.all(ds.map((d) => this.transfer('recv', d, source, tag, comm))).then(() => {}),
    );
  }

  /** starpu_mpi_send_detached: no test or wait; `callback` runs once sent. */
  sendDetached(
    d: Data,
    dest: number,
    tag: number,
    comm: Comm = COMM_WORLD,
    callback?: DetachedCallback,
  ): void {
    this.detach(this.transfer('send', d, dest, tag, comm), callback);
  }

  /** starpu_mpi_recv_detached: no test or wait; tasks that depend on `d` run once the data arrived. */
  recvDetached(
    d: Data,
    source: number,
    tag: number,
    comm: Comm = COMM_WORLD,
    callback?: DetachedCallback,
  ): void {
    this.detach(this.transfer('recv', d, source, tag, comm), callback);
  }

  /**
   * Resolves once every detached operation posted so far completed; rejects with the first error
   * of one that failed without a callback.
   */
  async flush(): Promise<void> {
    while (this.detached.size > 0) await Promise.allSettled([...this.detached]);
    const e = this.detachedErrors.shift();
    if (e) throw e;
  }

  private detach(p: Promise<void>, callback?: DetachedCallback): void {
    const tracked = p.then(
      () => callback?.(),
      (e: Error) => {
        if (callback) callback(e);
        else this.detachedErrors.push(e);
      },
    );
    this.detached.add(tracked);
    void tracked.finally(() => this.detached.delete(tracked));
  }

  /** Acquire (R for a send, RW for a receive), post in order, complete, release. */
  private transfer(kind: 'send' | 'recv', d: Data, peer: number, tag: number, comm: Comm): Promise<void> {
    const { ticket, data } = this.rt.acquireTicket(d, kind === 'send' ? 'R' : 'RW');
    const key = `${kind}:${peer}:${tag}:${comm}`;
    const before = this.chains.get(key) ?? Promise.resolve();
    const posted = before.then(
      () => data,
      () => data,
    );
    const req = posted.then((view) =>
      kind === 'send' ? this.mpi.isend(view, peer, tag, comm) : this.mpi.irecv(view, peer, tag, comm),
    );
    this.chains.set(key, req);
    void req.then(
      () => {
        if (this.chains.get(key) === req) this.chains.delete(key);
      },
      () => {},
    );
    return req
      .then(async (r) => {
        const st = await r.done;
        const view = await data;
        if (kind === 'recv' && st.bytes !== view.byteLength) {
          throw new LocusError(
            'LOCUS_MPI_FAILED',
            `${d.name}: received ${st.bytes} bytes from rank ${st.source} (tag ${st.tag}), the datum holds ${view.byteLength}: the ranks register data of different sizes`,
          );
        }
      })
      .finally(() => this.rt.releaseTicket(ticket));
  }
}
