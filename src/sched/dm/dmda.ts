/**
 * DMDA, "deque model data aware" (StarPU's `dmda`, seed 001's heft-tmdp: heft-tm with a
 * remote data penalty; seed 000 Eq. 1): as dm, but a worker's expected completion time also
 * counts the time to bring every input that is neither valid nor loading on its node.
 * Per-worker FIFO. No prefetch unless asked (heft-tmdp-pr). Cost per push O(W + N a)
 * transfer estimates, per pop O(a).
 */
import type { SchedulerOptions } from '../options.ts';
import { DequeModelScheduler } from './deque-model.ts';
import { FifoQueues } from './queues.ts';

/** dmda / heft-tmdp (prefetch off unless options.prefetch) and heft-tmdp-pr (prefetch on). */
export function createDmda(
  options: SchedulerOptions = {},
  name = 'dmda',
  prefetchByDefault = false,
  initialPlacement = false,
): DequeModelScheduler {
  return new DequeModelScheduler({
    name,
    transfers: true,
    queues: new FifoQueues(),
    prefetch: options.prefetch ?? prefetchByDefault,
    initialPlacement,
  });
}
