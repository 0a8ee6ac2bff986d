/**
 * What a backend is (DESIGN.md, src/drive/): the part of a driver that owns time and I/O.
 * The one command loop (driver.ts) hands it the engine's commands (run a task, copy a handle,
 * free a replica, give a copy priority) and asks it for the events that happened (a task
 * ended, a copy completed); a copy may complete whenever the backend says, so GPU queues and
 * network transfers fit without a special case. Besides its commands a backend has a life:
 * attached to the engine whose tables it reads, started, woken, given codelet kernels to load,
 * stopped. The simulator (src/sim/backend.ts), the worker threads (src/exec/thread-backend.ts)
 * and WebGPU (src/webgpu/backend.ts) implement it; src/drive/registry.ts lists them by name.
 */
import type { Engine } from '../core/engine.ts';
import type { KernelRef } from '../exec/protocol.ts';

/** Where a backend delivers events: the driver, which turns them into engine events. */
export interface EventSink {
  /**
   * Task `task` ended on `worker` (-1 when the backend does not say), running from `startS`
   * to `endS` on the backend's clock; `error` is set when it failed.
   */
  taskEnded(task: number, worker: number, startS: number, endS: number, error: string | undefined): void;
  /**
   * Copy `id` (an engine transfer id) completed. It started moving at `startS` on the
   * backend's clock: when it was issued, or later if it waited for its link or stream.
   */
  transferFinished(id: number, startS: number): void;
}

/**
 * Hears when copies started moving, as their backend reports it (the engine knows only when
 * it issued them): a Chrome trace draws the wait in a queue apart from the copy.
 */
export interface CopyStartObserver {
  /** Copy `id`, about to be reported finished, started moving at `startS`. */
  transferMoved(id: number, startS: number): void;
}

/**
 * A backend: executes commands and reports events. Everything a run needs from one: the
 * conformance suite (test/conformance/backend.ts) drives every registered backend through
 * this interface alone.
 */
export interface Backend {
  /** 'simulated' (virtual time) or 'real' (wall clock). */
  readonly mode: 'simulated' | 'real';
  /**
   * Gives the backend the engine whose tables (handles, transfers, task accesses) its
   * commands read; called once, before the engine opens.
   */
  attach(engine: Engine): void;
  /** Starts executing (worker threads enter their loops); after engine.open, idempotent. */
  start(): void;
  /**
   * Loads the CPU kernels `refs[from..]` wherever the backend runs them (worker threads import
   * their modules); resolves with the load errors by kernel index (a kernel that failed to
   * load fails only its tasks). A backend that runs no kernel resolves with no error.
   */
  loadKernels(refs: readonly KernelRef[], from: number): Promise<Map<number, string>>;
  /** Wakes a pending wait() at once (an abort, a dead thread); nothing for a simulated backend. */
  ring(): void;
  /** Stops executing once the engine is finished (threads leave their loops); idempotent. */
  stop(): Promise<void>;
  /** The backend's current time in seconds. */
  now(): number;
  /** Starts `task` on `worker` (its inputs are valid on the worker's node). */
  run(task: number, worker: number): void;
  /** Starts engine transfer `id` (handle, source and destination in the engine's tables). */
  copy(id: number): void;
  /** Transfer `id`, a prefetch so far, is now waited for: serve it first. */
  urgent(id: number): void;
  /** The replica of `handle` on `node` was freed. */
  free(handle: number, node: number): void;
  /**
   * Delivers events that have happened to `sink` and returns how many. A simulated backend
   * advances its clock to its next event; 0 means none is pending at all.
   */
  poll(sink: EventSink): number;
  /**
   * Nothing was delivered: a promise that settles when something may have happened (a real
   * backend's threads rang), or null when nothing ever will (a simulated backend: the run is
   * stalled unless the engine is idle).
   */
  wait(): Promise<void> | null;
  /**
   * Optional: the engine recycled tasks [0, k) (Engine.compact), all ended: every task id the
   * backend holds or will report shifts down by k. A backend without it keeps its owner from
   * recycling.
   */
  rebase?(k: number): void;
}
