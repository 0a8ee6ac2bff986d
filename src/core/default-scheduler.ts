/**
 * The scheduler a run uses when none is named. Simulations default to eager (no estimate
 * needed, seed 000's baseline). Real runs default to lws, locality work stealing, StarPU's
 * default: placement in a real run follows the timing of the moment, and on a loaded machine
 * eager then moves an iterated workload's data back and forth between devices; measured with
 * `bench/real-default.ts` (docs/policies/lws.md, "As the real runs' default").
 */

/** Default scheduler of simulated runs (simulate(), `locus run`, a simulated Runtime). */
export const DEFAULT_SIM_SCHEDULER = 'eager';

/** Default scheduler of real runs (`locus run --mode real`, a Runtime on threads or WebGPU). */
export const DEFAULT_REAL_SCHEDULER = 'lws';

/** The default scheduler of a run in `mode`. */
export function defaultScheduler(mode: 'simulated' | 'real'): string {
  return mode === 'real' ? DEFAULT_REAL_SCHEDULER : DEFAULT_SIM_SCHEDULER;
}
