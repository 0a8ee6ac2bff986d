/**
 * DMDAR (StarPU's `dmdar`, seed 000 section 3.1 and Algorithm 1): dmda's placement with
 * prefetch at assignment, and each worker's queue popped by the "ready" criterion: the first
 * task in queue order among those with the fewest inputs neither valid nor loading on the
 * worker's node (ready.ts). Costs: push O(W + N a + log32 q), pop O(L + log32 q + a) for L
 * distinct non-ready counts (a + 1 at most), data notification O(N + k log32 q) for the k
 * queued readers of the handle on the node (a 32-ary bitset per worker and count).
 */
import type { SchedulerOptions } from '../options.ts';
import { DequeModelScheduler } from './deque-model.ts';
import { ReadyQueues } from './ready.ts';

/** dmdar: prefetch on unless options.prefetch === false. */
export function createDmdar(options: SchedulerOptions = {}): DequeModelScheduler {
  return new DequeModelScheduler({
    name: 'dmdar',
    transfers: true,
    queues: new ReadyQueues(false),
    prefetch: options.prefetch ?? true,
    // Pop one task ahead: popping several on a tie in non-ready counts, before the first
    // one's loads are even requested, defeats the ready order (matmul2d N = 70 thrashes).
    lookahead: 1,
  });
}
