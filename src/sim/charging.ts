/**
 * `--charge-scheduling`: wraps a scheduler so that the wall-clock time each of its calls
 * takes is charged to a worker's virtual time, as seed 000 counts the cost of computing the
 * schedule in its GFlop/s. A pop is charged to the popping worker, any other call to the
 * worker whose event is being handled; calls at start (no worker) delay every worker.
 */
import type { SchedContext, Scheduler } from '../core/policy.ts';

/** Seconds of scheduling work owed by each worker, paid by its next task. */
export class SchedulingDebt {
  /** Owed seconds per worker. */
  readonly owed: Float64Array;
  /** Total seconds charged so far. */
  total = 0;

  constructor(workers: number) {
    this.owed = new Float64Array(workers);
  }

  /** Returns and clears what `worker` owes. */
  take(worker: number): number {
    const d = this.owed[worker]!;
    this.owed[worker] = 0;
    return d;
  }
}

const OPTIONAL = ['taskStarted', 'taskFinished', 'dataRequested', 'dataLoaded', 'dataRemoved'] as const;

/** A scheduler that forwards to `inner` and records the cost of every call in `debt`. */
export function chargingScheduler(inner: Scheduler, debt: SchedulingDebt): Scheduler {
  let ctx: SchedContext | undefined;
  const charge = (worker: number, t0: number): void => {
    const dt = (performance.now() - t0) / 1000;
    debt.total += dt;
    if (worker >= 0) debt.owed[worker]! += dt;
    else for (let w = 0; w < debt.owed.length; w++) debt.owed[w]! += dt;
  };
  const current = (): number => (ctx ? ctx.currentWorker() : -1);
  const wrapper: Scheduler = {
    name: inner.name,
    init(c: SchedContext): void {
      ctx = c;
      const t0 = performance.now();
      inner.init(c);
      charge(-1, t0);
    },
    push(task: number): void {
      const t0 = performance.now();
      inner.push(task);
      charge(current(), t0);
    },
    pop(worker: number): number {
      const t0 = performance.now();
      const t = inner.pop(worker);
      charge(worker, t0);
      return t;
    },
  };
  if (inner.evictionPolicy) wrapper.evictionPolicy = () => inner.evictionPolicy!();
  if (inner.plannedTasks) wrapper.plannedTasks = (w: number) => inner.plannedTasks!(w);
  for (const name of OPTIONAL) {
    const fn = inner[name] as ((...args: number[]) => void) | undefined;
    if (!fn) continue;
    (wrapper as unknown as Record<string, (...args: unknown[]) => void>)[name] = (...args: unknown[]) => {
      const t0 = performance.now();
      fn.apply(inner, args as number[]);
      charge(current(), t0);
    };
  }
  return wrapper;
}
