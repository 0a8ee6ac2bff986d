/** The scheduler conformance suite for heft-tmdp (heft-tm with remote data penalty). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'heft-tmdp',
  create: () => createScheduler('heft-tmdp'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
