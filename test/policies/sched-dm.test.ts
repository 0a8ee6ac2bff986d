/** The scheduler conformance suite for dm (earliest expected completion). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'dm',
  create: () => createScheduler('dm'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
