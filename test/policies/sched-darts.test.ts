/** The scheduler conformance suite for darts (DARTS). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'darts',
  create: () => createScheduler('darts'),
  skip: [
    { reason: 'does not claim a priority order (priorities only break ties)', tests: ['priorities first'] },
  ],
});
