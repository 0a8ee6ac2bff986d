/**
 * The body of a real-driver worker thread (started through worker-entry.mjs). It imports the
 * codelets' modules when told, then, for each run, executes the task records of its ring in
 * order: it looks up the buffers of the task's accesses (receiving new ones from its data
 * port synchronously), calls the kernel, stamps start and end times, and publishes a
 * completion. When its ring is empty it spins briefly, then sleeps on the ring.
 */
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import {
  BELL_COUNT,
  BELL_SLEEP,
  type BufferMessage,
  type ControlMessage,
  type DataView_,
  type FailureMessage,
  type Kernel,
  STOP_TASK,
  Status,
  viewOf,
  type WorkerReply,
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

function run(m: Extract<ControlMessage, { type: 'run' }>): void {
  const ring = new Ring(m.tasks);
  const done = new Ring(m.done);
  const bell = new Int32Array(m.bell);
  const taskKernel = new Int32Array(m.taskKernel);
  const argStart = new Int32Array(m.argStart);
  const args = new Float64Array(m.args);
  const times = new Float64Array(m.times);
  const cancelled = new Uint8Array(m.cancelled);
  for (;;) {
    let avail = ring.available();
    if (avail === 0) {
      const until = performance.now() + SPIN_MS;
      while (avail === 0 && performance.now() < until) avail = ring.available();
      while (avail === 0) {
        ring.sleep(100);
        avail = ring.available();
      }
    }
    const task = ring.peek(0);
    if (task === STOP_TASK) {
      ring.advance(1);
      return;
    }
    const n = ring.peek(1);
    let status: number = Status.COMPLETED;
    const start = epoch + performance.now();
    if (cancelled[task] === 1) {
      status = Status.SKIPPED;
    } else {
      const k = taskKernel[task]!;
      if (k >= 0) {
        const data: DataView_[] = new Array(n);
        for (let i = 0; i < n; i++) {
          const id = ring.peek(2 + i);
          data[i] = views[id] ?? awaitBuffer(id);
        }
        try {
          const fn = kernels[k];
          if (fn === undefined) throw new Error(`kernel ${k} was not loaded in this worker`);
          fn(data, args.subarray(argStart[task]!, argStart[task + 1]!));
        } catch (e) {
          status = Status.FAILED;
          const message = e instanceof Error ? e.message : String(e);
          port.postMessage({ type: 'failure', task, message } satisfies FailureMessage);
        }
      }
    }
    times[2 * task] = start;
    times[2 * task + 1] = epoch + performance.now();
    ring.advance(2 + n);
    while (!done.push2(task, status)) {
      // The main thread drains completions continuously: a full ring empties soon.
    }
    Atomics.add(bell, BELL_COUNT, 1);
    if (Atomics.load(bell, BELL_SLEEP) === 1) Atomics.notify(bell, BELL_COUNT);
  }
}

parentPort!.on('message', async (m: ControlMessage) => {
  if (m.type === 'load') {
    try {
      for (const { index, ref } of m.kernels) {
        const mod = (await import(ref.module)) as Record<string, unknown>;
        const fn = mod[ref.export];
        if (typeof fn !== 'function') {
          throw new Error(`module ${ref.module} has no exported function '${ref.export}'`);
        }
        kernels[index] = fn as Kernel;
      }
      reply({ type: 'loaded' });
    } catch (e) {
      reply({ type: 'load-error', message: e instanceof Error ? e.message : String(e) });
    }
  } else if (m.type === 'run') {
    run(m);
    reply({ type: 'stopped' });
  } else if (m.type === 'stop') {
    process.exit(0);
  }
});
