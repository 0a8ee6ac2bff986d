/**
 * What the real driver's main thread and its worker threads say to each other. Bulk traffic
 * (tasks to run, completions) goes through shared rings (ring.ts); these messages set things
 * up: codelet modules to import, replica buffers, a run's shared tables.
 *
 * A task record in a worker's ring: [task, kernel, n, m, buf_0, ..., buf_{n-1}, arg bits]
 * where buf_i is the id of the buffer holding the task's i-th access on the worker's node,
 * kernel the kernel id (-1: nothing to run; plus WATCHED_KERNEL for a task with a time
 * limit) and the m float64 arguments follow as 2 m int32 words (their bits). A completion record: [task, status, start bits (2), end bits (2)] with
 * status COMPLETED or FAILED (an error message precedes it on the worker's port), start and
 * end in ms since the epoch.
 */

/** Element types a buffer can be viewed as; the code travels with each buffer. */
export const DTYPES = ['float64', 'float32', 'int32', 'uint8'] as const;
/** One of DTYPES. */
export type DType = (typeof DTYPES)[number];

/** The typed-array view of each dtype. */
export type DataView_ = Float64Array | Float32Array | Int32Array | Uint8Array;

/** Creates the view of `buffer` for dtype code `code` (index in DTYPES). */
export function viewOf(buffer: SharedArrayBuffer, code: number): DataView_ {
  switch (code) {
    case 0:
      return new Float64Array(buffer);
    case 1:
      return new Float32Array(buffer);
    case 2:
      return new Int32Array(buffer);
    default:
      return new Uint8Array(buffer);
  }
}

/** Bytes per element of each dtype code. */
export const DTYPE_BYTES = [8, 4, 4, 1] as const;

/** A task's completion status in a completion record. */
export const Status = {
  /** The kernel returned. */
  COMPLETED: 0,
  /** The kernel threw; the message follows on the worker's port. */
  FAILED: 1,
} as const;

/** Int32 words of a completion record. */
export const COMPLETION_WORDS = 6;

/** Int32 words of a task record's header (task, kernel, buffers, arguments). */
export const RECORD_HEADER = 4;

/** A codelet's CPU implementation: a module URL and the name of the function it exports. */
export interface KernelRef {
  /** URL (file:// or a package specifier) of an ES module the workers import. */
  readonly module: string;
  /** Name of the exported function `(data, args) => void`. */
  readonly export: string;
}

/** A CPU kernel as workers call it: the task's data (one view per access) and its numeric arguments. */
export type Kernel = (data: DataView_[], args: Float64Array) => void;

/** Main to worker, on the control channel (parentPort). */
export type ControlMessage =
  | { type: 'load'; kernels: { index: number; ref: KernelRef }[] }
  | {
      type: 'run';
      /** Task ring (main to worker) and completion ring (worker to main) buffers. */
      tasks: SharedArrayBuffer;
      done: SharedArrayBuffer;
      /** The bell the worker rings after publishing completions. */
      bell: SharedArrayBuffer;
      /** Where the worker says which task's kernel it is running, and since when (CURRENT_*). */
      current: SharedArrayBuffer;
    }
  | { type: 'stop' }
  | {
      type: 'serve';
      /** Module URL and export of a service function the thread runs (it may block, as a loop). */
      module: string;
      export: string;
      /** Its one argument (structured-cloned; shared buffers stay shared). */
      data: unknown;
    };

/** Main to worker, on the data port (read synchronously by the worker). */
export interface BufferMessage {
  type: 'buffer';
  id: number;
  buffer: SharedArrayBuffer;
  dtype: number;
}

/** Worker to main, on the data port, before a FAILED completion. */
export interface FailureMessage {
  type: 'failure';
  task: number;
  message: string;
}

/** Worker to main, on the control channel. */
export type WorkerReply =
  | { type: 'loaded'; errors: { index: number; message: string }[] }
  | { type: 'load-error'; message: string }
  | { type: 'stopped' }
  | { type: 'served'; error?: string };

/** The ring record that tells a worker its run is over. */
export const STOP_TASK = -1;

/**
 * The ring record that sends a worker back to its event loop until a 'load' message (posted
 * before the record) has imported new kernels; it then goes on with the records after it.
 */
export const YIELD_TASK = -2;

/** Layout of a bell: a counter the main thread waits on, and a flag saying it waits. */
export const BELL_COUNT = 0;
/** 1 while the main thread waits on the bell. */
export const BELL_SLEEP = 1;
/** Worker threads whose task ring is empty (they spin or sleep until it is refilled). */
export const BELL_IDLE = 2;
/** Int32 words of a bell. */
export const BELL_WORDS = 3;

/**
 * Layout of a worker's "current" words (Int32): the task whose kernel it is running (-1 when
 * none), written last, and that kernel's start (ms since the epoch, as the bits of a float64),
 * written first. The main thread reads them to end a task that runs past its time limit.
 */
export const CURRENT_TASK = 0;
/**
 * Added to a task record's kernel id when the task has a time limit: only then does the
 * worker publish its CURRENT_* words (tasks without a limit cost nothing more).
 */
export const WATCHED_KERNEL = 1 << 30;
/**
 * Added to a task record's kernel id when accesses are checked (RuntimeOptions.checkAccesses):
 * the record's buffer words then carry each access's mode above ACCESS_MODE_SHIFT.
 */
export const CHECKED_KERNEL = 1 << 29;
/** Bit position of an access mode in a checked record's buffer word (buffer ids stay below it). */
export const ACCESS_MODE_SHIFT = 26;
/** First of the two words of the running kernel's start time. */
export const CURRENT_START = 2;
/** Int32 words of a worker's "current" block. */
export const CURRENT_WORDS = 4;
