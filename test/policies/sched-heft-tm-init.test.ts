/** The scheduler conformance suite for heft-tm-init (heft-tm, first iteration bound like static). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'heft-tm-init',
  create: () => createScheduler('heft-tm-init'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
