/** The coherence conformance suite for v3-cache-1: version 3 with one alien cache line per GPU. */
import { runtimeVersion } from '../../src/coherence/versions.ts';
import { runCoherenceConformance } from '../conformance/coherence.ts';

runCoherenceConformance({
  name: 'v3-cache-1',
  create: (owners) => runtimeVersion('v3', owners, 1),
  skip: [
    {
      // Reproduce: CONFORMANCE_KNOWN_BUGS=1 node --import tsx --test test/policies/coherence-v3-cache-1.test.ts
      reason:
        'known bug: write-through sends one version home twice: (1) when a stale copy home lands while a task waits at home, the engine fetches the new version from the device and then, for the write made during the copy, issues a write-through of that same version; (2) a stale copy home landing marks host memory invalid though a newer copy home is in flight, so a read on another GPU stages a second copy home',
      tests: [
        'no second copy of a version to a node already receiving it',
        'hand-made: a datum rewritten while its copy home is in flight',
      ],
    },
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
