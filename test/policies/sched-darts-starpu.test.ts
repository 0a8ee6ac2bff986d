/**
 * The scheduler conformance suite for DARTS with StarPU master's fallback when no datum frees
 * a task (dartsOneFromFree) and its D_opt tie order (dartsStarpuTies).
 */
import { createScheduler } from '../../src/sched/index.ts';
import { runSchedulerConformance } from '../conformance/scheduler.ts';

runSchedulerConformance({
  name: 'darts-starpu',
  create: () =>
    createScheduler('darts', { dartsOneFromFree: true, dartsStarpuTies: true, dartsPushFree: true }),
  skip: [
    { reason: 'does not claim a priority order (priorities only break ties)', tests: ['priorities first'] },
  ],
});
