/** The scheduler conformance suite for dmdas (dmdar with priority-sorted queues). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'dmdas',
  create: () => createScheduler('dmdas'),
});
