/** DARTS (seed 000, Algorithm 2) and its variants: registry entries. */
import type { SchedulerEntry } from '../options.ts';
import { DartsScheduler } from './darts.ts';

/** Scheduler entries defined in this folder. */
export const DARTS_SCHEDULERS: Record<string, SchedulerEntry> = {
  darts: {
    description:
      'DARTS: load the datum that frees the most tasks, plan them (seed 000 Alg. 2; use darts+luf for its eviction)',
    create: (o) => new DartsScheduler(o),
  },
};
