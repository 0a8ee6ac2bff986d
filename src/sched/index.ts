/** Registry of scheduling policies by name (`--sched NAME`, like STARPU_SCHED). */
import type { Scheduler } from '../core/policy.ts';
import { LocusError } from '../core/types.ts';
import { DARTS_SCHEDULERS } from './darts/index.ts';
import { DM_SCHEDULERS } from './dm/index.ts';
import { EagerScheduler } from './eager.ts';
import { HfpScheduler } from './hfp.ts';
import { LocalityWorkStealingScheduler } from './lws.ts';
import type { SchedulerEntry, SchedulerOptions } from './options.ts';
import { RandomScheduler } from './random.ts';
import { StaticScheduler } from './static.ts';
import { SuperMatrixScheduler } from './supermatrix.ts';

export type { SchedulerEntry, SchedulerOptions } from './options.ts';

/** Scheduler factories, keyed by command-line name. */
export const SCHEDULERS: Record<string, SchedulerEntry> = {
  eager: {
    description: 'one shared FIFO in ready order (seed 000 baseline)',
    create: () => new EagerScheduler(),
  },
  random: { description: 'speed-weighted random worker per task', create: () => new RandomScheduler() },
  static: {
    description:
      "owner-computes: each task on the GPU owning the block it writes (seed 004's 2-D cyclic mapping, --mapping) or its stencil block (seed 001)",
    create: (o) => new StaticScheduler(o),
  },
  supermatrix: {
    description:
      "SuperMatrix (seed 002): critical-path tasks to the fastest resource's priority queue, the others to one shared queue",
    create: () => new SuperMatrixScheduler(true),
  },
  'supermatrix-noprio': {
    description: 'SuperMatrix without priority queues: one shared FIFO queue (seed 002 baseline)',
    create: () => new SuperMatrixScheduler(false),
  },
  ...DM_SCHEDULERS,
  lws: {
    description:
      "locality work stealing (StarPU's default): per-worker priority queues, a task to the worker that released it or whose memory holds its inputs, idle workers steal from neighbours",
    create: () => new LocalityWorkStealingScheduler(),
  },
  ...DARTS_SCHEDULERS,
  hfp: {
    description:
      'memory-aware packing planned per GPU (HFP-like anchors + streamed data; whole accumulation chains, e.g. 3-D GEMM), stealing, Belady on the plan; DARTS for the rest',
    create: (o) => new HfpScheduler(o),
  },
};

/** Creates the scheduler `name`; throws a LocusError listing the known names. */
export function createScheduler(name: string, options: SchedulerOptions = {}): Scheduler {
  const entry = SCHEDULERS[name];
  if (!entry)
    throw new LocusError(
      'LOCUS_NAME_UNKNOWN',
      `unknown scheduler '${name}': use one of ${Object.keys(SCHEDULERS).join(', ')}`,
    );
  return entry.create(options);
}
