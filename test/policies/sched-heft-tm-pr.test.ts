/** The scheduler conformance suite for heft-tm-pr (heft-tm with prefetch). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'heft-tm-pr',
  create: () => createScheduler('heft-tm-pr'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
