/**
 * The coherence conformance suite: every coherence configuration's test file (seed 004's
 * write-through, free-after-task, alien cache lines and the v1-v4 presets) calls
 * runCoherenceConformance. Runs use the value-checking oracle; observers check each policy's
 * promise at the moments the engine applies it; the presets' block transfers on a 4 x 4-block
 * Cholesky equal the derivation by hand of test/helpers/seed004.ts on every prefix.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { RuntimeVersion } from '../../src/coherence/versions.ts';
import {
  type CoherenceOptions,
  type Engine,
  type EngineObserver,
  Replica,
  TransferKind,
} from '../../src/core/engine.ts';
import { TaskGraph } from '../../src/core/graph.ts';
import type { Platform } from '../../src/core/platform.ts';
import { AccessMode } from '../../src/core/types.ts';
import { EVICTION_POLICIES } from '../../src/evict/index.ts';
import { resolvePlatform } from '../../src/platform/presets.ts';
import { createScheduler, SCHEDULERS } from '../../src/sched/index.ts';
import { handleOwnerNodes, parseMapping } from '../../src/sched/mapping.ts';
import { generateWorkload } from '../../src/workloads/index.ts';
import { prefixGraph } from '../../src/workloads/prefix.ts';
import { testPlatform } from '../helpers/platforms.ts';
import { type GraphSpec, machineArb, machinePlatform } from '../helpers/random-graphs.ts';
import { FixedScheduler } from '../helpers/run.ts';
import { byHand } from '../helpers/seed004.ts';
import {
  assertProperty,
  graphOf,
  oracleRun,
  runParamsArb,
  type SkipGroup,
  skipReason,
  specArb,
} from './harness.ts';

/** The cases of the coherence suite. */
export const COHERENCE_CASES = [
  'oracle on random graphs under every scheduler',
  'write-through: no modified replica left after a task',
  'write-back: no write-through copy',
  'operands freed after each task, one GPU',
  'operands freed after each task, several GPUs',
  'alien cache within its lines after each task',
  "seed 004's block transfers on every prefix",
  'no second copy of a version to a node already receiving it',
  'hand-made: a datum rewritten while its copy home is in flight',
  'hand-made: an operand read by another GPU as its copy home lands',
] as const;

/** One case of COHERENCE_CASES. */
export type CoherenceCase = (typeof COHERENCE_CASES)[number];

/** Options of runCoherenceConformance. */
export interface CoherenceConformance {
  /** The configuration's name (in test names and failure messages). */
  name: string;
  /** The coherence options, given each handle's owner memory node (-1 for none). */
  create: (owners: Int32Array) => CoherenceOptions;
  /** The seed 004 runtime version this configuration is, for the exact transfer counts. */
  version?: RuntimeVersion;
  /** Cases not run, with their reasons. */
  skip?: readonly SkipGroup<CoherenceCase>[];
  /** fast-check runs per property case (default 10; PROPERTY_RUNS overrides). */
  runs?: number;
}

/** Every handle owned by one of the platform's GPU nodes, or by none (-1), drawn from `seed`. */
export function hashedOwners(graph: TaskGraph, platform: Platform, seed: number): Int32Array {
  const gpus = platform.nodes.flatMap((n, i) => (n.kind === 'gpu' ? [i] : []));
  return Int32Array.from({ length: graph.handleCount }, (_, h) => {
    const x = (Math.imul(h + 1, 2654435761) ^ seed) >>> 0;
    return gpus.length === 0 || x % 5 === 0 ? -1 : gpus[x % gpus.length]!;
  });
}

/** The spec with its write-only accesses turned into reads (RW and R stay). */
function readHeavy(spec: GraphSpec): GraphSpec {
  return {
    ...spec,
    tasks: spec.tasks.map((t) => ({
      ...t,
      accesses: t.accesses.map(([h, m]) => [h, m === 1 ? 0 : m] as [number, number]),
    })),
  };
}

