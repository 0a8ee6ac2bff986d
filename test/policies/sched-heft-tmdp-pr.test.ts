/** The scheduler conformance suite for heft-tmdp-pr (heft-tmdp with prefetch). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'heft-tmdp-pr',
  create: () => createScheduler('heft-tmdp-pr'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
