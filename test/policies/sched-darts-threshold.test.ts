/** The scheduler conformance suite for DARTS's variant darts-threshold (at most 2 candidate data scanned per decision). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'darts-threshold',
  create: () => createScheduler('darts', { dartsThreshold: 2 }),
  skip: [
    { reason: 'does not claim a priority order (priorities only break ties)', tests: ['priorities first'] },
  ],
});