/** Counts of a run and the slots (handle x node) of a platform, shared by the observers. */
class SlotObserver {
  readonly violations: string[] = [];
  /** Times the checked situation arose (a case whose runs never see it proves nothing). */
  witnessed = 0;
  protected readonly nn: number;
  protected readonly home: number;

  constructor(
    protected readonly engine: Engine,
    protected readonly graph: TaskGraph,
  ) {
    this.nn = engine.platform.nodes.length;
    this.home = engine.platform.homeNode;
  }

  protected fail(msg: string): void {
    if (this.violations.length < 10) this.violations.push(msg);
  }

  protected nodeOf(worker: number): number {
    return this.engine.platform.workers[worker]!.node;
  }
}

/**
 * Write-through: a device replica is modified only while a task writing it runs or while a
 * copy of it to host memory is in flight. Checked between events (at the start of every task
 * end and transfer end, whose callbacks come before their effects) and at the end of the run.
 */
class WriteThroughObserver extends SlotObserver implements EngineObserver {
  private readonly writers: Int32Array;
  private readonly copiesHome: Int32Array;

  constructor(engine: Engine, graph: TaskGraph) {
    super(engine, graph);
    this.writers = new Int32Array(graph.handleCount * this.nn);
    this.copiesHome = new Int32Array(graph.handleCount * this.nn);
  }

  private check(when: string): void {
    for (let h = 0; h < this.graph.handleCount; h++) {
      for (let n = 0; n < this.nn; n++) {
        const slot = h * this.nn + n;
        if (n === this.home || this.engine.replicaState(h, n) !== Replica.MODIFIED) continue;
        this.witnessed++;
        if (this.writers[slot] === 0 && this.copiesHome[slot] === 0)
          this.fail(`${when}: handle ${h} is modified on node ${n} with no writer running and no copy home`);
      }
    }
  }

  taskStarted(task: number, worker: number): void {
    const n = this.nodeOf(worker);
    for (const [h, m] of this.graph.accesses(task)) if (m & AccessMode.W) this.writers[h * this.nn + n]!++;
  }

  taskFinished(task: number, worker: number): void {
    this.check(`end of task ${task}`);
    const n = this.nodeOf(worker);
    for (const [h, m] of this.graph.accesses(task)) if (m & AccessMode.W) this.writers[h * this.nn + n]!--;
  }

  transferStarted(id: number): void {
    const e = this.engine;
    if (e.trDst.data[id] === this.home)
      this.copiesHome[e.trHandle.data[id]! * this.nn + e.trSrc.data[id]!]!++;
  }

  transferFinished(id: number): void {
    this.check(`end of transfer ${id}`);
    const e = this.engine;
    if (e.trDst.data[id] === this.home)
      this.copiesHome[e.trHandle.data[id]! * this.nn + e.trSrc.data[id]!]!--;
  }

  runFinished(): void {
    this.check('end of the run');
  }
}

/**
 * Free-after-task: an operand of a finished task on a device ('all', or those the device does
 * not own for 'aliens') stays allocated there only while something pins it (a later task of
 * that node, a copy from it). Checked between events: at the start of every transfer end, of
 * every task end (but for that task's own operands, which its end releases), and at the end.
 */
class FreedObserver extends SlotObserver implements EngineObserver {
  private readonly used: Uint8Array;

  constructor(
    engine: Engine,
    graph: TaskGraph,
    private readonly mode: 'all' | 'aliens',
    private readonly owners: Int32Array | undefined,
  ) {
    super(engine, graph);
    this.used = new Uint8Array(graph.handleCount * this.nn);
  }

  private check(when: string, except?: Set<number>): void {
    for (let slot = 0; slot < this.used.length; slot++) {
      if (!this.used[slot] || except?.has(slot)) continue;
      this.witnessed++;
      const n = slot % this.nn;
      const h = (slot - n) / this.nn;
      if (this.engine.isAllocated(h, n) && this.engine.replicaPins(h, n) === 0)
        this.fail(
          `${when}: handle ${h} stays on node ${n}, unpinned, after a task used it (free=${this.mode})`,
        );
    }
  }

  transferFinished(id: number): void {
    this.check(`end of transfer ${id}`);
  }

