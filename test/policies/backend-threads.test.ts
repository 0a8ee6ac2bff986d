/**
 * The backend conformance suite for the worker threads (src/exec/thread-backend.ts): real
 * kernels (test/helpers/kernels.ts's checksum, and boom for the tasks that must fail) on
 * int32 data in shared memory, copies held to their link's speed (throttled) so that they
 * complete while other events happen, as a device link's would. No case is skipped.
 */
import { FloatList, IntList } from '../../src/core/growable.ts';
import { BufferStore } from '../../src/exec/buffers.ts';
import { WorkerPool } from '../../src/exec/pool.ts';
import { ThreadBackend } from '../../src/exec/thread-backend.ts';
import { checksumArgs, initialWord, runBackendConformance } from '../conformance/backend.ts';

const KERNELS = new URL('../helpers/kernels.ts', import.meta.url).href;
const CHECKSUM = 0;
const BOOM = 1;

/**
 * A fresh pool per run: a thread caches the buffers it was told about by id, and each run
 * has its own buffer store (a Runtime keeps one store, and its threads, for its whole life).
 */
async function poolOf(size: number): Promise<WorkerPool> {
  const pool = new WorkerPool(size);
  await pool.load(
    [
      { module: KERNELS, export: 'checksum' },
      { module: KERNELS, export: 'boom' },
    ],
    0,
  );
  return pool;
}

runBackendConformance({
  name: 'threads',
  create: async ({ graph, platform, failing }) => {
    const pool = await poolOf(platform.workers.length);
    const store = new BufferStore();
    for (let h = 0; h < graph.handleCount; h++) {
      const words = graph.handleSize.data[h]! / 4;
      store.addHandle(
        2,
        words,
        Int32Array.from({ length: words }, (_, k) => initialWord(h, k)),
      );
    }
    store.useNodes(platform.nodes.length, platform.homeNode);
    const payloads = { kernel: new IntList(), argStart: new IntList(), args: new FloatList() };
    payloads.argStart.push(0);
    for (let t = 0; t < graph.taskCount; t++) {
      payloads.kernel.push(failing.has(t) ? BOOM : CHECKSUM);
      for (const a of checksumArgs(graph, t)) payloads.args.push(a);
      payloads.argStart.push(payloads.args.length);
    }
    const backend = new ThreadBackend({ platform, pool, store, payloads, throttle: true });
    return {
      backend,
      // As the Runtime runs it: several tasks handed to each thread at once.
      engineOptions: { issueAhead: true, cpuPipeline: 4, gpuPipeline: 4 },
      start: () => backend.start(),
      homeValues: () =>
        Array.from(
          { length: graph.handleCount },
          (_, h) => new Int32Array((store.view(store.home[h]!) as Int32Array).slice()),
        ),
      dispose: async () => {
        await backend.stop();
        await pool.close();
      },
    };
  },
  // The threads time their tasks on their own clocks (ms since the epoch): allow for skew.
  clockSlackS: 2e-3,
  // Each run starts its own threads, which is slow: fewer random graphs than the simulator's.
  runs: 4,
});
