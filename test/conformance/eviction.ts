/**
 * The eviction-policy conformance suite: every eviction policy's test file calls
 * runEvictionConformance. Hand-made cases drive the EvictionPolicy interface directly through
 * a small fake context (exact victim orders); a property checks the victim contract on random
 * sequences of notifications; and a pressure case runs random graphs on GPUs that hold one
 * task at a time under every registered scheduler, with the value-checking oracle attached
 * and every victim checked (evictable, allowed, of that node; -1 only when none is).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { TaskGraph } from '../../src/core/graph.ts';
import type { Platform } from '../../src/core/platform.ts';
import type { EvictionContext, EvictionPolicy, Scheduler } from '../../src/core/policy.ts';
import { AccessMode, LocusError } from '../../src/core/types.ts';
import { createScheduler, SCHEDULERS } from '../../src/sched/index.ts';
import { testPlatform } from '../helpers/platforms.ts';
import {
  assertProperty,
  graphOf,
  oracleRun,
  runParamsArb,
  type SkipGroup,
  skipReason,
  specArb,
} from './harness.ts';

/** The cases of the eviction suite. */
export const EVICTION_CASES = [
  'victims are evictable, allowed replicas of the node',
  'no victim when nothing is evictable',
  'least recently used first',
  'first loaded first',
  'furthest next use first',
  'fewest planned uses first',
  'heavy pressure under every scheduler',
] as const;

/** One case of EVICTION_CASES. */
export type EvictionCase = (typeof EVICTION_CASES)[number];

/** Options of runEvictionConformance. */
export interface EvictionConformance {
  /** The policy's name (in test names and failure messages). */
  name: string;
  /** A fresh policy per run. */
  create: () => EvictionPolicy;
  /**
   * Schedulers (registry names) the pressure case leaves out, with the reason; the suite
   * checks that the policy refuses each of them with a LocusError.
   */
  schedulersLeftOut?: { reason: string; names: (name: string) => boolean };
  /** Cases not run, with their reasons. */
  skip?: readonly SkipGroup<EvictionCase>[];
  /** fast-check runs per property case (default 20; PROPERTY_RUNS overrides). */
  runs?: number;
}

/**
 * A context for calling a policy by hand: `handles` data of 1000 bytes, one GPU (node 1,
 * worker 0) and a second one (node 2, worker 1); tasks added with `task(...handles)` read
 * those handles; the pipeline and planned tasks of each worker and the evictable replicas are
 * set by the test.
 */
export class FakeEvictionContext implements EvictionContext {
  readonly graph = new TaskGraph();
  readonly platform: Platform = testPlatform({ gpus: 2, gpuCapacity: 1e9 });
  readonly pipelines: number[][] = [[], []];
  readonly planned: number[][] = [[], []];
  /** Replicas (handle * 3 + node) the engine would let go. */
  readonly evictable = new Set<number>();
  /** Replicas (handle * 3 + node) that are modified (dirty). */
  readonly modified = new Set<number>();
  readonly scheduler: Scheduler;
  private readonly codelet: number;

  /** Per-task table size the policy sizes its tables to (the graph's, at least 16). */
  get taskCapacity(): number {
    return Math.max(16, this.graph.taskCount);
  }

  /** Per-handle table size. */
  get handleCapacity(): number {
    return Math.max(16, this.graph.handleCount);
  }

  constructor(handles: number) {
    this.codelet = this.graph.addCodelet({ name: 'g', kinds: ['gpu'] });
    for (let h = 0; h < handles; h++) this.graph.addHandle(1000);
    const planned = this.planned;
    this.scheduler = {
      name: 'fake',
      init() {},
      push() {},
      pop: () => -1,
      plannedTasks: (w: number) => planned[w]!,
    };
  }

  /** Submits a task reading `handles` (each once); returns its id. */
  task(...handles: number[]): number {
    return this.graph.submit(
      this.codelet,
      [...new Set(handles)].map((h) => [h, AccessMode.R] as const),
    );
  }

  pipeline(worker: number): number[] {
    return this.pipelines[worker]!;
  }

  isEvictable(handle: number, node: number): boolean {
    return this.evictable.has(handle * 3 + node);
  }

  isModified(handle: number, node: number): boolean {
    return this.modified.has(handle * 3 + node);
  }

  evictionCost(handle: number, node: number): number {
    return this.isModified(handle, node) ? this.graph.handleSize.data[handle]! : 0;
  }

