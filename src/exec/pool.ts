/**
 * The real driver's worker threads: starting them, loading codelet modules into them,
 * announcing buffers, and replacing one that died. No scheduling here (DESIGN.md: pool logic
 * never mixed with thread I/O): the driver decides what each thread runs.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import { LocusError } from '../core/types.ts';
import type { BufferMessage, ControlMessage, FailureMessage, KernelRef, WorkerReply } from './protocol.ts';
import { startWorker } from './worker-flags.ts';

/**
 * The module a worker thread starts from. Compiled (dist/exec/pool.js), it is the compiled
 * worker.js itself; run from the TypeScript sources (tests, tsx), it is worker-entry.mjs,
 * which registers tsx's loader before importing worker.ts (Node 20 cannot start a worker from
 * a .ts file).
 */
const ENTRY = import.meta.url.endsWith('.ts')
  ? new URL('./worker-entry.mjs', import.meta.url)
  : new URL('./worker.js', import.meta.url);

/** One worker thread and the main thread's ends of its channels. */
export class WorkerThread {
  /** The thread. */
  thread: Worker;
  /** The data port (buffers to the worker, failure messages back). */
  port: MessagePort;
  /** The buffer this thread has been told about for each id (an id may get a new buffer). */
  known: (SharedArrayBuffer | undefined)[] = [];
  /** Set when the thread exited; the exit code. */
  exitCode: number | undefined;
  private replies: ((m: WorkerReply) => void)[] = [];
  /** Called when the thread exits unexpectedly (set by the driver during a run). */
  onExit: ((code: number) => void) | undefined;
  /** Called when the thread's run loop ended on a STOP record. */
  onStopped: (() => void) | undefined;
  /** Whether the thread keeps the process alive (a new Worker does; see WorkerPool.hold). */
  private held = true;

  constructor(readonly index: number) {
    const { thread, port } = this.spawn();
    this.thread = thread;
    this.port = port;
  }

  private spawn(): { thread: Worker; port: MessagePort } {
    const channel = new MessageChannel();
    // The main thread's Node flags, less those Node refuses for a worker (worker-flags.ts).
    const thread = startWorker(ENTRY, {
      workerData: { port: channel.port2 },
      transferList: [channel.port2],
    });
    thread.on('message', (m: WorkerReply) => {
      if (m.type === 'stopped') this.onStopped?.();
      else this.replies.shift()?.(m);
    });
    thread.on('error', () => {
      // An uncaught error ends the thread; 'exit' follows and reports it.
    });
    thread.on('exit', (code) => {
      this.exitCode = code;
      for (const r of this.replies.splice(0))
        r({ type: 'load-error', message: `worker exited with code ${code}` });
      this.onExit?.(code);
    });
    this.exitCode = undefined;
    this.known = [];
    if (!this.held) thread.unref();
    return { thread, port: channel.port1 };
  }

  /** Makes the thread keep the process alive (true) or not (false: an idle thread). */
  keepAlive(on: boolean): void {
    this.held = on;
    if (on) this.thread.ref();
    else this.thread.unref();
  }

  /** Replaces a dead thread by a fresh one (buffers are announced again as needed). */
  respawn(): void {
    const { thread, port } = this.spawn();
    this.thread = thread;
    this.port = port;
  }

  /** Sends a control message and waits for the thread's reply. */
  request(m: ControlMessage): Promise<WorkerReply> {
    return new Promise((resolve) => {
      if (this.exitCode !== undefined) {
        resolve({ type: 'load-error', message: `worker exited with code ${this.exitCode}` });
        return;
      }
      this.replies.push(resolve);
      this.thread.postMessage(m);
    });
  }

  /** Sends a control message that gets no reply (a run: onStopped is called at its end). */
  post(m: ControlMessage): void {
    this.thread.postMessage(m);
  }

