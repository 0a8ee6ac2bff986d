/** The coherence conformance suite for v1: seed 004's version 1: write-through, every operand freed after each task. */
import { runtimeVersion } from '../../src/coherence/versions.ts';
import { runCoherenceConformance } from '../conformance/coherence.ts';

runCoherenceConformance({
  name: 'v1',
  create: (owners) => runtimeVersion('v1', owners),
  version: 'v1',
  skip: [
    { reason: 'write-through', tests: ['write-back: no write-through copy'] },
    { reason: 'no line limit', tests: ['alien cache within its lines after each task'] },
  ],
});
