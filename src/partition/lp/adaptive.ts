/**
 * The `adaptive` strategy (seed 003 section IV.A, "Adaptive w/o Comm"): uniform ratios first, then
 * after every iteration the LP of IV.A on the measured times per work-group.
 */
import type { PartitionStrategy, RatioDecision, SequenceShape } from '../strategy.ts';
import { checkObservation, TimePerGroup } from './measure.ts';
import { solveProgram } from './program.ts';
import { buildSystem, type PartitionSystem, ratiosOf } from './system.ts';

/** What a strategy reports about each LP it solved (for tests and benches). */
export interface SolveInfo {
  /** The iteration whose measurements the LP used. */
  readonly iteration: number;
  /** Variables of the LP. */
  readonly variables: number;
  /** Rows of the LP. */
  readonly rows: number;
  /** Rows that model transfers (0 for `adaptive`). */
  readonly transferRows: number;
  /** The optimum, in seconds (sum of the T's). */
  readonly objectiveSeconds: number;
}

/** Options of the adaptive strategies. */
export interface AdaptiveOptions {
  /** Called after every solve with the LP's size and optimum. */
  readonly onSolve?: (info: SolveInfo) => void;
}

/** Ratio 1/n for every kernel and device. */
export function uniformRatios(shape: SequenceShape): number[][] {
  return Array.from({ length: shape.kernels }, () =>
    new Array<number>(shape.devices).fill(1 / shape.devices),
  );
}

/**
 * How many times a decision is built and solved to time it. The runner allocates megabytes per
 * simulated iteration, and a garbage collection that lands inside one timed solve made a 0.4 ms
 * solve read 15 to 100 ms; the build and the solve are deterministic, so every repeat answers
 * the same ratios and the fastest repeat is the decision's own cost (the usual minimum-of-k
 * timing; bench/partition-lp.ts takes a median for the same reason).
 */
export const SOLVE_REPEATS = 3;

/**
 * Runs `fn` `repeats` times (>= 1) and returns its first answer with the shortest wall-clock
 * time of one call, in seconds (the calls must be deterministic).
 */
export function fastestOf<T>(fn: () => T, repeats: number): { value: T; seconds: number } {
  let value: T | undefined;
  let seconds = Number.POSITIVE_INFINITY;
  for (let i = 0; i < Math.max(1, repeats); i++) {
    const t0 = performance.now();
    const v = fn();
    seconds = Math.min(seconds, (performance.now() - t0) / 1000);
    if (i === 0) value = v;
  }
  return { value: value as T, seconds };
}

/** Builds and solves the system, timing both (RatioDecision.solveSeconds), and reports it. */
export function decide(
  build: () => PartitionSystem,
  iteration: number,
  options: AdaptiveOptions,
): RatioDecision {
  const { value, seconds: solveSeconds } = fastestOf(() => {
    const system = build();
    return { system, solution: solveProgram(system.program) };
  }, SOLVE_REPEATS);
  const { system, solution } = value;
  const ratios = ratiosOf(system, solution.values);
  options.onSolve?.({
    iteration,
    variables: system.program.names.length,
    rows: system.program.rows.length,
    transferRows: system.transferRows,
    objectiveSeconds: solution.objective * system.scale,
  });
  return { ratios, solveSeconds };
}

/** The `adaptive` strategy: computation times only. */
export function adaptiveStrategy(options: AdaptiveOptions = {}): PartitionStrategy {
  let times: TimePerGroup | undefined;
  return {
    name: 'adaptive',
    initial(shape) {
      times = new TimePerGroup(shape.kernels, shape.devices);
      return uniformRatios(shape);
    },
    next(shape, observation) {
      checkObservation(shape, observation, 'adaptive');
      times ??= new TimePerGroup(shape.kernels, shape.devices);
      times.update(observation);
      const f = times.current();
      return decide(
        () => buildSystem({ f, workGroups: observation.workGroups }),
        observation.iteration,
        options,
      );
    },
  };
}