  /** Marks the replicas of `handles` on `node` evictable (or not). */
  setEvictable(node: number, handles: number[], on = true): void {
    for (const h of handles) {
      if (on) this.evictable.add(h * 3 + node);
      else this.evictable.delete(h * 3 + node);
    }
  }
}

/** Calls victim, removes the victim, again, until -1: the drain order. */
function drain(p: EvictionPolicy, ctx: FakeEvictionContext, node: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < 100; i++) {
    const v = p.victim(node);
    if (v < 0) return out;
    out.push(v);
    p.removed(v, node);
    ctx.setEvictable(node, [v], false);
  }
  throw new Error('victim never returned -1');
}

/**
 * Wraps a policy to check every victim on a real run: evictable, accepted by `allow`, resident
 * on that node; -1 only when no resident replica is both evictable and allowed.
 */
export class CheckedEviction implements EvictionPolicy {
  readonly name: string;
  readonly violations: string[] = [];
  victims = 0;
  private ctx!: EvictionContext;
  private resident: Set<number>[] = [];

  constructor(private readonly inner: EvictionPolicy) {
    this.name = inner.name;
  }

  /** The inner policy's promise, so that the engine runs as it does without the wrapper. */
  get exhaustive(): boolean | undefined {
    return this.inner.exhaustive;
  }

  init(ctx: EvictionContext): void {
    this.ctx = ctx;
    this.resident = ctx.platform.nodes.map(() => new Set());
    this.inner.init(ctx);
  }

  added(handle: number, node: number): void {
    this.resident[node]!.add(handle);
    this.inner.added(handle, node);
  }

  used(handle: number, node: number): void {
    this.inner.used(handle, node);
  }

  removed(handle: number, node: number): void {
    this.resident[node]!.delete(handle);
    this.inner.removed(handle, node);
  }

  victim(node: number, allow?: (handle: number) => boolean): number {
    const v = this.inner.victim(node, allow);
    const ok = (h: number) => this.ctx.isEvictable(h, node) && (!allow || allow(h));
    if (v >= 0) {
      this.victims++;
      if (!this.resident[node]!.has(v)) this.fail(`victim ${v} is not resident on node ${node}`);
      if (!this.ctx.isEvictable(v, node))
        this.fail(`victim ${v} on node ${node} is not evictable (pinned or busy)`);
      if (allow && !allow(v)) this.fail(`victim ${v} on node ${node} is refused by the filter`);
    } else {
      const missed = [...this.resident[node]!].find(ok);
      if (missed !== undefined)
        this.fail(`no victim on node ${node} though ${missed} is evictable and allowed`);
    }
    return v;
  }

  private fail(msg: string): void {
    if (this.violations.length < 10) this.violations.push(msg);
  }
}

