/** The coherence conformance suite for v2: seed 004's version 2: write-through, alien operands freed after each task. */
import { runtimeVersion } from '../../src/coherence/versions.ts';
import { runCoherenceConformance } from '../conformance/coherence.ts';

runCoherenceConformance({
  name: 'v2',
  create: (owners) => runtimeVersion('v2', owners),
  version: 'v2',
  skip: [
    {
      // Reproduce: CONFORMANCE_KNOWN_BUGS=1 node --import tsx --test test/policies/coherence-v2.test.ts
      reason:
        'known bug: write-through sends one version home twice: (1) when a stale copy home lands while a task waits at home, the engine fetches the new version from the device and then, for the write made during the copy, issues a write-through of that same version; (2) a stale copy home landing marks host memory invalid though a newer copy home is in flight, so a read on another GPU stages a second copy home',
      tests: [
        'no second copy of a version to a node already receiving it',
        'hand-made: a datum rewritten while its copy home is in flight',
      ],
    },
    {
      // Reproduce: CONFORMANCE_KNOWN_BUGS=1 node --import tsx --test test/policies/coherence-v2.test.ts
      reason:
        'known bug: an operand still pinned by another copy from it (to another GPU, or a staging copy home) when its write-through copy lands is never freed: engine.transferFinished clears F_DROP without freeing it, and nothing frees it once that copy ends',
      tests: [
        'operands freed after each task, several GPUs',
        'hand-made: an operand read by another GPU as its copy home lands',
      ],
    },
    { reason: 'write-through', tests: ['write-back: no write-through copy'] },
    { reason: 'no line limit', tests: ['alien cache within its lines after each task'] },
  ],
});
