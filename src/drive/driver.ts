/**
 * The one command loop (DESIGN.md): drains the engine's commands into a Backend and feeds the
 * backend's events back to the engine, for the simulator and the real runtime alike. Failure
 * handling (a failed task's dependents are cancelled by the engine), progress, the makespan
 * and the observers that want measured task times live here once, not in each driver.
 */
import { Cmd, type Engine, type EngineObserver } from '../core/engine.ts';
import { LocusError } from '../core/types.ts';
import type { Backend, CopyStartObserver, EventSink } from './backend.ts';

/** A task that failed, and why. */
export interface TaskFailure {
  /** Task id (submission order: the engine's id plus the tasks recycled before it, graph.retired). */
  task: number;
  /** Task label (its name, or #id). */
  label: string;
  /** Codelet name. */
  codelet: string;
  /** What went wrong. */
  message: string;
}

/** What the owner of a driver wants to hear about (all optional). */
export interface DriverHooks {
  /** Application task `task` (an acquire) holds its data. */
  acquired?(task: number): void;
  /** `task` ended: finished, or failed with `error`. */
  ended?(task: number, error: string | undefined): void;
  /** `task` was cancelled (a task it depends on failed). */
  cancelled?(task: number): void;
  /** Every task submitted so far has ended. */
  idle?(): void;
  /** The run is over (closed, all ended, all data home). */
  finished?(): void;
  /** Every `progressEvery` ended tasks: (ended, submitted). */
  progress?(ended: number, submitted: number): void;
}

/** Options of a driver. */
export interface DriverOptions {
  /** Observers that get task starts and ends with the times the backend measured (real runs). */
  timedObservers?: EngineObserver[];
  /** Hooks. */
  hooks?: DriverHooks;
  /** Ended tasks between progress calls (default 10,000). */
  progressEvery?: number;
  /**
   * Observers of the moments copies started moving (default: the engine's observers that
   * have a transferMoved method, as they stand when the first copy completes).
   */
  copyObservers?: CopyStartObserver[];
}

/** Longest stretch an asynchronous loop keeps the event loop blocked (ms). */
const YIELD_MS = 20;

/** Drives an engine over a backend. */
export class Driver implements EventSink {
  /** Tasks that failed, in the order they did. */
  readonly failures: TaskFailure[] = [];
  /** Tasks cancelled because a task they depend on failed. */
  cancelledCount = 0;
  /** Latest end of a task on the backend's clock. */
  makespan = 0;
  /** Events the backend delivered. */
  events = 0;
  private readonly timed: EngineObserver[];
  private moved: CopyStartObserver[] | undefined;
  private readonly hooks: DriverHooks;
  private readonly every: number;
  private nextProgress: number;

  constructor(
    readonly engine: Engine,
    readonly backend: Backend,
    options: DriverOptions = {},
  ) {
    this.timed = options.timedObservers ?? [];
    this.moved = options.copyObservers;
    this.hooks = options.hooks ?? {};
    this.every = options.progressEvery ?? 10_000;
    this.nextProgress = this.every;
  }

