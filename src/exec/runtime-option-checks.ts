/**
 * Checks a Runtime's options when it is created (issue 26 item 7): a scheduler or eviction
 * policy that does not exist, a scheduler option the scheduler does not
 * read (SCHEDULER_OPTION_READERS), or a value out of range is refused at Runtime.create in one
 * line naming the option, instead of failing at the first wait().
 */
import { defaultScheduler } from '../core/default-scheduler.ts';
import { checkSchedulerOptions } from '../core/scheduler-option-readers.ts';
import { LocusError } from '../core/types.ts';
import { EVICTION_POLICIES } from '../evict/index.ts';
import { SCHEDULERS } from '../sched/index.ts';
import type { RuntimeOptions } from './runtime-options.ts';

/** The one-line error for option `name`. */
function invalid(name: string, message: string): LocusError {
  return new LocusError('LOCUS_OPTION_INVALID', `RuntimeOptions.${name} ${message}`);
}

/** An integer option: at least `min` when given. */
function integer(
  o: RuntimeOptions,
  name: keyof RuntimeOptions,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): void {
  const v = o[name];
  if (v === undefined) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw invalid(
      name,
      `must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`} (got ${String(v)})`,
    );
}

/** Throws a one-line LocusError for the first option of `o` that names nothing known or is out of range. */
export function checkRuntimeOptions(o: RuntimeOptions): void {
  if (typeof o !== 'object' || o === null)
    throw new LocusError('LOCUS_OPTION_INVALID', 'Runtime.create takes an object of RuntimeOptions');
  integer(o, 'pipeline', 1);
  integer(o, 'lookahead', 0);
  integer(o, 'seed', 0, 2 ** 31 - 1);
  integer(o, 'minSamples', 1);
  integer(o, 'cpus', 0);
  integer(o, 'gpus', 0);
  for (const name of ['minClean', 'targetClean'] as const) {
    const v = o[name];
    if (v !== undefined && !(typeof v === 'number' && v >= 0 && v <= 100))
      throw invalid(name, `must be a percentage from 0 to 100 (got ${String(v)})`);
  }
  if (o.perfModels !== undefined && !['update', 'read', 'off'].includes(o.perfModels))
    throw invalid('perfModels', `must be 'update', 'read' or 'off' (got '${String(o.perfModels)}')`);
  if (o.priorities !== undefined && o.priorities !== 'bottom-level')
    throw invalid('priorities', `must be 'bottom-level' when given (got '${String(o.priorities)}')`);
  for (const name of ['onProgress', 'onWarning'] as const) {
    if (o[name] !== undefined && typeof o[name] !== 'function') throw invalid(name, 'must be a function');
  }
  if (o.checkAccesses && (o.mode === 'simulated' || o.mode === 'sim' || o.backend === 'simulated'))
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      'RuntimeOptions.checkAccesses applies to real mode (a simulation runs no kernel)',
    );
  if (o.checkAccesses && o.backend === 'webgpu')
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      "RuntimeOptions.checkAccesses applies to the threads backend (WebGPU's GPU tasks cannot be checked)",
    );
  if (typeof o.scheduler === 'string' && !Object.hasOwn(SCHEDULERS, o.scheduler))
    throw new LocusError(
      'LOCUS_NAME_UNKNOWN',
      `unknown scheduler '${o.scheduler}': use one of ${Object.keys(SCHEDULERS).join(', ')}`,
    );
  if (o.eviction !== undefined && !Object.hasOwn(EVICTION_POLICIES, o.eviction))
    throw new LocusError(
      'LOCUS_NAME_UNKNOWN',
      `unknown eviction policy '${String(o.eviction)}': use one of ${Object.keys(EVICTION_POLICIES).join(', ')}`,
    );
  if (typeof o.scheduler !== 'object' && o.schedulerOptions !== undefined)
    checkSchedulerOptions(
      o.scheduler ??
        defaultScheduler(
          o.mode === 'simulated' || o.mode === 'sim' || o.backend === 'simulated' ? 'simulated' : 'real',
        ),
      o.schedulerOptions,
    );
}
