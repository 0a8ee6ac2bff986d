/** The coherence conformance suite for write-back: the default: write-back, replicas kept, no line limit. */
import { runCoherenceConformance } from '../conformance/coherence.ts';

runCoherenceConformance({
  name: 'write-back',
  create: () => ({}),
  skip: [
    {
      reason: 'write-back keeps modified replicas on the devices on purpose',
      tests: ['write-through: no modified replica left after a task'],
    },
    {
      reason: 'write-back keeps operands (free=none)',
      tests: ['operands freed after each task, one GPU', 'operands freed after each task, several GPUs'],
    },
    { reason: 'no line limit', tests: ['alien cache within its lines after each task'] },
    {
      reason: 'seed 004 gives counts for its four versions only',
      tests: ["seed 004's block transfers on every prefix"],
    },
  ],
});
