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

/** The scheduler methods whose calls are timed and charged. */
const TIMED = new Set([
  'init',
  'push',
  'pop',
  'taskStarted',
  'taskFinished',
  'dataRequested',
  'dataLoaded',
  'dataRemoved',
  'unplan',
]);

/**
 * A scheduler that forwards every member to `inner` (its own extras too, such as DARTS's
 * planned-use counts that LUF reads) and records the cost of the timed calls in `debt`.
 */
export function chargingScheduler(inner: Scheduler, debt: SchedulingDebt): Scheduler {
  let ctx: SchedContext | undefined;
  const charge = (worker: number, t0: number): void => {
    const dt = (performance.now() - t0) / 1000;
    debt.total += dt;
    if (worker >= 0) debt.owed[worker]! += dt;
    else for (let w = 0; w < debt.owed.length; w++) debt.owed[w]! += dt;
  };
  const timed = new Map<PropertyKey, (...args: unknown[]) => unknown>();
  return new Proxy(inner, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      let fn = timed.get(prop);
      if (!fn) {
        const method = value as (...args: unknown[]) => unknown;
        fn = TIMED.has(String(prop))
          ? (...args: unknown[]) => {
              if (prop === 'init') ctx = args[0] as SchedContext;
              const t0 = performance.now();
              const out = method.apply(target, args);
              charge(
                prop === 'pop' ? (args[0] as number) : prop === 'init' ? -1 : (ctx?.currentWorker() ?? -1),
                t0,
              );
              return out;
            }
          : (...args: unknown[]) => method.apply(target, args);
        timed.set(prop, fn);
      }
      return fn;
    },
  });
}
