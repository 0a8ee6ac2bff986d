/** The scheduler conformance suite for heft-tm (HEFT on task-duration models). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'heft-tm',
  create: () => createScheduler('heft-tm'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
