/** The scheduler conformance suite for random (speed-weighted random worker per task). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'random',
  create: () => createScheduler('random'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
