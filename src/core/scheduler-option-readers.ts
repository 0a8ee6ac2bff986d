/**
 * Which schedulers read each scheduler option (SchedulerOptions): the one table that the
 * library (simulate(), Runtime.create) and the command line (src/cli/option-table.ts) check a
 * run's options against, so that an option the chosen scheduler does not read is refused
 * (LOCUS_OPTION_CONFLICT) instead of silently ignored.
 */
import type { SchedulerOptions } from '../sched/options.ts';
import { LocusError } from './types.ts';

/** The dm family: they read `prefetch` (the -pr variants and dmdar/dmdas prefetch by default). */
const DM_FAMILY = [
  'dm',
  'dmda',
  'dmdar',
  'dmdas',
  'heft-tm',
  'heft-tm-pr',
  'heft-tmdp',
  'heft-tmdp-pr',
  'heft-tm-init',
  'heft-tmdp-init',
] as const;

/** DARTS and hfp, whose embedded DARTS reads DARTS's options. */
const DARTS_FAMILY = ['darts', 'hfp'] as const;

/** For each scheduler option, the schedulers that read it (every other scheduler ignores it). */
export const SCHEDULER_OPTION_READERS: {
  readonly [K in keyof Required<SchedulerOptions>]: readonly string[];
} = {
  prefetch: DM_FAMILY,
  dartsThreshold: DARTS_FAMILY,
  darts3inputs: DARTS_FAMILY,
  dartsOpti: DARTS_FAMILY,
  dartsPushFree: DARTS_FAMILY,
  dartsOneFromFree: ['darts'],
  dartsOneAway: ['darts'],
  dartsStarpuTies: ['darts'],
  dartsHostLevel: DARTS_FAMILY,
  dartsHostAhead: DARTS_FAMILY,
  hfpHostStaging: ['hfp'],
  criticalSlack: ['hfp'],
  criticalLocal: ['hfp'],
  criticalFixed: ['hfp'],
  criticalTail: ['hfp'],
  mapping: ['static'],
};

/** The scheduler options given (not undefined) that scheduler `name` does not read. */
export function unreadSchedulerOptions(name: string, options: SchedulerOptions): (keyof SchedulerOptions)[] {
  const out: (keyof SchedulerOptions)[] = [];
  for (const key of Object.keys(options) as (keyof SchedulerOptions)[]) {
    if (options[key] === undefined) continue;
    const readers = SCHEDULER_OPTION_READERS[key];
    if (readers === undefined)
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `unknown scheduler option '${String(key)}': use one of ${Object.keys(SCHEDULER_OPTION_READERS).join(', ')}`,
      );
    if (!readers.includes(name)) out.push(key);
  }
  return out;
}

/**
 * Refuses, in one line, scheduler options that scheduler `name` does not read (`flag` names an
 * option the way the caller's user wrote it: a flag on the command line, a field in the API).
 */
export function checkSchedulerOptions(
  name: string,
  options: SchedulerOptions,
  flag: (key: keyof SchedulerOptions) => string = (k) => `schedulerOptions.${k}`,
): void {
  const unread = unreadSchedulerOptions(name, options);
  if (unread.length === 0) return;
  const key = unread[0]!;
  throw new LocusError(
    'LOCUS_OPTION_CONFLICT',
    `${flag(key)} applies to scheduler ${SCHEDULER_OPTION_READERS[key].join(', ')}, not ${name}: drop it or choose one of those`,
  );
}

/** The options among `options` that scheduler `name` reads (a sweep gives each policy its own). */
export function schedulerOptionsFor(name: string, options: SchedulerOptions): SchedulerOptions {
  const unread = new Set(unreadSchedulerOptions(name, options));
  return Object.fromEntries(
    Object.entries(options).filter(([k]) => !unread.has(k as keyof SchedulerOptions)),
  );
}
