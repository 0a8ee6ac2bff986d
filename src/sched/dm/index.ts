/** The dm family (seed 001's heft-* policies) and the other queue-based policies: registry entries. */
import type { SchedulerEntry } from '../options.ts';

/** Scheduler entries defined in this folder. */
export const DM_SCHEDULERS: Record<string, SchedulerEntry> = {};
