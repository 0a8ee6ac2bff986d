/** The scheduler conformance suite for dmdar (dmda with prefetch, ready-first pops). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'dmdar',
  create: () => createScheduler('dmdar'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
