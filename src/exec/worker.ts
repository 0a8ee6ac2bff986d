/**
 * The body of a real-driver worker thread (started through worker-entry.mjs). It imports the
 * codelets' modules when told, then, for each run, executes the task records of its ring in
 * order: it looks up the buffers of the task's accesses (receiving new ones from its data
 * port synchronously), decodes the arguments, calls the kernel, and publishes a completion
 * with the start and end times. A kernel that throws, returns a promise, or failed to load
 * fails its task only. When its ring is empty it spins briefly, then sleeps on the ring.
 */
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { afterKernel, beforeKernel } from './access-check.ts';
import {
  ACCESS_MODE_SHIFT,
  BELL_COUNT,
  BELL_IDLE,
  BELL_SLEEP,
  type BufferMessage,
  CHECKED_KERNEL,
  COMPLETION_WORDS,
  type ControlMessage,
  CURRENT_START,
  CURRENT_TASK,
  type DataView_,
  type FailureMessage,
  type Kernel,
  RECORD_HEADER,
  STOP_TASK,
  Status,
  viewOf,
  WATCHED_KERNEL,
  type WorkerReply,
  YIELD_TASK,
} from './protocol.ts';
import { Ring } from './ring.ts';

/** How long an idle worker polls its ring before sleeping on it (ms). */
const SPIN_MS = 0.05;

const port = (workerData as { port: MessagePort }).port;
const kernels: (Kernel | undefined)[] = [];
const views: (DataView_ | undefined)[] = [];
const epoch = performance.timeOrigin;

function reply(m: WorkerReply): void {
  parentPort!.postMessage(m);
}

/** Reads buffer announcements from the data port until buffer `id` is known. */
function awaitBuffer(id: number): DataView_ {
  for (;;) {
    const got = receiveMessageOnPort(port);
    if (got === undefined) continue; // posted before the record: it is on its way
    const m = got.message as BufferMessage;
    views[m.id] = viewOf(m.buffer, m.dtype);
    if (m.id === id) return views[id]!;
  }
}

/** Load errors by kernel id: a task of a kernel that failed to load fails with its message. */
const loadErrors: (string | undefined)[] = [];

/** The run the thread serves (its rings), and whether its loop yielded for a kernel load. */
let current: Extract<ControlMessage, { type: 'run' }> | undefined;
let yielded = false;

/** Runs the current rings until STOP (replies 'stopped') or YIELD (waits for a load). */
function loop(): void {
  if (run(current!) === 'yield') yielded = true;
  else reply({ type: 'stopped' });
}

