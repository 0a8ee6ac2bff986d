/** The eviction conformance suite for lru (least recently used first). */
import { LruEviction } from '../../src/evict/lru.ts';
import { runEvictionConformance } from '../conformance/eviction.ts';

runEvictionConformance({
  name: 'lru',
  create: () => new LruEviction(),
  skip: [
    { reason: 'LRU moves a replica to the back on every use', tests: ['first loaded first'] },
    {
      reason: 'LRU does not look at the future',
      tests: ['furthest next use first', 'fewest planned uses first'],
    },
  ],
});
