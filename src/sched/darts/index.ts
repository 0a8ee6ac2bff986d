/** DARTS (seed 000, Algorithm 2) and its variants: registry entries. */
import type { SchedulerEntry } from '../options.ts';

/** Scheduler entries defined in this folder. */
export const DARTS_SCHEDULERS: Record<string, SchedulerEntry> = {};
