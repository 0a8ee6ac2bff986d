/** The scheduler conformance suite for dmda (dm with transfer times). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'dmda',
  create: () => createScheduler('dmda'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
