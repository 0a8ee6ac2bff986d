/**
 * Policy specs of sweeps and figures: `name` (a scheduler with its default eviction) or
 * `name+eviction` (`darts+luf`: scheduler darts with eviction policy luf), checked against
 * the scheduler and eviction registries.
 */
import { LocusError } from '../core/types.ts';
import { EVICTION_POLICIES } from '../evict/index.ts';
import { SCHEDULERS } from '../sched/index.ts';

/** A parsed policy spec. */
export interface PolicySpec {
  /** Scheduler name (a key of SCHEDULERS). */
  scheduler: string;
  /** Eviction policy name (a key of EVICTION_POLICIES); absent for the default. */
  eviction?: string;
  /** The spec as written, normalised ("darts+luf"): the name in tables, CSVs and legends. */
  label: string;
}

/** "a, b or c". */
function known(names: string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** The schedulers and eviction policies, for error messages. */
function knownNames(): string {
  return `schedulers: ${known(Object.keys(SCHEDULERS))}; eviction policies: ${known(Object.keys(EVICTION_POLICIES))}`;
}

/** Splits a spec into its names without checking them against the registries. */
function splitSpec(spec: string): { scheduler: string; eviction?: string } {
  const text = spec.trim().toLowerCase();
  const parts = text.split('+').map((s) => s.trim());
  if (text === '' || parts.length > 2 || parts.some((p) => p === '')) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `policy '${spec}' is not NAME or NAME+EVICTION (e.g. eager, darts+luf); ${knownNames()}`,
    );
  }
  return parts.length === 2 ? { scheduler: parts[0]!, eviction: parts[1]! } : { scheduler: parts[0]! };
}

/** Builds the PolicySpec of checked names. */
function make(scheduler: string, eviction: string | undefined): PolicySpec {
  return eviction === undefined
    ? { scheduler, label: scheduler }
    : { scheduler, eviction, label: `${scheduler}+${eviction}` };
}

/**
 * Parses `name` or `name+eviction` (case-insensitive, spaces around the names ignored);
 * throws a one-line LocusError naming what is unknown and listing the known names.
 */
export function parsePolicySpec(spec: string): PolicySpec {
  splitSpec(spec); // the form first: '' is a malformed spec here, not an empty list
  return parsePolicySpecs([spec])[0]!;
}

/**
 * Parses a list of specs (an array or one comma-separated string), checking all of them
 * before failing: the one-line LocusError lists every unknown scheduler and eviction policy
 * with the known names. Duplicate labels are an error too.
 */
export function parsePolicySpecs(specs: string | readonly string[]): PolicySpec[] {
  const list = typeof specs === 'string' ? specs.split(',') : [...specs];
  if (list.length === 0 || (list.length === 1 && list[0]!.trim() === '')) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `no policy given: name at least one (e.g. eager,random); ${knownNames()}`,
    );
  }
  const split = list.map(splitSpec);
  const badSched = new Set<string>();
  const badEvict = new Set<string>();
  for (const s of split) {
    if (!Object.hasOwn(SCHEDULERS, s.scheduler)) badSched.add(s.scheduler);
    if (s.eviction !== undefined && !Object.hasOwn(EVICTION_POLICIES, s.eviction)) badEvict.add(s.eviction);
  }
  if (badSched.size > 0 || badEvict.size > 0) {
    const quote = (set: Set<string>) => [...set].map((n) => `'${n}'`).join(', ');
    const what = [
      badSched.size > 0 ? `unknown scheduler${badSched.size > 1 ? 's' : ''} ${quote(badSched)}` : '',
      badEvict.size > 0 ? `unknown eviction polic${badEvict.size > 1 ? 'ies' : 'y'} ${quote(badEvict)}` : '',
    ].filter((s) => s !== '');
    throw new LocusError('LOCUS_NAME_UNKNOWN', `${what.join(' and ')}: ${knownNames()}`);
  }
  const out = split.map((s) => make(s.scheduler, s.eviction));
  const seen = new Set<string>();
  for (const p of out) {
    if (seen.has(p.label))
      throw new LocusError('LOCUS_OPTION_INVALID', `policy '${p.label}' is listed twice`);
    seen.add(p.label);
  }
  return out;
}
