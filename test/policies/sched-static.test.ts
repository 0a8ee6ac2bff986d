/** The scheduler conformance suite for static (owner-computes placement). */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'static',
  create: () => createScheduler('static'),
  skip: [
    { reason: 'does not claim a priority order', tests: ['priorities first'] },
    {
      reason: 'static binds tasks to GPUs (owner-computes): it refuses a platform without one',
      tests: ['no GPU'],
    },
  ],
});
