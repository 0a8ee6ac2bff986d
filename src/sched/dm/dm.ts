/**
 * DM, "deque model" (StarPU's `dm`, seed 001's heft-tm: HEFT on task-duration models): each
 * ready task goes to the worker where it is expected to complete first counting computation
 * only, max(now, exp_end) + duration; per-worker FIFO. No prefetch unless asked
 * (heft-tm-pr). Cost per push O(W), per pop O(a).
 */
import type { SchedulerOptions } from '../options.ts';
import { DequeModelScheduler } from './deque-model.ts';
import { FifoQueues } from './queues.ts';

/** dm / heft-tm (prefetch off unless options.prefetch) and heft-tm-pr (prefetch on). */
export function createDm(
  options: SchedulerOptions = {},
  name = 'dm',
  prefetchByDefault = false,
  initialPlacement = false,
): DequeModelScheduler {
  return new DequeModelScheduler({
    name,
    transfers: false,
    queues: new FifoQueues(),
    prefetch: options.prefetch ?? prefetchByDefault,
    initialPlacement,
  });
}
