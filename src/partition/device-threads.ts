/**
 * The device threads of a threaded real run: one thread of the runtime's worker pool
 * (src/exec/pool.ts) per emulated device, each serving its device (device-worker.ts: the
 * pool's 'serve' message) and computing in place on the device's memory (SharedArrayBuffers,
 * memories.ts). The main thread commands a sub-kernel per device, they run concurrently, and
 * it blocks (Atomics.wait) until all are done, so runPartitioned() stays synchronous. A thread
 * that fails to start or throws ends the run with one LocusError line.
 */
import { LocusError } from '../core/types.ts';
import { WorkerPool } from '../exec/pool.ts';
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

/** The module of the device service (device-worker.ts, compiled or from the sources under tsx). */
const SERVICE = new URL(`./device-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

/** How long the main thread waits for a thread to start or to finish a sub-kernel (ms). */
const WAIT_MS = 300_000;

/** One worker thread per device, driven through shared control blocks. */
export class DeviceThreads {
  private readonly pool: WorkerPool;
  private readonly controls: ControlViews[] = [];
  private command = 0;

  /**
   * Starts one thread per device memory in `memories` (each on SharedArrayBuffers), with
   * `factors[d]` the compute slowdown of device d; returns once all have loaded the kernels.
   */
  constructor(source: SequenceSource, memories: readonly Memory[], factors: readonly number[]) {
    // Idle threads do not keep the process alive (a run that throws leaves nothing behind).
    this.pool = new WorkerPool(memories.length, true);
    try {
      for (const [d, mem] of memories.entries()) this.serve(d, source, mem, factors[d] ?? 1);
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

  /** Starts device d's service on thread d, over memory `mem`, computing `factor` times slower. */
  private serve(d: number, source: SequenceSource, mem: Memory, factor: number): void {
    const control = new SharedArrayBuffer(CONTROL_BYTES);
    const views = controlViews(control);
    views.floats[0] = factor;
    const buffers: Record<string, { store: SharedArrayBuffer; int: boolean }> = {};
    for (const [name, a] of Object.entries(mem)) {
      if (!(a.buffer instanceof SharedArrayBuffer))
        throw new LocusError(
          'LOCUS_WORKER_THREAD_FAILED',
          `device ${d} buffer ${name} is not on a SharedArrayBuffer`,
        );
      buffers[name] = { store: a.buffer, int: a instanceof Int32Array };
    }
    const data: DeviceWorkerData = { control, source, buffers };
    // The service reports through the control block; its reply only ends the request.
    void this.pool.threads[d]!.request({ type: 'serve', module: SERVICE.href, export: 'serveDevice', data });
    this.controls.push(views);
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
    void this.pool.close();
  }
}
