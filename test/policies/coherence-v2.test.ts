/** The coherence conformance suite for v2: seed 004's version 2: write-through, alien operands freed after each task. */
import { runtimeVersion } from '../../src/coherence/versions.ts';
import { runCoherenceConformance } from '../conformance/coherence.ts';

runCoherenceConformance({
  name: 'v2',
  create: (owners) => runtimeVersion('v2', owners),
  version: 'v2',
  skip: [
    { reason: 'write-through', tests: ['write-back: no write-through copy'] },
    { reason: 'no line limit', tests: ['alien cache within its lines after each task'] },
  ],
});
