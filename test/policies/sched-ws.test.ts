/** The scheduler conformance suite for ws (work stealing). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'ws',
  create: () => createScheduler('ws'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