/** Runs the task records of the ring until a STOP or YIELD record. */
function run(m: Extract<ControlMessage, { type: 'run' }>): 'stop' | 'yield' {
  const ring = new Ring(m.tasks);
  const done = new Ring(m.done);
  const bell = new Int32Array(m.bell);
  const current = new Int32Array(m.current);
  // Float64 arguments and times travel as the bits of two int32 words.
  let argF64 = new Float64Array(16);
  let argI32 = new Int32Array(argF64.buffer);
  const timeF64 = new Float64Array(2);
  const completion = new Int32Array(COMPLETION_WORDS);
  const timeI32 = new Int32Array(timeF64.buffer);
  const data: DataView_[] = [];
  const modes: number[] = [];
  for (;;) {
    let avail = ring.available();
    if (avail === 0) {
      // Idle: say so (a worker that completes a task then rings the main thread at once, which
      // may have work for this one), and ring it in case completions wait unannounced.
      Atomics.add(bell, BELL_IDLE, 1);
      if (Atomics.load(bell, BELL_SLEEP) === 1) Atomics.notify(bell, BELL_COUNT);
      const until = performance.now() + SPIN_MS;
      while (avail === 0 && performance.now() < until) avail = ring.available();
      while (avail === 0) {
        ring.sleep(100);
        avail = ring.available();
      }
      Atomics.sub(bell, BELL_IDLE, 1);
    }
    const task = ring.peek(0);
    if (task === STOP_TASK) {
      ring.advance(1);
      return 'stop';
    }
    if (task === YIELD_TASK) {
      ring.advance(1);
      return 'yield';
    }
    let k = ring.peek(1);
    const watched = k >= WATCHED_KERNEL;
    if (watched) k -= WATCHED_KERNEL;
    const checked = k >= CHECKED_KERNEL;
    if (checked) k -= CHECKED_KERNEL;
    const n = ring.peek(2);
    const nArgs = ring.peek(3);
    let status: number = Status.COMPLETED;
    const start = epoch + performance.now();
    if (k >= 0) {
      data.length = n;
      modes.length = 0;
      for (let i = 0; i < n; i++) {
        let id = ring.peek(RECORD_HEADER + i);
        if (checked) {
          modes[i] = id >>> ACCESS_MODE_SHIFT;
          id &= (1 << ACCESS_MODE_SHIFT) - 1;
        }
        data[i] = views[id] ?? awaitBuffer(id);
      }
      if (nArgs > argF64.length) {
        argF64 = new Float64Array(Math.max(nArgs, argF64.length * 2));
        argI32 = new Int32Array(argF64.buffer);
      }
      const a0 = RECORD_HEADER + n;
      for (let i = 0; i < 2 * nArgs; i++) argI32[i] = ring.peek(a0 + i);
      if (watched) {
        // Say what runs since when (the main thread ends a task that runs past its limit).
        timeF64[0] = start;
        Atomics.store(current, CURRENT_START, timeI32[0]!);
        Atomics.store(current, CURRENT_START + 1, timeI32[1]!);
        Atomics.store(current, CURRENT_TASK, task);
      }
      try {
        const fn = kernels[k];
        if (fn === undefined) {
          throw new Error(loadErrors[k] ?? `kernel ${k} was not loaded in this worker`);
        }
        const saved = checked ? beforeKernel(data, modes) : undefined;
        const out = fn(data, argF64.subarray(0, nArgs)) as unknown;
        if (out !== undefined && typeof (out as { then?: unknown }).then === 'function') {
          // Its work would go on after the task is reported done: refuse it.
          (out as Promise<unknown>).then(undefined, () => undefined);
          throw new Error('the kernel returned a promise: kernels must be synchronous functions');
        }
        const broken = saved === undefined ? undefined : afterKernel(data, modes, saved);
        if (broken !== undefined) throw new Error(broken);
      } catch (e) {
        status = Status.FAILED;
        const message = e instanceof Error ? e.message : String(e);
        port.postMessage({ type: 'failure', task, message } satisfies FailureMessage);
      }
      if (watched) Atomics.store(current, CURRENT_TASK, -1);
    }
    timeF64[0] = start;
    timeF64[1] = epoch + performance.now();
    ring.advance(RECORD_HEADER + n + 2 * nArgs);
    completion[0] = task;
    completion[1] = status;
    completion[2] = timeI32[0]!;
    completion[3] = timeI32[1]!;
    completion[4] = timeI32[2]!;
    completion[5] = timeI32[3]!;
    while (!done.push(completion, COMPLETION_WORDS)) {
      // The main thread drains completions continuously: a full ring empties soon.
    }
    Atomics.add(bell, BELL_COUNT, 1);
    // Wake the main thread only when it has work to hand out that someone needs: this ring is
    // down to its last task, or another worker is idle. Otherwise the completion waits in the
    // done ring until the main thread next looks (it always does before it sleeps, and at most
    // BLOCK_MS later): fewer wake-ups, each handling several completions (issue 22).
    if (Atomics.load(bell, BELL_SLEEP) === 1 && (atMostOneLeft(ring) || Atomics.load(bell, BELL_IDLE) > 0))
      Atomics.notify(bell, BELL_COUNT);
  }
}

/** Whether `ring` holds at most one task record (or a STOP or YIELD record). */
function atMostOneLeft(ring: Ring): boolean {
  const avail = ring.available();
  if (avail === 0) return true;
  const task = ring.peek(0);
  if (task === STOP_TASK || task === YIELD_TASK) return true;
  return avail <= RECORD_HEADER + ring.peek(2) + 2 * ring.peek(3);
}

parentPort!.on('message', async (m: ControlMessage) => {
  if (m.type === 'load') {
    // Each kernel on its own: one that fails to load fails only its own tasks.
    const errors: { index: number; message: string }[] = [];
    for (const { index, ref } of m.kernels) {
      try {
        const mod = (await import(ref.module)) as Record<string, unknown>;
        const fn = mod[ref.export];
        if (typeof fn !== 'function') {
          throw new Error(`module ${ref.module} has no exported function '${ref.export}'`);
        }
        if (fn.constructor.name === 'AsyncFunction') {
          throw new Error(
            `'${ref.export}' of ${ref.module} is an async function: kernels must be synchronous (a task ends when its kernel returns)`,
          );
        }
        kernels[index] = fn as Kernel;
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        loadErrors[index] = message;
        errors.push({ index, message });
      }
    }
    reply({ type: 'loaded', errors });
    // A run loop that yielded for this load goes on with the records after the YIELD.
    if (yielded) {
      yielded = false;
      loop();
    }
  } else if (m.type === 'run') {
    current = m;
    loop();
  } else if (m.type === 'stop') {
    process.exit(0);
  } else if (m.type === 'serve') {
    // Another role for this thread (src/partition/device-threads.ts: a device's sub-kernel loop).
    try {
      const mod = (await import(m.module)) as Record<string, unknown>;
      const fn = mod[m.export];
      if (typeof fn !== 'function')
        throw new Error(`module ${m.module} has no exported function '${m.export}'`);
      await (fn as (data: unknown) => unknown)(m.data);
      reply({ type: 'served' });
    } catch (e) {
      reply({ type: 'served', error: e instanceof Error ? e.message : String(e) });
    }
  }
});
