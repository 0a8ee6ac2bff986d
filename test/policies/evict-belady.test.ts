/** The eviction conformance suite for belady (furthest next use first in the known future). */
import { BeladyEviction } from '../../src/evict/belady.ts';
import { runEvictionConformance } from '../conformance/eviction.ts';

runEvictionConformance({
  name: 'belady',
  create: () => new BeladyEviction(),
  skip: [
    { reason: 'Belady ranks by next use; ties (no known use) in LRU order', tests: ['first loaded first'] },
    {
      reason: 'Belady ranks by next use, not by the number of planned uses',
      tests: ['fewest planned uses first'],
    },
  ],
});
