/** The coherence conformance suite for cache-0: write-back with no alien cache line: aliens dropped after each task unless modified. */
import { parseCoherence } from '../../src/coherence/versions.ts';
import { runCoherenceConformance } from '../conformance/coherence.ts';

runCoherenceConformance({
  name: 'cache-0',
  create: (owners) => parseCoherence('cache=0', owners),
  skip: [
    {
      reason: 'write-back keeps modified replicas on the devices on purpose',
      tests: ['write-through: no modified replica left after a task'],
    },
    {
      reason: 'free=none (the cache limit drops the aliens)',
      tests: ['operands freed after each task, one GPU', 'operands freed after each task, several GPUs'],
    },
    {
      reason: 'seed 004 gives counts for its four versions only',
      tests: ["seed 004's block transfers on every prefix"],
    },
  ],
});
