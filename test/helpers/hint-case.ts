/**
 * The hand-built memory case of the wontUse tests (memory-pressure and sched-wontuse): one GPU
 * holding three data of 1000 bytes, A and B written, C read, then D read (one eviction), with
 * a wontUse hint on A from the application, from the scheduler, or none.
 */
import assert from 'node:assert/strict';
import type { EngineObserver } from '../../src/core/engine.ts';
import { TaskGraph } from '../../src/core/graph.ts';
import type { SchedContext } from '../../src/core/policy.ts';
import { AccessMode } from '../../src/core/types.ts';
import { testPlatform } from './platforms.ts';
import { checkedRun, FixedScheduler } from './run.ts';

/** Records the evictions of node 1 (frees with reason 'evict'), the transfer starts and task ends. */
export class EvictionLog implements EngineObserver {
  readonly evicted: number[] = [];
  /** Transfer ids and start times (kinds and handles read from the engine after the run). */
  readonly started: { id: number; at: number }[] = [];
  readonly ended = new Map<number, number>();
  replicaFreed(h: number, n: number, reason: string): void {
    if (n === 1 && reason === 'evict') this.evicted.push(h);
  }
  transferStarted(id: number, now: number): void {
    this.started.push({ id, at: now });
  }
  taskFinished(task: number, _w: number, now: number): void {
    this.ended.set(task, now);
  }
}

/** Everything on worker 0; when task `after` finishes, a wontUse hint for `handle`. */
export class HintingScheduler extends FixedScheduler {
  private ctx!: SchedContext;
  constructor(
    private readonly after: number,
    private readonly handle: number,
  ) {
    super(() => 0);
  }
  override init(ctx: SchedContext): void {
    super.init(ctx);
    this.ctx = ctx;
  }
  taskFinished(task: number): void {
    if (task === this.after) this.ctx.wontUse(this.handle);
  }
}

/**
 * Runs the case under `eviction`: with hint 'application', TaskGraph.wontUse(A) after C's task
 * is submitted; with 'scheduler', the scheduler hints A when A's task (task 0) ends. Checks the
 * invariants; returns the log, the transfers of a kind, and handle names.
 */
export function hintRun(eviction: string, hint: 'none' | 'application' | 'scheduler', cleanFirst: boolean) {
  const g = new TaskGraph();
  const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
  const [A, B, C, D] = [0, 1, 2, 3].map((i) => g.addHandle(1000, { name: 'ABCD'[i]! }));
  const flops = 1e9; // 1 ms each on the test GPU: every copy lands long before the next task
  g.submit(c, [[A!, AccessMode.RW]], { flops });
  g.submit(c, [[B!, AccessMode.RW]], { flops });
  g.submit(c, [[C!, AccessMode.R]], { flops });
  if (hint === 'application') g.wontUse(A!);
  g.submit(c, [[D!, AccessMode.R]], { flops });
  const log = new EvictionLog();
  const r = checkedRun(g, testPlatform({ gpus: 1, gpuCapacity: 3000 }), {
    sched: hint === 'scheduler' ? new HintingScheduler(0, A!) : new FixedScheduler(() => 0),
    eviction,
    gpuPipeline: 1,
    gpuLookahead: 0,
    cleanFirst,
    observers: [log],
  });
  assert.deepEqual(r.checker.violations, [], `${eviction}: the invariant checker found violations`);
  assert.ok(r.checker.finished, `${eviction}: the run finished`);
  const e = r.engine;
  const kinds = (k: number) =>
    log.started
      .filter((s) => e.trKind.data[s.id] === k)
      .map((s) => ({ handle: e.trHandle.data[s.id]!, at: s.at }));
  return { log, r, kinds, names: (hs: number[]) => hs.map((h) => 'ABCD'[h]).join('') };
}
