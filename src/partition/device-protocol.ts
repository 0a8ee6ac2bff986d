/**
 * The shared control block between the main thread and one device thread of a threaded real
 * run (device-threads.ts, device-worker.ts): Int32 slots, a Float64 slot for the measured time
 * and a byte area for an error message, all on one SharedArrayBuffer, driven with Atomics.
 */

/** Int32 slot: command number, bumped by the main thread for every command. */
export const SLOT_COMMAND = 0;
/** Int32 slot: the last command number the device thread finished. */
export const SLOT_DONE = 1;
/** Int32 slot: kernel index of the command (-1: stop). */
export const SLOT_KERNEL = 2;
/** Int32 slot: first work-group. */
export const SLOT_LO = 3;
/** Int32 slot: end work-group. */
export const SLOT_HI = 4;
/** Int32 slot: 0 while starting, 1 ready, -1 failed (message in the error area). */
export const SLOT_STATE = 5;
/** Int32 slots in the block (padded so the Float64 slot is aligned). */
export const INT_SLOTS = 8;
/** Bytes of the error message area. */
export const ERROR_BYTES = 2048;
/** Total bytes of a control block: Int32 slots, the slowdown factor and the time (Float64), the error area. */
export const CONTROL_BYTES = INT_SLOTS * 4 + 16 + ERROR_BYTES;

/** Views of one control block. */
export interface ControlViews {
  /** The Int32 slots. */
  readonly ints: Int32Array;
  /** [0]: slowdown factor of this device; [1]: seconds the last sub-kernel took. */
  readonly floats: Float64Array;
  /** The error message (UTF-8, zero-terminated). */
  readonly error: Uint8Array;
}

/** The views of control block `sab`. */
export function controlViews(sab: SharedArrayBuffer): ControlViews {
  return {
    ints: new Int32Array(sab, 0, INT_SLOTS),
    floats: new Float64Array(sab, INT_SLOTS * 4, 2),
    error: new Uint8Array(sab, INT_SLOTS * 4 + 16, ERROR_BYTES),
  };
}

/** What a device thread is started with (its workerData). */
export interface DeviceWorkerData {
  /** Its control block. */
  readonly control: SharedArrayBuffer;
  /** Module URL, export name and arguments that rebuild the sequence's kernels. */
  readonly source: { readonly module: string; readonly export: string; readonly args: readonly unknown[] };
  /** Its device memory: per buffer, the shared store and the element type. */
  readonly buffers: Readonly<Record<string, { readonly store: SharedArrayBuffer; readonly int: boolean }>>;
}
