/**
 * Guards of the simulator's event loop against figures that floating point cannot simulate:
 * a task duration that is not a finite number of seconds is refused where it is drawn, and
 * an event loop that keeps handling events at the same virtual time without any task or
 * transfer finishing ends with an error instead of spinning.
 */
import type { Engine } from '../core/engine.ts';
import type { TaskGraph } from '../core/graph.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';

/** Events in a row at one virtual time with nothing finishing before the loop is said stuck. */
export const STUCK_EVENTS = 1_000_000;

/**
 * Throws a one-line LocusError unless `d`, the simulated duration of `task` on `worker`, is a
 * finite number of seconds >= 0 whose end time `now + d` is finite too.
 */
export function checkDuration(
  d: number,
  now: number,
  graph: TaskGraph,
  platform: Platform,
  task: number,
  worker: number,
): void {
  if (d >= 0 && Number.isFinite(now + d)) return;
  const codelet = graph.codelets[graph.taskCodelet.data[task]!]!.name;
  const w = platform.workers[worker]!;
  throw new LocusError(
    'LOCUS_SIMULATION_FAILED',
    `task ${task} (${codelet}, ${graph.taskFlops.data[task]} flop) on ${w.name} lasts ${d} s at ${now} s of virtual time: durations must be finite; check ${w.name}'s rate (${w.codeletFlops[codelet] ?? w.flops} flop/s) and the task's flops`,
  );
}

/** Counts consecutive events at one virtual time during which nothing finished. */
export class ProgressGuard {
  private time = Number.NaN;
  private idle = 0;
  private last = -1;

  /**
   * Records one event at `now`; `finished` is the engine's count of finished tasks plus
   * transfers. Throws a LocusError after STUCK_EVENTS events at the same time with that count
   * unchanged.
   */
  step(now: number, finished: number, engine: Engine, inFlight: number): void {
    if (now !== this.time || finished !== this.last) {
      this.time = now;
      this.last = finished;
      this.idle = 0;
      return;
    }
    if (++this.idle < STUCK_EVENTS) return;
    throw new LocusError(
      'LOCUS_SIMULATION_FAILED',
      `simulation makes no progress at ${now} s of virtual time: ${STUCK_EVENTS} events with no task or transfer finishing (${engine.finishedTasks} of ${engine.graph.taskCount} tasks finished, ${inFlight} transfers in flight); the platform's figures are probably off by orders of magnitude`,
    );
  }
}
