/** The scheduler conformance suite for DARTS's variant darts-opti (smallest transfer time over compute time freed). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'darts-opti',
  create: () => createScheduler('darts', { dartsOpti: true }),
  skip: [
    { reason: 'does not claim a priority order (priorities only break ties)', tests: ['priorities first'] },
  ],
});
