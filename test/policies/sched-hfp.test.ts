/** The scheduler conformance suite for hfp (strip and chain packing ahead of DARTS). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'hfp',
  create: () => createScheduler('hfp'),
  skip: [
    {
      reason:
        'plans independent tasks and accumulation chains by locality before the run and runs the rest under DARTS, where priorities only break ties',
      tests: ['priorities first'],
    },
  ],
});
