/** The scheduler conformance suite for supermatrix (SuperMatrix, critical-path priority queues). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'supermatrix',
  create: () => createScheduler('supermatrix'),
  skip: [{ reason: 'orders by its own critical path, not by task priorities', tests: ['priorities first'] }],
});