  taskFinished(task: number, worker: number): void {
    const n = this.nodeOf(worker);
    const own = new Set(this.graph.accesses(task).map(([h]) => h * this.nn + n));
    this.check(`end of task ${task}`, own);
    if (n === this.home) return;
    for (const [h] of this.graph.accesses(task)) {
      if (this.mode === 'all' || this.owners?.[h] !== n) this.used[h * this.nn + n] = 1;
    }
  }

  replicaAllocated(handle: number, node: number): void {
    this.used[handle * this.nn + node] = 0;
  }

  replicaFreed(handle: number, node: number): void {
    this.used[handle * this.nn + node] = 0;
  }

  runFinished(): void {
    this.check('end of the run');
  }
}

/**
 * Alien cache lines: right after each task on a device, the alien replicas the device keeps
 * that it could drop (used by a task, unpinned, valid and not modified) are at most `lines`.
 * "Right after" is the first observer call that follows the task's end and cannot be part of
 * it: a task start, a transfer end (reported before its effects), the end of the run, or the
 * end of a task on another node.
 */
class AlienCacheObserver extends SlotObserver implements EngineObserver {
  private readonly used: Uint8Array;
  private readonly pending: Uint8Array;

  constructor(
    engine: Engine,
    graph: TaskGraph,
    private readonly lines: number,
    private readonly owners: Int32Array | undefined,
  ) {
    super(engine, graph);
    this.used = new Uint8Array(graph.handleCount * this.nn);
    this.pending = new Uint8Array(this.nn);
  }

  private checkPending(except: number): void {
    for (let n = 0; n < this.nn; n++) {
      if (!this.pending[n] || n === except) continue;
      this.pending[n] = 0;
      const kept: number[] = [];
      for (let h = 0; h < this.graph.handleCount; h++) {
        if (!this.used[h * this.nn + n] || !this.engine.isAllocated(h, n)) continue;
        if (this.engine.replicaPins(h, n) > 0 || this.engine.replicaState(h, n) !== Replica.SHARED) continue;
        kept.push(h);
      }
      if (kept.length >= this.lines) this.witnessed++; // the cache is full
      if (kept.length > this.lines)
        this.fail(
          `node ${n} keeps ${kept.length} alien replicas (${kept.join(', ')}) for ${this.lines} lines`,
        );
    }
  }

  taskStarted(): void {
    this.checkPending(-1);
  }

  transferFinished(): void {
    this.checkPending(-1);
  }

  taskFinished(task: number, worker: number): void {
    const n = this.nodeOf(worker);
    this.checkPending(n);
    if (n === this.home) return;
    for (const [h] of this.graph.accesses(task)) if (this.owners?.[h] !== n) this.used[h * this.nn + n] = 1;
    this.pending[n] = 1;
  }

  replicaAllocated(handle: number, node: number): void {
    this.used[handle * this.nn + node] = 0;
  }

  replicaFreed(handle: number, node: number): void {
    this.used[handle * this.nn + node] = 0;
  }

  runFinished(): void {
    this.checkPending(-1);
  }
}

/**
 * No wasted copy: a transfer never starts towards a node that is already receiving the same
 * version of the same handle. Versions are counted here: one per task start per written handle.
 */
class DuplicateCopyObserver extends SlotObserver implements EngineObserver {
  private readonly version: Int32Array;
  private readonly inFlight = new Map<number, { slot: number; version: number }>();

  constructor(engine: Engine, graph: TaskGraph) {
    super(engine, graph);
    this.version = new Int32Array(graph.handleCount);
  }

  taskStarted(task: number): void {
    for (const [h, m] of this.graph.accesses(task)) if (m & AccessMode.W) this.version[h]!++;
  }

  transferStarted(id: number): void {
    const e = this.engine;
    const h = e.trHandle.data[id]!;
    const slot = h * this.nn + e.trDst.data[id]!;
    const version = this.version[h]!;
    for (const [other, x] of this.inFlight) {
      if (x.slot !== slot || x.version !== version) continue;
      this.witnessed++;
      this.fail(
        `transfer ${id} (${e.trSrc.data[id]}->${e.trDst.data[id]}, kind ${e.trKind.data[id]}) copies version ${version} of handle ${h}, which transfer ${other} (kind ${e.trKind.data[other]}) is already bringing there`,
      );
    }
    this.inFlight.set(id, { slot, version });
  }