  /** Makes sure the thread knows buffer `id` before a task record refers to it. */
  announce(id: number, buffer: SharedArrayBuffer, dtype: number): void {
    if (this.known[id] === buffer) return;
    this.known[id] = buffer;
    this.port.postMessage({ type: 'buffer', id, buffer, dtype } satisfies BufferMessage);
  }

  /** The failure message the thread posted for `task` (it precedes the FAILED completion). */
  takeFailure(task: number): string {
    for (let i = 0; i < 1000; i++) {
      const got = receiveMessageOnPort(this.port);
      if (got === undefined) continue;
      const m = got.message as FailureMessage;
      if (m.type === 'failure' && m.task === task) return m.message;
    }
    return 'the kernel threw (no message received)';
  }
}

/** A fixed set of worker threads with the codelet modules they have imported. */
export class WorkerPool {
  /** The threads, indexed like the platform's workers. */
  readonly threads: WorkerThread[];
  private readonly loaded: KernelRef[] = [];
  private closed = false;
  /** Work in flight on the threads (hold): while there is none, they let the process exit. */
  private holds = 0;

  /**
   * `size` threads: 0 for a machine whose every worker is a real GPU (the webgpu backend).
   * With `idleExit`, idle threads do not keep the process alive: only while some work holds
   * them (hold()) do they.
   */
  constructor(size: number, idleExit = false) {
    if (!Number.isInteger(size) || size < 0)
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `worker threads must be a non-negative integer (got ${size})`,
      );
    this.threads = Array.from({ length: size }, (_, i) => new WorkerThread(i));
    if (idleExit) for (const t of this.threads) t.keepAlive(false);
    else this.holds = 1;
  }

  /**
   * Keeps the threads from letting the process exit until the returned function is called
   * (in a pool made with idleExit: idle threads do not keep it alive, so a program that forgets
   * close() still exits; threads with work in flight do).
   */
  hold(): () => void {
    if (this.holds++ === 0) for (const t of this.threads) t.keepAlive(true);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) for (const t of this.threads) t.keepAlive(false);
    };
  }

  /** True once close() was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Number of kernels every thread has imported. */
  get kernelCount(): number {
    return this.loaded.length;
  }

  /**
   * Imports the kernels of `refs` (the full kernel table, indexed by kernel id) from index
   * `from` on into every thread; `beforeWait(thread)` runs after the request is posted (a
   * running thread must be told through its ring to go back to its event loop). Resolves
   * with the load errors by kernel id: a kernel that fails to load fails its own tasks only.
   */
  async load(
    refs: readonly KernelRef[],
    from = this.loaded.length,
    beforeWait?: (t: WorkerThread) => void,
  ): Promise<Map<number, string>> {
    const errors = new Map<number, string>();
    if (refs.length <= from) return errors;
    const kernels = refs.slice(from).map((ref, i) => ({ index: from + i, ref }));
    const replies = await Promise.all(
      this.threads.map((t) => {
        const p = t.request({ type: 'load', kernels });
        beforeWait?.(t);
        return p;
      }),
    );
    for (const r of replies) {
      if (r.type === 'load-error')
        throw new LocusError(
          'LOCUS_WORKER_THREAD_FAILED',
          `a worker thread died while loading kernels: ${r.message}`,
        );
      if (r.type === 'loaded') for (const e of r.errors) errors.set(e.index, e.message);
    }
    for (let i = this.loaded.length; i < refs.length; i++) this.loaded.push(refs[i]!);
    return errors;
  }

  /** Replaces thread `i` after it died, and reloads every kernel into the new one. */
  async replace(i: number): Promise<void> {
    const t = this.threads[i]!;
    t.respawn();
    if (this.loaded.length === 0) return;
    const r = await t.request({ type: 'load', kernels: this.loaded.map((ref, index) => ({ index, ref })) });
    if (r.type === 'load-error')
      throw new LocusError('LOCUS_WORKER_THREAD_FAILED', `cannot restart worker ${i}: ${r.message}`);
  }

  /** Ends every thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.threads) t.onExit = undefined;
    await Promise.all(this.threads.map((t) => t.thread.terminate()));
  }
}
