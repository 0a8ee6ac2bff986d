/**
 * DMDAS (StarPU's `dmdas`, seed 000 section 4.3): dmdar whose queues are sorted by priority
 * (graph.taskPriority, larger first): a worker pops among the queued tasks of the highest
 * priority present, and among those applies the ready criterion (fewest non-ready inputs,
 * then queue order). One indexed heap per worker: push O(W + N a + log q), pop O(log q + a),
 * data notification O(N + k log q).
 */
import type { SchedulerOptions } from '../options.ts';
import { DequeModelScheduler } from './deque-model.ts';
import { ReadyQueues } from './ready.ts';

/** dmdas: prefetch on unless options.prefetch === false. */
export function createDmdas(options: SchedulerOptions = {}): DequeModelScheduler {
  return new DequeModelScheduler({
    name: 'dmdas',
    transfers: true,
    queues: new ReadyQueues(true),
    prefetch: options.prefetch ?? true,
    // Pop one task ahead: popping several on a tie in non-ready counts, before the first
    // one's loads are even requested, defeats the ready order (matmul2d N = 70 thrashes).
    lookahead: 1,
  });
}
