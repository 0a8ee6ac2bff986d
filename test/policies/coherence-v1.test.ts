/** The coherence conformance suite for v1: seed 004's version 1: write-through, every operand freed after each task. */
import { runtimeVersion } from '../../src/sched/runtime-versions.ts';
import { runCoherenceConformance } from '../conformance/coherence.ts';

runCoherenceConformance({
  name: 'v1',
  create: (owners) => runtimeVersion('v1', owners),
  version: 'v1',
  skip: [
    {
      reason:
        'known bug: an operand that a peer-to-peer copy is reading when its write-through copy lands is never freed (engine.transferFinished clears F_DROP while the peer copy still pins it); CONFORMANCE_KNOWN_BUGS=1 runs it',
      tests: ['operands freed after each task, with peer-to-peer copies'],
    },
    { reason: 'write-through', tests: ['write-back: no write-through copy'] },
    { reason: 'no line limit', tests: ['alien cache within its lines after each task'] },
  ],
});
