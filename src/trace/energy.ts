/**
 * Energy accounting of a simulated run (seed 002's energy model): every worker draws the
 * power of its state: computing while it runs a task, and while idle either polling (its
 * thread spins for work) or blocked (on a semaphore, idle policy ea1). A GPU worker's
 * `computing` includes its control thread's core spinning on the GPU; with ea2 that thread
 * blocks instead and `controlThread` watts are saved. The machine's static power is drawn
 * throughout. Energy E = sum over workers and states of power x time + static x T, over the
 * run's T (until the last write-back); average power E / T; energy-delay product E T.
 *
 * Each worker's busy time comes from the engine's counters; with a Chrome trace, an observer
 * records each worker's power state changes.
 */
import type { Engine, EngineObserver } from '../core/engine.ts';
import { LocusError } from '../core/types.ts';

/** Seed 002's idle policies. */
export interface IdlePolicy {
  /** ea1: a thread with no ready task blocks instead of polling (woken when work arrives). */
  ea1: boolean;
  /** ea2: a GPU's control thread blocks while its GPU computes instead of busy-waiting. */
  ea2: boolean;
}

/** What a run's energy comes to. */
export interface EnergyReport {
  /** Joules. */
  energyJ: number;
  /** Watts, energy over the run's duration. */
  averagePowerW: number;
  /** Energy-delay product, joule-seconds. */
  edpJs: number;
  /** Joules per worker (without the static part). */
  workersJ: number[];
  /** Joules of the static power. */
  staticJ: number;
}

/**
 * A run's energy from each worker's busy time (the engine's RunCounters, read when the report
 * is asked for) and, for a Chrome trace, each worker's power state changes (an observer of
 * task starts and ends, attached only then: `changesObserver`).
 */
export class EnergyMeter {
  /** Power state changes: [time s, worker, watts], recorded only by `changesObserver`. */
  readonly changes: [number, number, number][] = [];

  constructor(
    private readonly engine: Engine,
    private readonly policy: IdlePolicy,
    private readonly recordChanges = true,
  ) {
    const n = engine.platform.workers.length;
    if (recordChanges) for (let w = 0; w < n; w++) this.changes.push([0, w, this.idleWatts(w)]);
  }

  /** True when every worker of the platform has power figures. */
  static applies(engine: Engine): boolean {
    return engine.platform.workers.every((w) => w.power !== undefined);
  }

  /**
   * The observer that records power state changes (two per task, so an endless stream would
   * hold them all): only when the meter records them (a Chrome trace), else undefined.
   */
  changesObserver(): EngineObserver | undefined {
    if (!this.recordChanges) return undefined;
    return {
      taskStarted: (_task, worker, now) => {
        this.changes.push([now, worker, this.computingWatts(worker)]);
      },
      taskFinished: (_task, worker, now) => {
        this.changes.push([now, worker, this.idleWatts(worker)]);
      },
      rebase: () => {},
    };
  }

  private computingWatts(w: number): number {
    const p = this.engine.platform.workers[w]!.power!;
    return this.policy.ea2 ? p.computing - p.controlThread : p.computing;
  }

  private idleWatts(w: number): number {
    const p = this.engine.platform.workers[w]!.power!;
    return this.policy.ea1 ? p.blocked : p.polling;
  }

  /** The energy of a run that lasted `durationS`. */
  report(durationS: number): EnergyReport {
    const busyS = this.engine.counters.busy;
    const workersJ = this.engine.platform.workers.map((_, w) => {
      const busy = busyS[w]!;
      return busy * this.computingWatts(w) + Math.max(0, durationS - busy) * this.idleWatts(w);
    });
    const staticJ = (this.engine.platform.staticPower ?? 0) * durationS;
    const energyJ = workersJ.reduce((a, b) => a + b, 0) + staticJ;
    return {
      energyJ,
      averagePowerW: durationS > 0 ? energyJ / durationS : 0,
      edpJs: energyJ * durationS,
      workersJ,
      staticJ,
    };
  }
}

/** Parses `--idle`: poll, ea1, ea2 or ea1+ea2. */
export function parseIdlePolicy(spec: string): IdlePolicy {
  const parts = spec === 'poll' ? [] : spec.split('+');
  const ok = parts.every((p) => p === 'ea1' || p === 'ea2') && new Set(parts).size === parts.length;
  if (!ok)
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `idle policy must be poll, ea1, ea2 or ea1+ea2 (got '${spec}')`,
    );
  return { ea1: parts.includes('ea1'), ea2: parts.includes('ea2') };
}
