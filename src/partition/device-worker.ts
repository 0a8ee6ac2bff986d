/**
 * A device's service in a threaded real run: on a thread of the runtime's worker pool
 * (src/exec/pool.ts, the 'serve' message), rebuilds the sequence's kernels from their module
 * and export (DeviceWorkerData.source), wraps its device's shared memory, then runs sub-kernels
 * as the main thread commands them through the control block (device-protocol.ts), timing each
 * one and, on a slowed device, sleeping so that it takes `slowdown` times as long. Returns when
 * commanded kernel -1; a failure is written to the control block (the main thread is blocked
 * on it, not on a message).
 */
import {
  controlViews,
  type DeviceWorkerData,
  SLOT_COMMAND,
  SLOT_DONE,
  SLOT_HI,
  SLOT_KERNEL,
  SLOT_LO,
  SLOT_STATE,
} from './device-protocol.ts';
import type { BufferData, KernelSequence } from './kernel.ts';

/** A word nobody notifies: Atomics.wait on it sleeps for a given time. */
const nap = new Int32Array(new SharedArrayBuffer(4));

/** Runs device `data`'s sub-kernel loop until commanded kernel -1 (see the file comment). */
export async function serveDevice(data: DeviceWorkerData): Promise<void> {
  const { ints, floats, error } = controlViews(data.control);
  const fail = (e: unknown): void => {
    const text = new TextEncoder().encode(e instanceof Error ? e.message : String(e));
    error.set(text.subarray(0, error.length - 1));
    Atomics.store(ints, SLOT_STATE, -1);
    Atomics.notify(ints, SLOT_STATE);
    Atomics.store(ints, SLOT_DONE, -1);
    Atomics.notify(ints, SLOT_DONE);
  };
  try {
    const mod = (await import(data.source.module)) as Record<string, unknown>;
    const factory = mod[data.source.export];
    if (typeof factory !== 'function')
      throw new Error(`module ${data.source.module} exports no function '${data.source.export}'`);
    const sequence = factory(...data.source.args) as KernelSequence;
    const mem: Record<string, BufferData> = {};
    for (const [name, b] of Object.entries(data.buffers))
      mem[name] = b.int ? new Int32Array(b.store) : new Float64Array(b.store);
    Atomics.store(ints, SLOT_STATE, 1);
    Atomics.notify(ints, SLOT_STATE);
    let seen = 0;
    for (;;) {
      Atomics.wait(ints, SLOT_COMMAND, seen);
      seen = Atomics.load(ints, SLOT_COMMAND);
      const k = ints[SLOT_KERNEL]!;
      if (k < 0) return;
      const kernel = sequence.kernels[k];
      if (!kernel) throw new Error(`no kernel ${k} in sequence ${sequence.name}`);
      const c0 = performance.now();
      kernel.run(mem, ints[SLOT_LO]!, ints[SLOT_HI]!);
      const factor = floats[0]!;
      if (factor > 1) {
        // The slowed device's extra time, slept (Atomics.wait) rather than spun, so that it does
        // not take a core from the other device threads; the last 0.1 ms is spun for precision.
        const until = c0 + (performance.now() - c0) * factor;
        const sleep = until - performance.now() - 0.1;
        if (sleep > 0) Atomics.wait(nap, 0, 0, sleep);
        while (performance.now() < until) {
          // spin
        }
      }
      floats[1] = (performance.now() - c0) / 1000;
      Atomics.store(ints, SLOT_DONE, seen);
      Atomics.notify(ints, SLOT_DONE);
    }
  } catch (e) {
    fail(e);
  }
}
