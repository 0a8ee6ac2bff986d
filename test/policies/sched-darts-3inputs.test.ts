/** The scheduler conformance suite for DARTS's variant darts-3inputs (ties broken by the tasks one datum away from free). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'darts-3inputs',
  create: () => createScheduler('darts', { darts3inputs: true }),
  skip: [
    { reason: 'does not claim a priority order (priorities only break ties)', tests: ['priorities first'] },
  ],
});