/** Registers the suite for one eviction policy under describe('eviction conformance: NAME'). */
export function runEvictionConformance(o: EvictionConformance): void {
  const runs = o.runs ?? 20;
  const label = (c: EvictionCase) => `[eviction ${o.name}] ${c}`;
  const caseTest = (c: EvictionCase, fn: () => void) => {
    const reason = skipReason(`eviction ${o.name}`, EVICTION_CASES, o.skip, c);
    test(c, reason ? { skip: reason } : {}, fn);
  };
  const fresh = (handles: number) => {
    const ctx = new FakeEvictionContext(handles);
    const p = o.create();
    p.init(ctx);
    return { ctx, p };
  };

  describe(`eviction conformance: ${o.name}`, () => {
    test('declares exhaustive only where its victim contract is checked', () => {
      // EvictionPolicy.exhaustive lets the memory manager skip searches that would fail: the
      // property below ("-1 only when none qualifies") is what the promise rests on.
      const c: EvictionCase = 'victims are evictable, allowed replicas of the node';
      if (o.create().exhaustive === true)
        assert.equal(skipReason(`eviction ${o.name}`, EVICTION_CASES, o.skip, c), undefined);
    });

    caseTest('victims are evictable, allowed replicas of the node', () => {
      // Random notifications on two GPU nodes; the model tracks the resident replicas.
      const c = 'victims are evictable, allowed replicas of the node';
      const H = 6;
      const op = fc.record({
        kind: fc.constantFrom('add', 'use', 'remove', 'flip', 'victim'),
        handle: fc.integer({ min: 0, max: H - 1 }),
        node: fc.constantFrom(1, 2),
        allowMask: fc.option(fc.integer({ min: 0, max: (1 << H) - 1 }), { nil: undefined }),
      });
      const futures = fc.array(fc.array(fc.integer({ min: 0, max: H - 1 }), { minLength: 1, maxLength: 2 }), {
        maxLength: 4,
      });
      assertProperty(
        label(c),
        fc.tuple(fc.array(op, { maxLength: 40 }), fc.tuple(futures, futures, futures, futures)),
        ([ops, [pipe0, plan0, pipe1, plan1]]) => {
          const { ctx, p } = fresh(H);
          ctx.pipelines[0] = pipe0.map((hs) => ctx.task(...hs));
          ctx.planned[0] = plan0.map((hs) => ctx.task(...hs));
          ctx.pipelines[1] = pipe1.map((hs) => ctx.task(...hs));
          ctx.planned[1] = plan1.map((hs) => ctx.task(...hs));
          const resident = [new Set<number>(), new Set<number>(), new Set<number>()];
          for (const x of ops) {
            const here = resident[x.node]!;
            if (x.kind === 'add' && !here.has(x.handle)) {
              here.add(x.handle);
              p.added(x.handle, x.node);
              ctx.setEvictable(x.node, [x.handle]);
            } else if (x.kind === 'use' && here.has(x.handle)) {
              p.used(x.handle, x.node);
            } else if (x.kind === 'remove' && here.has(x.handle)) {
              here.delete(x.handle);
              p.removed(x.handle, x.node);
              ctx.setEvictable(x.node, [x.handle], false);
            } else if (x.kind === 'flip' && here.has(x.handle)) {
              ctx.setEvictable(x.node, [x.handle], !ctx.isEvictable(x.handle, x.node));
            } else if (x.kind === 'victim') {
              const mask = x.allowMask;
              const allow = mask === undefined ? undefined : (h: number) => ((mask >> h) & 1) === 1;
              const v = p.victim(x.node, allow);
              const candidates = [...here].filter((h) => ctx.isEvictable(h, x.node) && (!allow || allow(h)));
              if (candidates.length === 0)
                assert.equal(v, -1, `${label(c)}: victim ${v} though none qualifies`);
              else
                assert.ok(
                  candidates.includes(v),
                  `${label(c)}: victim ${v} on node ${x.node}, candidates ${candidates.join(', ')}`,
                );
            }
          }
        },
        runs * 5,
      );
    });

    caseTest('no victim when nothing is evictable', () => {
      const c = 'no victim when nothing is evictable';
      const { ctx, p } = fresh(4);
      assert.equal(p.victim(1), -1, `${label(c)}: empty node`);
      for (const h of [0, 1, 2]) p.added(h, 1);
      p.added(3, 2);
      ctx.setEvictable(2, [3]);
      assert.equal(p.victim(1), -1, `${label(c)}: nothing evictable on node 1 (only on node 2)`);
      ctx.setEvictable(1, [0, 1, 2]);
      assert.equal(
        p.victim(1, () => false),
        -1,
        `${label(c)}: the filter refuses every replica`,
      );
      assert.equal(
        p.victim(1, (h) => h === 1),
        1,
        `${label(c)}: the filter accepts only 1`,
      );
      for (const h of [0, 1, 2]) p.removed(h, 1);
      assert.equal(p.victim(1), -1, `${label(c)}: every replica removed`);
    });

    // Added 0, 1, 2, 3 on node 1, then 1 and 0 used: LRU order 2, 3, 1, 0; load order 0, 1, 2, 3.
    const usedSequence = () => {
      const { ctx, p } = fresh(4);
      for (const h of [0, 1, 2, 3]) p.added(h, 1);
      p.used(1, 1);
      p.used(0, 1);
      ctx.setEvictable(1, [0, 1, 2, 3]);
      return { ctx, p };
    };

    caseTest('least recently used first', () => {
      const c = 'least recently used first';
      const a = usedSequence();
      assert.deepEqual(drain(a.p, a.ctx, 1), [2, 3, 1, 0], `${label(c)}: drain order`);
      // Pinned replicas are passed over, and come back once released.
      const b = usedSequence();
      b.ctx.setEvictable(1, [2], false);
      assert.equal(b.p.victim(1), 3, `${label(c)}: 2 is pinned, 3 comes next`);
      b.p.used(3, 1);
      assert.equal(b.p.victim(1), 1, `${label(c)}: 3 used again, 1 is now the oldest evictable`);
      b.ctx.setEvictable(1, [2]);
      assert.equal(b.p.victim(1), 2, `${label(c)}: 2 released`);
    });

    caseTest('first loaded first', () => {
      const c = 'first loaded first';
      const a = usedSequence();
      assert.deepEqual(drain(a.p, a.ctx, 1), [0, 1, 2, 3], `${label(c)}: drain order`);
      const b = usedSequence();
      b.p.removed(0, 1);
      b.p.added(0, 1); // reloaded: now the newest
      assert.deepEqual(drain(b.p, b.ctx, 1), [1, 2, 3, 0], `${label(c)}: a reloaded replica goes last`);
    });

    caseTest('furthest next use first', () => {
      // Worker 0's pipeline reads 2, 0, 3, 1 in that order; 4 has no known next use.
      const c = 'furthest next use first';
      const { ctx, p } = fresh(5);
      for (const h of [0, 1, 2, 3, 4]) p.added(h, 1);
      ctx.setEvictable(1, [0, 1, 2, 3, 4]);
      ctx.pipelines[0] = [ctx.task(2), ctx.task(0, 2), ctx.task(3), ctx.task(1, 0)];
      assert.deepEqual(drain(p, ctx, 1), [4, 1, 3, 0, 2], `${label(c)}: drain order`);
      // The other node's worker does not count.
      const b = fresh(3);
      for (const h of [0, 1, 2]) b.p.added(h, 1);
      b.ctx.setEvictable(1, [0, 1, 2]);
      b.ctx.pipelines[0] = [b.ctx.task(1), b.ctx.task(2), b.ctx.task(0)];
      b.ctx.pipelines[1] = [b.ctx.task(0), b.ctx.task(2), b.ctx.task(1)];
      assert.equal(b.p.victim(1), 0, `${label(c)}: only node 1's worker counts`);
    });

    caseTest('fewest planned uses first', () => {
      // Nothing in the pipeline; planned: 0 once, then 1 three times, then 2 twice; 3 never.
      const c = 'fewest planned uses first';
      const { ctx, p } = fresh(4);
      for (const h of [0, 1, 2, 3]) p.added(h, 1);
      ctx.setEvictable(1, [0, 1, 2, 3]);
      ctx.planned[0] = [ctx.task(0), ctx.task(1), ctx.task(1), ctx.task(1), ctx.task(2), ctx.task(2)];
      assert.deepEqual(drain(p, ctx, 1), [3, 0, 2, 1], `${label(c)}: drain order`);
    });

    caseTest('heavy pressure under every scheduler', () => {
      // GPUs holding exactly the largest task; each graph under every scheduler the policy
      // works with; every victim checked, the oracle attached.
      const c = 'heavy pressure under every scheduler';
      const names = Object.keys(SCHEDULERS).filter((n) => !o.schedulersLeftOut?.names(n));
      let victims = 0;
      assertProperty(
        label(c),
        fc.tuple(specArb, runParamsArb, fc.integer({ min: 1, max: 2 }), fc.boolean()),
        ([spec, run, gpus, p2p]) => {
          const built = graphOf(spec, run.hintEvery);
          const platform = testPlatform({
            gpus,
            gpuCapacity: built.maxFootprint,
            cpus: built.needsCpu ? 1 : 0,
            p2p,
          });
          for (const name of names) {
            const eviction = new CheckedEviction(o.create());
            oracleRun(`${label(c)} under ${name}`, built.g, platform, {
              ...run,
              scheduler: createScheduler(name),
              eviction,
            });
            assert.deepEqual(eviction.violations, [], `${label(c)} under ${name}: bad victims`);
            victims += eviction.victims;
          }
        },
        runs,
      );
      assert.ok(victims > 0, `${label(c)}: no eviction happened, the pressure is not real`);
      // The schedulers left out must be refused with a clear error, not run silently.
      const g = new TaskGraph();
      g.submit(g.addCodelet({ name: 'g', kinds: ['gpu'] }), [[g.addHandle(1000), AccessMode.RW]]);
      for (const name of Object.keys(SCHEDULERS).filter((n) => o.schedulersLeftOut?.names(n))) {
        assert.throws(
          () =>
            oracleRun(label(c), g, testPlatform({ gpus: 1, gpuCapacity: 1000 }), {
              scheduler: createScheduler(name),
              eviction: o.create(),
            }),
          LocusError,
          `${label(c)}: ${name} is left out (${o.schedulersLeftOut?.reason}) but the policy accepts it`,
        );
      }
    });
  });
}
