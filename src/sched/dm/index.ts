/** The dm family (seed 001's heft-* policies) and the other queue-based policies: registry entries. */
import type { SchedulerEntry } from '../options.ts';
import { createDm } from './dm.ts';
import { createDmda } from './dmda.ts';
import { createDmdar } from './dmdar.ts';
import { createDmdas } from './dmdas.ts';
import { PrioScheduler } from './prio.ts';
import { WorkStealingScheduler } from './ws.ts';

/** Scheduler entries defined in this folder. */
export const DM_SCHEDULERS: Record<string, SchedulerEntry> = {
  dm: {
    description: 'earliest expected completion, compute only; per-worker FIFO (StarPU dm, seed 001 heft-tm)',
    create: (o) => createDm(o),
  },
  dmda: {
    description: 'dm counting input transfer times (StarPU dmda, seed 000 Eq. 1, seed 001 heft-tmdp)',
    create: (o) => createDmda(o),
  },
  dmdar: {
    description: 'dmda + prefetch, queues popped most-inputs-resident first (seed 000 sec. 3.1, Alg. 1)',
    create: (o) => createDmdar(o),
  },
  dmdas: {
    description: 'dmdar with queues sorted by priority first (StarPU dmdas, seed 000 sec. 4.3)',
    create: (o) => createDmdas(o),
  },
  'heft-tm': {
    description: 'HEFT on task-duration models, alias of dm (seed 001 sec. III.B, Table I)',
    create: (o) => createDm(o, 'heft-tm'),
  },
  'heft-tm-pr': {
    description: 'heft-tm with input prefetch at assignment (seed 001 sec. III.B, Table I)',
    create: (o) => createDm(o, 'heft-tm-pr', true),
  },
  'heft-tmdp': {
    description: 'heft-tm with remote data penalty, alias of dmda (seed 001 sec. III.B, Table I)',
    create: (o) => createDmda(o, 'heft-tmdp'),
  },
  'heft-tmdp-pr': {
    description: 'heft-tmdp with input prefetch at assignment (seed 001 sec. III.B, Table I)',
    create: (o) => createDmda(o, 'heft-tmdp-pr', true),
  },
  'heft-tm-init': {
    description: "heft-tm whose first iteration is bound like static (seed 001's stencil)",
    create: (o) => createDm(o, 'heft-tm-init', false, true),
  },
  'heft-tmdp-init': {
    description: "heft-tmdp whose first iteration is bound like static (seed 001's stencil)",
    create: (o) => createDmda(o, 'heft-tmdp-init', false, true),
  },
  ws: {
    description: 'work stealing: per-worker LIFO deques, steal oldest from the fullest (StarPU ws)',
    create: () => new WorkStealingScheduler(),
  },
  prio: {
    description: 'one central queue, highest priority first, ties in push order (StarPU prio)',
    create: () => new PrioScheduler(),
  },
};
