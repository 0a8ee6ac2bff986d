/** The coherence conformance suite for v4-cache-2: version 4 with two alien cache lines per GPU. */
import { runtimeVersion } from '../../src/coherence/versions.ts';
import { runCoherenceConformance } from '../conformance/coherence.ts';

runCoherenceConformance({
  name: 'v4-cache-2',
  create: (owners) => runtimeVersion('v4', owners, 2),
  skip: [
    {
      reason: 'write-back keeps modified replicas on the devices on purpose',
      tests: ['write-through: no modified replica left after a task'],
    },
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
