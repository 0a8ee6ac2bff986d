/**
 * The device threads of a threaded real run: one worker thread per emulated device, each
 * computing in place on its device's memory (SharedArrayBuffers, memories.ts). The main thread
 * commands a sub-kernel per device, they run concurrently, and it blocks (Atomics.wait) until
 * all are done, so runPartitioned() stays synchronous. A thread that fails to start or throws
 * ends the run with one LocusError line.
 */
import { Worker } from 'node:worker_threads';
import { LocusError } from '../core/types.ts';
import {
  CONTROL_BYTES,
  type ControlViews,
  controlViews,
  type DeviceWorkerData,
  SLOT_COMMAND,
  SLOT_DONE,
  SLOT_HI,
  SLOT_KERNEL,
  SLOT_LO,
  SLOT_STATE,
} from './device-protocol.ts';
import type { Memory, SequenceSource } from './kernel.ts';

/**
 * The module a device thread starts from: the compiled device-worker.js, or, run from the
 * TypeScript sources (tests, tsx), device-worker-entry.mjs, which registers tsx's loader first.
 */
const ENTRY = import.meta.url.endsWith('.ts')
  ? new URL('./device-worker-entry.mjs', import.meta.url)
  : new URL('./device-worker.js', import.meta.url);

/** Node flags for the threads: the main thread's, minus --input-type (as src/exec/pool.ts). */
const EXEC_ARGV = process.execArgv.filter(
  (a, i, all) => !a.startsWith('--input-type') && all[i - 1] !== '--input-type',
);

/** How long the main thread waits for a thread to start or to finish a sub-kernel (ms). */
const WAIT_MS = 300_000;

/** One worker thread per device, driven through shared control blocks. */
export class DeviceThreads {
  private readonly threads: Worker[] = [];
  private readonly controls: ControlViews[] = [];
  private command = 0;

  /**
   * Starts one thread per device memory in `memories` (each on SharedArrayBuffers), with
   * `factors[d]` the compute slowdown of device d; returns once all have loaded the kernels.
   */
  constructor(source: SequenceSource, memories: readonly Memory[], factors: readonly number[]) {
    memories.forEach((mem, d) => {
      const control = new SharedArrayBuffer(CONTROL_BYTES);
      const views = controlViews(control);
      views.floats[0] = factors[d] ?? 1;
      const buffers: Record<string, { store: SharedArrayBuffer; int: boolean }> = {};
      for (const [name, a] of Object.entries(mem)) {
        if (!(a.buffer instanceof SharedArrayBuffer))
          throw new LocusError(
            'LOCUS_WORKER_THREAD_FAILED',
            `device ${d} buffer ${name} is not on a SharedArrayBuffer`,
          );
        buffers[name] = { store: a.buffer, int: a instanceof Int32Array };
      }
      const workerData: DeviceWorkerData = { control, source, buffers };
      const thread = new Worker(ENTRY, { execArgv: EXEC_ARGV, workerData });
      thread.unref();
      this.threads.push(thread);
      this.controls.push(views);
    });
    try {
      this.controls.forEach((c, d) => {
        const deadline = performance.now() + WAIT_MS;
        while (Atomics.load(c.ints, SLOT_STATE) === 0) {
          if (performance.now() > deadline)
            throw new LocusError(
              'LOCUS_WORKER_THREAD_FAILED',
              `partition device thread ${d} did not start within ${WAIT_MS / 1000} s`,
            );
          Atomics.wait(c.ints, SLOT_STATE, 0, 100);
        }
        this.check(d);
      });
    } catch (e) {
      this.close();
      throw e;
    }
  }

  private check(d: number): void {
    const c = this.controls[d]!;
    if (Atomics.load(c.ints, SLOT_STATE) !== -1) return;
    const end = c.error.indexOf(0);
    const text = new TextDecoder().decode(c.error.slice(0, end < 0 ? c.error.length : end));
    throw new LocusError('LOCUS_WORKER_THREAD_FAILED', `partition device thread ${d} failed: ${text}`);
  }

  /**
   * Runs kernel `k` on every device d with work-groups `ranges[d]` (empty ranges skipped),
   * concurrently; returns per device the seconds its sub-kernel took (slowdown included, 0 if
   * skipped) and the wall seconds until the last one finished.
   */
  run(k: number, ranges: readonly (readonly [number, number])[]): { seconds: number[]; wall: number } {
    const seconds = ranges.map(() => 0);
    const c0 = performance.now();
    this.command++;
    const busy: number[] = [];
    ranges.forEach(([lo, hi], d) => {
      if (hi <= lo) return;
      const c = this.controls[d]!;
      c.ints[SLOT_KERNEL] = k;
      c.ints[SLOT_LO] = lo;
      c.ints[SLOT_HI] = hi;
      Atomics.store(c.ints, SLOT_COMMAND, this.command);
      Atomics.notify(c.ints, SLOT_COMMAND);
      busy.push(d);
    });
    for (const d of busy) {
      const c = this.controls[d]!;
      const deadline = performance.now() + WAIT_MS;
      for (;;) {
        const done = Atomics.load(c.ints, SLOT_DONE);
        if (done === this.command) break;
        if (done === -1) {
          this.close();
          this.check(d);
        }
        if (performance.now() > deadline) {
          this.close();
          throw new LocusError(
            'LOCUS_WORKER_THREAD_FAILED',
            `partition device thread ${d} did not finish kernel ${k} within ${WAIT_MS / 1000} s`,
          );
        }
        Atomics.wait(c.ints, SLOT_DONE, done, 100);
      }
      seconds[d] = c.floats[1]!;
    }
    return { seconds, wall: (performance.now() - c0) / 1000 };
  }

  /** Stops every thread (their loops end; the threads are also terminated). */
  close(): void {
    this.command++;
    for (const c of this.controls) {
      c.ints[SLOT_KERNEL] = -1;
      Atomics.store(c.ints, SLOT_COMMAND, this.command);
      Atomics.notify(c.ints, SLOT_COMMAND);
    }
    for (const t of this.threads) void t.terminate();
  }
}
