/** The coherence conformance suite for v3-cache-1: version 3 with one alien cache line per GPU. */
import { runtimeVersion } from '../../src/coherence/versions.ts';
import { runCoherenceConformance } from '../conformance/coherence.ts';

runCoherenceConformance({
  name: 'v3-cache-1',
  create: (owners) => runtimeVersion('v3', owners, 1),
  skip: [
    { reason: 'write-through', tests: ['write-back: no write-through copy'] },
    {
      reason: 'operands kept in the cache (free=none)',
      tests: ['operands freed after each task, one GPU', 'operands freed after each task, several GPUs'],
    },
    {
      reason: "seed 004's counts are for an unlimited cache",
      tests: ["seed 004's block transfers on every prefix"],
    },
  ],
});