  /** Executes the engine's pending commands on the backend. */
  execute(): void {
    const e = this.engine;
    const n = e.commandCount;
    if (n === 0) return;
    const b = this.backend;
    const ops = e.cmdOp.data;
    const as = e.cmdA.data;
    const bs = e.cmdB.data;
    // Hooks may submit (and so emit) more: read this batch, clear it, then call them.
    let deferred: number[] | undefined;
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      if (op === Cmd.RUN) b.run(as[i]!, bs[i]!);
      else if (op === Cmd.TRANSFER) b.copy(as[i]!);
      else if (op === Cmd.FREE) b.free(as[i]!, bs[i]!);
      else if (op === Cmd.URGENT) b.urgent(as[i]!);
      else {
        if (op === Cmd.CANCELLED) this.cancelledCount++;
        deferred ??= [];
        deferred.push(op, as[i]!);
      }
    }
    e.clearCommands();
    if (deferred === undefined) return;
    const h = this.hooks;
    for (let i = 0; i < deferred.length; i += 2) {
      const op = deferred[i]!;
      const a = deferred[i + 1]!;
      if (op === Cmd.CANCELLED) h.cancelled?.(a);
      else if (op === Cmd.ACQUIRED) h.acquired?.(a);
      else if (op === Cmd.IDLE) h.idle?.();
      else if (op === Cmd.FINISHED) h.finished?.();
    }
  }

  taskEnded(task: number, worker: number, startS: number, endS: number, error: string | undefined): void {
    this.events++;
    const e = this.engine;
    if (endS > this.makespan) this.makespan = endS;
    const c = e.counters;
    if (c.measuredTaskTimes)
      c.taskRan(worker >= 0 ? worker : e.tasks.worker[task]!, startS, endS, e.graph.taskFlops.data[task]!);
    for (let i = 0; i < this.timed.length; i++) {
      const ob = this.timed[i]!;
      ob.taskStarted?.(task, worker, startS);
      ob.taskFinished?.(task, worker, endS);
    }
    if (error === undefined) {
      e.taskFinished(task, this.backend.now());
    } else {
      const g = e.graph;
      this.failures.push({
        task: task + g.retired,
        label: g.taskNames[task] ?? `#${task + g.retired}`,
        codelet: g.codelets[g.taskCodelet.data[task]!]!.name,
        message: error,
      });
      for (let i = 0; i < this.timed.length; i++) this.timed[i]!.taskFailed?.(task, worker, endS);
      e.taskFailed(task, this.backend.now());
    }
    this.hooks.ended?.(task, error);
    this.execute();
    if (this.hooks.progress && e.finishedTasks >= this.nextProgress) {
      this.hooks.progress(e.finishedTasks, e.submittedTasks);
      while (this.nextProgress <= e.finishedTasks) this.nextProgress += this.every;
    }
  }

  /** The engine recycled tasks [0, k) (Engine.compact): progress counts shift down with them. */
  rebase(k: number): void {
    this.nextProgress -= k;
  }

  transferFinished(id: number, startS: number): void {
    this.events++;
    this.moved ??= this.engine.observers.filter(
      (ob) => typeof (ob as Partial<CopyStartObserver>).transferMoved === 'function',
    ) as unknown as CopyStartObserver[];
    const moved = this.moved;
    for (let i = 0; i < moved.length; i++) moved[i]!.transferMoved(id, startS);
    this.engine.transferFinished(id, this.backend.now());
    this.execute();
  }

  /**
   * Runs until `done()` holds, synchronously (a simulated backend). Throws when the backend
   * has nothing left to deliver first: the run is stalled.
   */
  runSync(done: () => boolean): void {
    this.execute();
    while (!done()) {
      if (this.backend.poll(this) === 0 && !done()) throw this.stalled();
    }
  }

  /** Runs until `done()` holds, awaiting the backend when it has nothing to deliver. */
  async run(done: () => boolean, signal?: AbortSignal): Promise<void> {
    this.execute();
    let slice = performance.now();
    while (!done()) {
      if (signal?.aborted) throw new LocusError('LOCUS_INTERRUPTED', 'interrupted');
      // A backend's wait may block briefly without the event loop (the thread backend's): the
      // loop yields to other events every YIELD_MS of activity, waits included.
      if (performance.now() - slice > YIELD_MS) {
        await new Promise((r) => setImmediate(r));
        slice = performance.now();
      }
      if (this.backend.poll(this) > 0) continue;
      if (done()) break;
      const p = this.backend.wait();
      if (p === null) throw this.stalled();
      await p;
    }
  }

  private stalled(): Error {
    const e = this.engine;
    return new Error(
      `run stalled at ${this.backend.now()}s with ${e.submittedTasks - e.finishedTasks} of ${e.submittedTasks} tasks not ended (scheduler ${e.scheduler.name} returned no task and nothing is in flight)`,
    );
  }
}
