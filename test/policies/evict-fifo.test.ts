/** The eviction conformance suite for fifo (first loaded first). */
import { FifoEviction } from '../../src/evict/fifo.ts';
import { runEvictionConformance } from '../conformance/eviction.ts';

runEvictionConformance({
  name: 'fifo',
  create: () => new FifoEviction(),
  skip: [
    { reason: 'FIFO ignores uses', tests: ['least recently used first'] },
    {
      reason: 'FIFO does not look at the future',
      tests: ['furthest next use first', 'fewest planned uses first'],
    },
  ],
});
