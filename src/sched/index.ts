/** Registry of scheduling policies by name (`--sched NAME`, like STARPU_SCHED). */
import type { Scheduler } from '../core/policy.ts';
import { LocusError } from '../core/types.ts';
import { EagerScheduler } from './eager.ts';
import { RandomScheduler } from './random.ts';

/** Scheduler factories, keyed by command-line name, with a one-line description. */
export const SCHEDULERS: Record<string, { description: string; create(): Scheduler }> = {
  eager: {
    description: 'one shared FIFO in ready order (seed 000 baseline)',
    create: () => new EagerScheduler(),
  },
  random: { description: 'speed-weighted random worker per task', create: () => new RandomScheduler() },
};

/** Creates the scheduler `name`; throws a LocusError listing the known names. */
export function createScheduler(name: string): Scheduler {
  const entry = SCHEDULERS[name];
  if (!entry)
    throw new LocusError(`unknown scheduler '${name}': use one of ${Object.keys(SCHEDULERS).join(', ')}`);
  return entry.create();
}
