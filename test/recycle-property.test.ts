/**
 * Recycling never changes a run (property, issue 25): a session that submits random tasks in
 * batches and lets the engine recycle finished tasks' records while others run (Engine.compact
 * at a random minimum, then the backend's and the driver's rebase, as a Runtime session and
 * the simulator's task sources do) issues exactly the commands, at exactly the times, of the
 * same session with every record kept, under every scheduler that takes tasks while it runs.
 * A compaction that missed a table holding task ids or access indices (wontUse hints waiting
 * for tasks included) shows as a different command or a stalled run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Engine } from '../src/core/engine.ts';
import { type Access, TaskGraph } from '../src/core/graph.ts';
import { PlatformModel } from '../src/core/model.ts';
import { AccessMode } from '../src/core/types.ts';
import type { Backend } from '../src/drive/backend.ts';
import { openRun } from '../src/drive/open-run.ts';
import { SimBackend } from '../src/sim/backend.ts';
import { testPlatform } from './helpers/platforms.ts';

const SCHEDULERS = ['eager', 'random', 'ws', 'lws', 'prio', 'dmda', 'dmdar', 'dmdas', 'darts', 'hfp'];
const BYTES = 4000;

const sessionArb = fc.record({
  handles: fc.integer({ min: 4, max: 24 }),
  tasks: fc.integer({ min: 40, max: 240 }),
  batch: fc.integer({ min: 3, max: 60 }),
  minimum: fc.integer({ min: 1, max: 40 }),
  gpus: fc.integer({ min: 1, max: 2 }),
  gpuData: fc.integer({ min: 3, max: 8 }),
  scheduler: fc.constantFrom(...SCHEDULERS),
  /** LUF where the scheduler plans (DARTS), else LRU or FIFO. */
  eviction: fc.constantFrom('lru', 'fifo', 'luf'),
  lookahead: fc.integer({ min: 0, max: 6 }),
  seed: fc.nat(),
});
type Session = typeof sessionArb extends fc.Arbitrary<infer T> ? T : never;

/** Appends task i of the session's stream: reads one or two data, updates a third. */
function addTask(g: TaskGraph, s: Session, i: number): void {
  let x = Math.imul(s.seed ^ (i * 0x9e3779b9), 2654435761) >>> 0 || 1;
  const next = (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const w = next(s.handles);
  const accesses: Access[] = [[w, AccessMode.RW]];
  for (let k = next(2) + 1; k > 0; k--) {
    const r = next(s.handles);
    if (accesses.every(([h]) => h !== r)) accesses.push([r, AccessMode.R]);
  }
  g.submit(0, accesses, { flops: 1e6 * (1 + next(3)), priority: next(3) });
  // A wontUse hint now and then: its wait for the tasks using the datum outlives compactions.
  if (next(4) === 0) g.wontUse(w);
}

/** Runs the session; returns the backend's commands, in order, with their times. */
async function runSession(s: Session, recycle: boolean): Promise<{ log: string[]; recycled: number }> {
  const graph = new TaskGraph();
  graph.addCodelet({ name: 'k', kinds: ['cpu', 'gpu'] });
  for (let h = 0; h < s.handles; h++) graph.addHandle(BYTES);
  const platform = testPlatform({ gpus: s.gpus, gpuCapacity: s.gpuData * BYTES, cpus: 1, p2p: true });
  const model = new PlatformModel(platform, graph);
  const log: string[] = [];
  // Copies are logged by what they move: transfer ids are reused only when records are recycled.
  const logged = (b: Backend, e: Engine): Backend =>
    new Proxy(b, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function') return v;
        if (prop === 'run')
          return (task: number, w: number) => {
            log.push(`${b.now()} run ${task + graph.retired} on ${w}`);
            v.call(target, task, w);
          };
        if (prop === 'copy')
          return (id: number) => {
            log.push(`${b.now()} copy ${e.trHandle.data[id]} ${e.trSrc.data[id]}->${e.trDst.data[id]}`);
            v.call(target, id);
          };
        if (prop === 'free')
          return (h: number, n: number) => {
            log.push(`${b.now()} free ${h} on ${n}`);
            v.call(target, h, n);
          };
        return v.bind(target);
      },
    });
  const sim = new SimBackend({ graph, platform, model });
  const { engine, driver, backend } = openRun({
    graph,
    platform,
    backend: sim,
    scheduler: s.scheduler,
    eviction: s.eviction === 'luf' && s.scheduler !== 'darts' ? 'lru' : s.eviction,
    model,
    engine: { recycle, gpuLookahead: s.lookahead },
    wrap: (b, e) => logged(b, e),
  });
  engine.open(0);
  let next = 0;
  let recycled = 0;
  while (next < s.tasks) {
    for (let i = 0; i < s.batch && next < s.tasks; i++) addTask(graph, s, next++);
    engine.submitted(backend.now());
    const half = engine.submittedTasks - Math.floor(s.batch / 2);
    driver.runSync(() => engine.finishedTasks >= half);
    const k = recycle ? engine.compact(s.minimum) : 0;
    if (k > 0) {
      backend.rebase!(k);
      driver.rebase(k);
      recycled += k;
    }
  }
  engine.close(backend.now());
  driver.runSync(() => engine.isFinished);
  log.push(`end ${backend.now()}`);
  return { log, recycled };
}

test('recycling records while tasks run changes no command of a run (every dynamic scheduler)', async () => {
  let recycledRuns = 0;
  await fc.assert(
    fc.asyncProperty(sessionArb, async (s) => {
      const kept = await runSession(s, false);
      const recycled = await runSession(s, true);
      if (recycled.recycled > 0) recycledRuns++;
      assert.deepEqual(recycled.log, kept.log, `${JSON.stringify(s)}: the recycled run differs`);
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 60), seed: Number(process.env.PROPERTY_SEED ?? 25) },
  );
  assert.ok(recycledRuns > 0, 'no run recycled anything');
});
