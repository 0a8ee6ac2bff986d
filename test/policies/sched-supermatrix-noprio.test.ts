/** The scheduler conformance suite for supermatrix-noprio (SuperMatrix without priority queues). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'supermatrix-noprio',
  create: () => createScheduler('supermatrix-noprio'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
