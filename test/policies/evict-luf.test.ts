/** The eviction conformance suite for luf (least used in the future, then Belady on the task buffer). */
import { LufEviction } from '../../src/evict/luf.ts';
import { createScheduler } from '../../src/sched/index.ts';
import { runEvictionConformance } from '../conformance/eviction.ts';

runEvictionConformance({
  name: 'luf',
  create: () => new LufEviction(),
  schedulersLeftOut: {
    reason: "LUF reads the scheduler's planned tasks: schedulers without plannedTasks are refused",
    names: (name) => createScheduler(name).plannedTasks === undefined,
  },
  skip: [{ reason: 'LUF ranks by future use; ties in LRU order', tests: ['first loaded first'] }],
});
