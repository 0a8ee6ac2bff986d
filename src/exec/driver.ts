/**
 * The real driver (DESIGN.md): the engine's commands executed on worker threads and shared
 * memory, in wall-clock time. RUN becomes a record in the worker's ring; TRANSFER a copy
 * between replica buffers (optionally held back to the route's bandwidth and latency, to
 * emulate a device link); FREE returns a device replica to its pool. Completions come back
 * through each worker's completion ring and become engine events.
 *
 * The engine runs with issueAhead: a worker holds several tasks in its ring and runs them in
 * order, so the main thread's round trip hides behind the kernels. The main thread polls for
 * a short while when nothing is done, then waits on a shared bell that workers ring.
 *
 * Failures: a kernel that throws fails its task; a worker thread that exits fails the task it
 * was running and is replaced. The tasks that depend on a failed task, transitively, are
 * cancelled (workers skip them); all others still run; the run resolves with the failures
 * listed, and nothing waits forever.
 */
import { Cmd, Engine, type EngineObserver } from '../core/engine.ts';
import type { TaskGraph } from '../core/graph.ts';
import type { DurationModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import type { EvictionPolicy, Scheduler } from '../core/policy.ts';
import { LocusError } from '../core/types.ts';
import type { BufferStore } from './buffers.ts';
import type { WorkerPool, WorkerThread } from './pool.ts';
import { BELL_COUNT, BELL_SLEEP, STOP_TASK, Status } from './protocol.ts';
import { Ring } from './ring.ts';

/** A task that failed, and why. */
export interface TaskFailure {
  /** Task id. */
  task: number;
  /** Task label (its name, or its codelet and id). */
  label: string;
  /** Codelet name. */
  codelet: string;
  /** What went wrong. */
  message: string;
}

/** What runReal needs. */
export interface RealRunOptions {
  graph: TaskGraph;
  platform: Platform;
  scheduler: Scheduler;
  eviction: EvictionPolicy;
  model: DurationModel;
  seed?: number;
  /** Kernel id of each task, -1 for a task with no kernel (nothing to run). */
  taskKernel: Int32Array;
  /** Start offset of each task's arguments in `args` (taskCount + 1 entries). */
  argStart: Int32Array;
  /** Every task's numeric arguments. */
  args: Float64Array;
  /** The threads: one per platform worker, in the same order. */
  pool: WorkerPool;
  /** Replica buffers (handles registered in the graph's order). */
  store: BufferStore;
  /** Hold each copy back to its route's latency + bytes / bandwidth (emulated device links). */
  throttle?: boolean;
  /** Tasks a CPU worker holds at once (default 4). */
  cpuPipeline?: number;
  /** Tasks a GPU (emulated device) worker holds at once (default 4). */
  gpuPipeline?: number;
  /** Tasks a GPU worker pops ahead of its pipeline (the engine's default otherwise). */
  gpuLookahead?: number;
  /**
   * Attaches observers to the run's engine: `engine` ones see replica and transfer events as
   * the engine emits them; `tasks` ones see task starts and ends with the times the workers
   * measured, when each task completes (the engine hands tasks out ahead of their start).
   */
  observe?: (engine: Engine) => { engine?: EngineObserver[]; tasks?: EngineObserver[] };
  /** Called every `progressEvery` completed tasks. */
  onProgress?: (done: number, total: number) => void;
  progressEvery?: number;
  /** Aborts the run (Ctrl-C): threads are terminated and the promise rejects. */
  signal?: AbortSignal;
  /** Calibration mode (EngineOptions.calibrate). */
  calibrate?: boolean;
}

/** What a real run measured. */
export interface RealRunResult {
  /** Seconds from start to the last task's end. */
  makespanS: number;
  /** Seconds from start to the end of the last write-back. */
  endS: number;
  /** Tasks that failed. */
  failures: TaskFailure[];
  /** Tasks cancelled because a predecessor failed. */
  cancelled: number;
  /** The engine (for reports). */
  engine: Engine;
}

/** Atomics.waitAsync (Node 16+; TypeScript's lib for our target lacks its type). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      a: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: boolean; value: Promise<string> | string };
  }
).waitAsync;

/** How long the main thread polls before waiting on the bell (ms). */
const SPIN_MS = 0.05;
/** A held-back copy due within this many ms is waited for by spinning, not by a timer. */
const TIMER_SPIN_MS = 2;
/** Longest stretch the main thread keeps the event loop blocked (ms). */
const YIELD_MS = 20;

/** Runs the graph for real and resolves when every task finished and all data is home. */
export async function runReal(o: RealRunOptions): Promise<RealRunResult> {
  const { graph: g, platform: p, store, pool } = o;
  const nw = p.workers.length;
  if (pool.threads.length !== nw) {
    throw new Error(`the pool has ${pool.threads.length} threads for ${nw} platform workers`);
  }
  if (o.signal?.aborted) throw new LocusError('interrupted');
  const T = g.taskCount;
  const engine = new Engine({
    graph: g,
    platform: p,
    scheduler: o.scheduler,
    eviction: o.eviction,
    model: o.model,
    seed: o.seed,
    cpuPipeline: o.cpuPipeline ?? 4,
    gpuPipeline: o.gpuPipeline ?? 4,
    gpuLookahead: o.gpuLookahead,
    issueAhead: true,
    calibrate: o.calibrate,
  });
  const attached = o.observe?.(engine) ?? {};
  for (const ob of attached.engine ?? []) engine.observe(ob);
  const taskObservers = attached.tasks ?? [];
  store.beginRun(p.nodes.length, p.homeNode);

  // Per-run shared tables.
  let maxAccess = 0;
  for (let t = 0; t < T; t++) {
    maxAccess = Math.max(maxAccess, g.accessStart.data[t + 1]! - g.accessStart.data[t]!);
  }
  const depth = Math.max(o.cpuPipeline ?? 4, o.gpuPipeline ?? 4);
  const rings = p.workers.map(() => Ring.create((depth + 1) * (2 + maxAccess) + 1));
  const done = p.workers.map(() => Ring.create(2 * (depth + 4)));
  const bellBuf = new SharedArrayBuffer(8);
  const bell = new Int32Array(bellBuf);
  const timesBuf = new SharedArrayBuffer(16 * Math.max(1, T));
  const times = new Float64Array(timesBuf);
  const cancelledBuf = new SharedArrayBuffer(Math.max(1, T));
  const cancelled = new Uint8Array(cancelledBuf);
  const share = (a: Int32Array | Float64Array): SharedArrayBuffer => {
    const b = new SharedArrayBuffer(Math.max(8, a.byteLength));
    new Uint8Array(b).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    return b;
  };
  const runMsg = {
    type: 'run' as const,
    bell: bellBuf,
    taskKernel: share(o.taskKernel),
    argStart: share(o.argStart),
    args: share(o.args),
    times: timesBuf,
    cancelled: cancelledBuf,
  };
  const stopped: Promise<void>[] = [];
  const startThread = (t: WorkerThread): void => {
    stopped[t.index] = new Promise((resolve) => {
      t.post({ ...runMsg, tasks: rings[t.index]!.buffer, done: done[t.index]!.buffer }, () => resolve());
    });
  };
  for (const t of pool.threads) startThread(t);

  const failures: TaskFailure[] = [];
  let cancelledCount = 0;
  const t0 = performance.now();
  const epoch0 = performance.timeOrigin + t0;
  const now = (): number => (performance.now() - t0) / 1000;
  let makespan = 0;

  // Transfers held back to their route's speed (throttle): completion times, in order.
  const routeBusy = new Float64Array(p.nodes.length * p.nodes.length);
  const routeLatency = new Float64Array(p.nodes.length * p.nodes.length);
  const routeBandwidth = new Float64Array(p.nodes.length * p.nodes.length);
  for (let r = 0; r < p.routes.length; r++) {
    const route = p.routes[r];
    if (!route) continue;
    routeLatency[r] = route.reduce((s, l) => s + p.links[l]!.latency, 0);
    routeBandwidth[r] = Math.min(...route.map((l) => p.links[l]!.bandwidth));
  }
  const timerAt: number[] = [];
  const timerId: number[] = [];
  const finishedTransfers: number[] = [];

  const cancelDescendants = (task: number): void => {
    const stack = [task];
    while (stack.length > 0) {
      const t = stack.pop()!;
      for (let e = g.succHead.data[t]!; e >= 0; e = g.edgeNext.data[e]!) {
        const s = g.edgeTarget.data[e]!;
        if (cancelled[s] === 1) continue;
        cancelled[s] = 1;
        cancelledCount++;
        stack.push(s);
      }
    }
  };
  const fail = (task: number, message: string): void => {
    const codelet = g.codelets[g.taskCodelet.data[task]!]!.name;
    failures.push({ task, label: g.taskNames[task] ?? `#${task}`, codelet, message });
    cancelDescendants(task);
  };

  const record: number[] = [];
  const drain = (): void => {
    const n = engine.commandCount;
    if (n === 0) return;
    const ops = engine.cmdOp.data;
    const as = engine.cmdA.data;
    const bs = engine.cmdB.data;
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      if (op === Cmd.RUN) {
        const task = as[i]!;
        const w = bs[i]!;
        const node = p.workers[w]!.node;
        const thread = pool.threads[w]!;
        const a0 = g.accessStart.data[task]!;
        const a1 = g.accessStart.data[task + 1]!;
        record.length = 0;
        record.push(task, a1 - a0);
        for (let a = a0; a < a1; a++) {
          const id = store.replica(g.accessHandle.data[a]!, node);
          thread.announce(id, store.buffers[id]!, store.dtypes[id]!);
          record.push(id);
        }
        if (!rings[w]!.push(record)) throw new Error(`worker ${w}'s ring is full`);
      } else if (op === Cmd.TRANSFER) {
        const id = as[i]!;
        const src = engine.trSrc.data[id]!;
        const dst = engine.trDst.data[id]!;
        const bytes = store.copy(engine.trHandle.data[id]!, src, dst);
        if (o.throttle) {
          const r = src * p.nodes.length + dst;
          const start = Math.max(now(), routeBusy[r]!);
          const end = start + routeLatency[r]! + (routeBandwidth[r]! > 0 ? bytes / routeBandwidth[r]! : 0);
          routeBusy[r] = end;
          let k = timerAt.length;
          timerAt.push(end);
          timerId.push(id);
          while (k > 0 && timerAt[k - 1]! > end) {
            timerAt[k] = timerAt[k - 1]!;
            timerId[k] = timerId[k - 1]!;
            k--;
          }
          timerAt[k] = end;
          timerId[k] = id;
        } else {
          finishedTransfers.push(id);
        }
      } else if (op === Cmd.FREE) {
        store.release(as[i]!, bs[i]!);
      }
      // URGENT: copies are not prioritised in real mode; FINISHED: the loop sees isFinished.
    }
    engine.clearCommands();
  };

  /** Executes the engine's commands, then feeds back the copies that completed at once. */
  const pump = (): void => {
    drain();
    while (finishedTransfers.length > 0) {
      engine.transferFinished(finishedTransfers.shift()!, now());
      drain();
    }
  };

  // Dead threads: the task at the head of their ring was running; it fails, the thread is
  // replaced and continues with the next records.
  const dead: { w: number; code: number }[] = [];
  for (const t of pool.threads) t.onExit = (code) => dead.push({ w: t.index, code });
  let abortError: Error | undefined;
  const onAbort = () => {
    abortError = new LocusError('interrupted');
    Atomics.add(bell, BELL_COUNT, 1);
    Atomics.notify(bell, BELL_COUNT);
  };
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const every = o.progressEvery ?? 1000;
  let nextProgress = every;

  const poll = (): number => {
    let progressed = 0;
    for (let w = 0; w < nw; w++) {
      const ring = done[w]!;
      while (ring.available() >= 2) {
        const task = ring.peek(0);
        const status = ring.peek(1);
        ring.advance(2);
        progressed++;
        const start = (times[2 * task]! - epoch0) / 1000;
        const end = (times[2 * task + 1]! - epoch0) / 1000;
        if (status === Status.FAILED) fail(task, pool.threads[w]!.takeFailure(task));
        if (status !== Status.SKIPPED) {
          for (const ob of taskObservers) {
            ob.taskStarted?.(task, w, start);
            ob.taskFinished?.(task, w, end);
          }
          if (end > makespan) makespan = end;
        }
        engine.taskFinished(task, now());
        pump();
      }
    }
    if (timerAt.length > 0) {
      const t = now();
      while (timerAt.length > 0 && timerAt[0]! <= t) {
        timerAt.shift();
        const id = timerId.shift()!;
        progressed++;
        engine.transferFinished(id, t);
        pump();
      }
    }
    if (o.onProgress && engine.finishedTasks >= nextProgress) {
      o.onProgress(engine.finishedTasks, T);
      nextProgress += every;
    }
    return progressed;
  };

  try {
    engine.start(now());
    pump();
    let sliceStart = performance.now();
    while (!engine.isFinished) {
      if (abortError) throw abortError;
      while (dead.length > 0) await replaceDead(dead.shift()!);
      const seen = Atomics.load(bell, BELL_COUNT);
      if (poll() > 0) {
        if (performance.now() - sliceStart > YIELD_MS) {
          await new Promise((r) => setImmediate(r));
          sliceStart = performance.now();
        }
        continue;
      }
      // Spin a little; up to a held-back copy's completion when it is due within a timer's
      // resolution (a wait's timeout is a libuv timer: about 1 ms), so throttled copies last
      // what the link says.
      const next = timerAt.length > 0 ? timerAt[0]! * 1000 + t0 : Number.POSITIVE_INFINITY;
      const until = next - performance.now() < TIMER_SPIN_MS ? next : performance.now() + SPIN_MS;
      let busy = false;
      while (performance.now() < until) {
        if (Atomics.load(bell, BELL_COUNT) !== seen) {
          busy = true;
          break;
        }
      }
      if (busy) continue;
      // Nothing done: wait for a worker's bell, the next held-back copy, or a thread's exit.
      Atomics.store(bell, BELL_SLEEP, 1);
      if (Atomics.load(bell, BELL_COUNT) === seen) {
        const wait = timerAt.length > 0 ? Math.max(0, (timerAt[0]! - now()) * 1000) : 50;
        const r = waitAsync(bell, BELL_COUNT, seen, wait);
        if (r.async) await r.value;
      }
      Atomics.store(bell, BELL_SLEEP, 0);
      if (performance.now() - sliceStart > YIELD_MS) {
        await new Promise((r) => setImmediate(r));
      }
      sliceStart = performance.now();
    }
  } catch (e) {
    o.signal?.removeEventListener('abort', onAbort);
    if (e === abortError) {
      await pool.close();
    } else {
      // A bad graph or policy (the engine's checks at start): the threads go back to idle.
      for (let w = 0; w < nw; w++) rings[w]!.push([STOP_TASK]);
      await Promise.all(stopped);
      for (const t of pool.threads) t.onExit = undefined;
    }
    throw e;
  }
  o.signal?.removeEventListener('abort', onAbort);
  const endS = now();
  for (let w = 0; w < nw; w++) rings[w]!.push([STOP_TASK]);
  await Promise.all(stopped);
  for (const t of pool.threads) t.onExit = undefined;
  o.onProgress?.(engine.finishedTasks, T);
  return { makespanS: makespan, endS, failures, cancelled: cancelledCount, engine };

  async function replaceDead(d: { w: number; code: number }): Promise<void> {
    const ring = rings[d.w]!;
    if (ring.available() > 0) {
      const task = ring.peek(0);
      if (task !== STOP_TASK) {
        const len = 2 + ring.peek(1);
        ring.advance(len);
        fail(task, `worker ${p.workers[d.w]!.name} exited with code ${d.code} while running it`);
        engine.taskFinished(task, now());
        pump();
      }
    }
    await pool.replace(d.w);
    const t = pool.threads[d.w]!;
    t.onExit = (code) => dead.push({ w: d.w, code });
    for (let id = 0; id < store.buffers.length; id++) t.announce(id, store.buffers[id]!, store.dtypes[id]!);
    startThread(t);
  }
}

/**
 * The same observer without its task callbacks, to attach to a real run's engine while the
 * driver reports task times itself (RealRunOptions.observe).
 */
export function withoutTaskEvents(ob: EngineObserver): EngineObserver {
  return {
    transferStarted: ob.transferStarted?.bind(ob),
    transferFinished: ob.transferFinished?.bind(ob),
    replicaAllocated: ob.replicaAllocated?.bind(ob),
    replicaFreed: ob.replicaFreed?.bind(ob),
    runFinished: ob.runFinished?.bind(ob),
  };
}
