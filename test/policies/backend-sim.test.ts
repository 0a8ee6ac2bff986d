/** The backend conformance suite for the simulator (virtual time, the fair-sharing network). */
import { PlatformModel } from '../../src/core/model.ts';
import { SimBackend } from '../../src/sim/backend.ts';
import { runBackendConformance } from '../conformance/backend.ts';

runBackendConformance({
  name: 'simulator',
  create: ({ graph, platform }) => ({
    backend: new SimBackend({ graph, platform, model: new PlatformModel(platform, graph) }),
  }),
  skip: [
    {
      reason:
        'the simulator runs no kernel: it computes no values (the symbolic oracle checks its runs) and none of its tasks can fail',
      tests: [
        'final data computed by the kernels equal a sequential execution',
        'a failed task is reported; exactly its dependents are cancelled',
      ],
    },
  ],
});
