/** The scheduler conformance suite for heft-tmdp-init (heft-tmdp, first iteration bound like static). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'heft-tmdp-init',
  create: () => createScheduler('heft-tmdp-init'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
