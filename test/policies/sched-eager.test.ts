/** The scheduler conformance suite for eager (one shared FIFO). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'eager',
  create: () => createScheduler('eager'),
  skip: [{ reason: 'does not claim a priority order', tests: ['priorities first'] }],
});