  transferFinished(id: number): void {
    this.inFlight.delete(id);
  }
}

/** Counts transfers of one kind. */
class KindCounter implements EngineObserver {
  readonly violations: string[] = [];
  count = 0;
  constructor(
    private readonly engine: Engine,
    private readonly kind: number,
  ) {}
  transferStarted(id: number): void {
    if (this.engine.trKind.data[id] === this.kind) this.count++;
  }
}

/** An observer that checks something: what it found wrong, and how often the situation arose. */
type Checking = EngineObserver & { violations: string[]; witnessed?: number };

/** Registers the suite for one configuration under describe('coherence conformance: NAME'). */
export function runCoherenceConformance(o: CoherenceConformance): void {
  const runs = o.runs ?? 10;
  const label = (c: CoherenceCase) => `[coherence ${o.name}] ${c}`;
  const caseTest = (c: CoherenceCase, fn: () => void) => {
    const reason = skipReason(`coherence ${o.name}`, COHERENCE_CASES, o.skip, c);
    test(c, reason ? { skip: reason } : {}, fn);
  };
  const names = Object.keys(SCHEDULERS);
  const arb = fc.tuple(
    specArb,
    machineArb,
    runParamsArb,
    fc.integer({ min: 0, max: 1 << 20 }),
    fc.constantFrom(...Object.keys(EVICTION_POLICIES)),
  );
  /** Runs the graph under every scheduler (or those given) with extra observers. */
  const everyScheduler = (
    c: CoherenceCase,
    make: (engine: Engine, coherence: CoherenceOptions) => Checking[],
    machine: { gpus?: 'one' | 'several'; roomy?: boolean; readHeavy?: boolean } = {},
  ) => {
    let witnessed = 0;
    assertProperty(
      label(c),
      arb,
      ([spec, m, run, ownerSeed, evictionName]) => {
        // Read-heavy: write-only accesses become reads, so that aliens stay valid and shared.
        const built = graphOf(machine.readHeavy ? readHeavy(spec) : spec);
        const p2p = m.p2p;
        // Roomy GPUs (2 or 3): nothing is evicted for room, only the coherence policy drops replicas.
        const platform = machine.roomy
          ? testPlatform({
              gpus: Math.max(2, m.gpus),
              gpuCapacity: 1e9,
              cpus: built.needsCpu ? 1 : m.cpus,
              p2p,
              bus: m.bus,
            })
          : machine.gpus === 'one'
            ? machinePlatform({ ...m, gpus: 1, cpus: Math.max(1, m.cpus) }, built)
            : machinePlatform(
                { ...m, gpus: machine.gpus === 'several' ? Math.max(2, m.gpus) : m.gpus },
                built,
              );
        const coherence = o.create(hashedOwners(built.g, platform, ownerSeed));
        for (const name of names) {
          const scheduler = createScheduler(name);
          const eviction = evictionName === 'luf' && !scheduler.plannedTasks ? 'lru' : evictionName;
          let observers: Checking[] = [];
          oracleRun(`${label(c)} under ${name}`, built.g, platform, {
            ...run,
            scheduler,
            eviction,
            coherence,
            observers: (engine) => {
              observers = make(engine, coherence);
              return observers;
            },
          });
          for (const x of observers) {
            assert.deepEqual(x.violations, [], `${label(c)} under ${name}`);
            witnessed += x.witnessed ?? 0;
          }
        }
      },
      runs,
    );
    return witnessed;
  };

  describe(`coherence conformance: ${o.name}`, () => {
    caseTest('oracle on random graphs under every scheduler', () => {
      everyScheduler('oracle on random graphs under every scheduler', () => []);
    });

    caseTest('write-through: no modified replica left after a task', () => {
      const c = 'write-through: no modified replica left after a task';
      const seen = everyScheduler(c, (engine, coherence) => {
        assert.ok(coherence.writeThrough, `${label(c)}: the configuration is not write-through`);
        return [new WriteThroughObserver(engine, engine.graph)];
      });
      assert.ok(seen > 0, `${label(c)}: no run had a modified device replica to check`);
    });

    caseTest('write-back: no write-through copy', () => {
      const c = 'write-back: no write-through copy';
      let written = 0;
      everyScheduler(c, (engine, coherence) => {
        assert.ok(!coherence.writeThrough, `${label(c)}: the configuration is write-through`);
        const wt = new KindCounter(engine, TransferKind.WRITETHROUGH);
        const copies = new KindCounter(engine, TransferKind.FLUSH);
        const check = {
          violations: [] as string[],
          runFinished() {
            if (wt.count > 0) check.violations.push(`${wt.count} write-through copies`);
            written += copies.count;
          },
        };
        return [wt, copies, check];
      });
      assert.ok(written > 0, `${label(c)}: no run ever flushed modified data at the end`);
    });

    const freed = (c: CoherenceCase, gpus: 'one' | 'several') => {
      const seen = everyScheduler(
        c,
        (engine, coherence) => {
          const mode = coherence.freeAfterTask ?? 'none';
          assert.notEqual(mode, 'none', `${label(c)}: the configuration frees nothing`);
          return [new FreedObserver(engine, engine.graph, mode as 'all' | 'aliens', coherence.owners)];
        },
        { gpus },
      );
      assert.ok(seen > 0, `${label(c)}: no run kept a used operand (pinned) to check`);
    };
    // With one GPU and CPUs, no two copies ever leave a device replica at once; with several
    // GPUs, peer-to-peer and staged copies do.
    caseTest('operands freed after each task, one GPU', () =>
      freed('operands freed after each task, one GPU', 'one'),
    );
    caseTest('operands freed after each task, several GPUs', () =>
      freed('operands freed after each task, several GPUs', 'several'),
    );

    caseTest('alien cache within its lines after each task', () => {
      const c = 'alien cache within its lines after each task';
      const seen = everyScheduler(
        c,
        (engine, coherence) => {
          const lines = coherence.alienCacheLines;
          assert.ok(lines !== undefined, `${label(c)}: the configuration has no line limit`);
          return [new AlienCacheObserver(engine, engine.graph, lines, coherence.owners)];
        },
        { roomy: true, readHeavy: true },
      );
      assert.ok(seen > 0, `${label(c)}: no run filled the alien cache`);
    });

    caseTest('no second copy of a version to a node already receiving it', () => {
      everyScheduler('no second copy of a version to a node already receiving it', (engine) => [
        new DuplicateCopyObserver(engine, engine.graph),
      ]);
    });

    /** Runs tasks (codelet kinds, accesses) each on a given worker, with the checks of `make`. */
    const handMade = (
      c: CoherenceCase,
      what: string,
      gpus: number,
      p2p: boolean,
      tasks: { on: number; kinds: ('cpu' | 'gpu')[]; access: AccessMode }[],
      make: (engine: Engine, coherence: CoherenceOptions) => Checking[],
    ) => {
      const g = new TaskGraph();
      const h = g.addHandle(1000);
      for (const t of tasks)
        g.submit(g.addCodelet({ name: t.kinds.join(''), kinds: t.kinds }), [[h, t.access]], { flops: 1e6 });
      // Copies (10 us latency, 1 us) outlast tasks (1 us on a GPU, 10 us on a CPU).
      const platform = testPlatform({ gpus, gpuCapacity: 1000, cpus: 1, p2p });
      const coherence = o.create(Int32Array.of(-1));
      let observers: Checking[] = [];
      oracleRun(`${label(c)}: ${what}`, g, platform, {
        scheduler: new FixedScheduler((t) => tasks[t]!.on),
        coherence,
        observers: (engine) => {
          observers = make(engine, coherence);
          return observers;
        },
      });
      for (const x of observers) assert.deepEqual(x.violations, [], `${label(c)}: ${what}`);
    };

    caseTest('hand-made: a datum rewritten while its copy home is in flight', () => {
      const c = 'hand-made: a datum rewritten while its copy home is in flight';
      const dup = (engine: Engine) => [new DuplicateCopyObserver(engine, engine.graph)];
      // GPU 0 writes twice, then a CPU reads: the first copy home goes stale, the CPU's fetch
      // and the write-through of the second write must not both carry the second version.
      handMade(
        c,
        'gpu0 W, gpu0 W, cpu R',
        1,
        false,
        [
          { on: 0, kinds: ['gpu'], access: AccessMode.W },
          { on: 0, kinds: ['gpu'], access: AccessMode.W },
          { on: 1, kinds: ['cpu'], access: AccessMode.R },
        ],
        dup,
      );
      // GPU 0 writes, GPU 1 writes, GPU 0 reads (no peer-to-peer): GPU 1's copy home and the
      // staging copy for GPU 0 must not both carry GPU 1's version.
      handMade(
        c,
        'gpu0 W, gpu1 W, gpu0 R',
        2,
        false,
        [
          { on: 0, kinds: ['gpu'], access: AccessMode.W },
          { on: 1, kinds: ['gpu'], access: AccessMode.W },
          { on: 0, kinds: ['gpu'], access: AccessMode.R },
        ],
        dup,
      );
    });

    caseTest('hand-made: an operand read by another GPU as its copy home lands', () => {
      const c = 'hand-made: an operand read by another GPU as its copy home lands';
      const checks = (engine: Engine, coherence: CoherenceOptions): Checking[] => {
        const mode = coherence.freeAfterTask ?? 'none';
        return [
          ...(coherence.writeThrough ? [new WriteThroughObserver(engine, engine.graph)] : []),
          ...(mode !== 'none' ? [new FreedObserver(engine, engine.graph, mode, coherence.owners)] : []),
        ];
      };
      // GPU 0 writes, GPU 1 reads it peer-to-peer while GPU 0's copy home is in flight.
      handMade(
        c,
        'gpu0 W, gpu1 R, peer-to-peer',
        2,
        true,
        [
          { on: 0, kinds: ['gpu'], access: AccessMode.W },
          { on: 1, kinds: ['gpu'], access: AccessMode.R },
        ],
        checks,
      );
      // Without peer-to-peer, GPU 0 reads what GPU 1 wrote through a staging copy home.
      handMade(
        c,
        'gpu0 W, gpu1 W, gpu0 R',
        2,
        false,
        [
          { on: 0, kinds: ['gpu'], access: AccessMode.W },
          { on: 1, kinds: ['gpu'], access: AccessMode.W },
          { on: 0, kinds: ['gpu'], access: AccessMode.R },
        ],
        checks,
      );
    });

    caseTest("seed 004's block transfers on every prefix", () => {
      // tsl's 4 GPUs, a 2 x 2 cyclic mapping, the tasks one at a time (test/runtime-versions.test.ts).
      const c = "seed 004's block transfers on every prefix";
      const v = o.version;
      assert.ok(v !== undefined, `${label(c)}: the configuration names no runtime version`);
      const platform = resolvePlatform('tsl', { cpus: 0 });
      const wl = generateWorkload('cholesky', {
        tiles: 4,
        tileSize: 64,
        precision: 'double',
        order: 'columns',
      });
      const mapping = parseMapping('2d', 4);
      for (let count = 1; count <= wl.graph.taskCount; count++) {
        const complete = count === wl.graph.taskCount;
        const graph = prefixGraph(wl.graph, count, true);
        const { stats } = oracleRun(`${label(c)}: ${count} task(s)`, graph, platform, {
          scheduler: createScheduler('static', { mapping }),
          coherence: o.create(handleOwnerNodes(graph, platform, mapping)),
          flushAtEnd: complete,
        });
        assert.deepEqual(
          { writes: stats.transfersToDevices, reads: stats.transfersFromDevices },
          byHand(v, count),
          `${label(c)}: ${count} task(s)${complete ? ' (complete run)' : ''}`,
        );
      }
    });
  });
}
