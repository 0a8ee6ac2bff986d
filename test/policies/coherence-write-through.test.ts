/** The coherence conformance suite for write-through: write-through alone, operands kept. */
import { parseCoherence } from '../../src/coherence/versions.ts';
import { runCoherenceConformance } from '../conformance/coherence.ts';

runCoherenceConformance({
  name: 'write-through',
  create: (owners) => parseCoherence('write-through', owners),
  skip: [
    { reason: 'write-through', tests: ['write-back: no write-through copy'] },
    {
      reason: 'operands kept (free=none)',
      tests: ['operands freed after each task, one GPU', 'operands freed after each task, several GPUs'],
    },
    { reason: 'no line limit', tests: ['alien cache within its lines after each task'] },
    {
      reason: 'seed 004 gives counts for its four versions only',
      tests: ["seed 004's block transfers on every prefix"],
    },
  ],
});
