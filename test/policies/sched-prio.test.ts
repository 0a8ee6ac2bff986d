/** The scheduler conformance suite for prio (central priority queue). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'prio',
  create: () => createScheduler('prio'),
});
