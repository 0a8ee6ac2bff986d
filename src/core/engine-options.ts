/** What the engine is built from: the graph, the machine, the policies and the pipeline sizes. */
import type { CoherenceOptions } from '../coherence/options.ts';
import type { TaskGraph } from './graph.ts';
import type { DurationModel } from './model.ts';
import type { Platform } from './platform.ts';
import type { EvictionPolicy, Scheduler } from './policy.ts';

/** Engine construction options. */
export interface EngineOptions {
  /** The task graph; every task in it at start() is run. */
  graph: TaskGraph;
  /** The machine. */
  platform: Platform;
  /** The scheduling policy. */
  scheduler: Scheduler;
  /** The eviction policy (a scheduler's own policy, if it provides one, takes precedence). */
  eviction: EvictionPolicy;
  /** Duration estimates for schedulers. */
  model: DurationModel;
  /** Seed of the run's random source. */
  seed?: number;
  /** Tasks a GPU worker holds at once, running one included (default 2). */
  gpuPipeline?: number;
  /** Tasks a CPU worker holds at once (default 1). */
  cpuPipeline?: number;
  /**
   * Tasks a GPU worker pops ahead of its pipeline (default 4): their inputs are prefetched
   * (not pinned, so an eviction may take them back), like the task buffer of StarPU's
   * schedulers (seed 000's taskBuffer_k is this buffer plus the pipeline). Four tasks of
   * seed 000's matrix product (4 x 0.56 ms) cover the load of one 14 MiB block on a shared
   * bus (about 2.4 ms), which a pipeline of 2 alone does not.
   */
  gpuLookahead?: number;
  /**
   * A GPU worker takes into its pipeline the first task of its lookahead buffer whose inputs
   * are all valid in its memory, else the buffer's head (default false: the buffer's order).
   * StarPU's modular schedulers do this in the queue below the decision (STARPU_SCHED_READY,
   * STARPU_SCHED_FIFO_READY_FIRST, on for its darts); the buffer's tasks are all ready, so any
   * order keeps their dependencies. Cost: O(buffer x inputs) per task taken.
   */
  readyFirst?: boolean;
  /**
   * At most this many copies in flight into a GPU's memory before its lookahead buffers issue
   * another prefetch (default 0: no limit). The buffers are walked in their order, so the
   * copies go in the order the tasks need them, each at a larger share of a shared bus, rather
   * than all at once at equal shares (the first needed then lands as late as the last).
   * StarPU in SimGrid runs the copies between two nodes one after the other, in request order.
   * Cost: O(1) per prefetch; a buffer stopped short is walked again when a copy lands.
   */
  prefetchWindow?: number;
  /**
   * Each lookahead prefetch that waits for memory evicts for itself (default false: the
   * bytes being freed by any write-back in flight count for every waiting prefetch, so with a
   * full memory of modified data one write-back at a time serves the whole buffer). Cost:
   * O(1) per prefetch besides the evictions.
   */
  parallelEvictions?: boolean;
  /**
   * Emit RUN for every task at the front of a worker's pipeline whose inputs are in place, not
   * only for the oldest one (default false). For drivers whose workers queue the tasks they
   * are given and run them in order (the real driver): several tasks in flight per worker hide
   * the round trip between the engine and the worker. A worker's tasks must finish in the
   * order their RUN commands were emitted.
   */
  issueAhead?: boolean;
  /**
   * Calibration mode: schedulers learn through SchedContext.needsCalibration which tasks the
   * model has not measured enough (StarPU's STARPU_CALIBRATE).
   */
  calibrate?: boolean;
  /**
   * Receives the policies' one-line warnings (SchedContext.warn), each distinct message once
   * per engine; default: dropped.
   */
  onWarning?: ((message: string) => void) | undefined;
  /** Coherence policies of seed 004's runtimes (default: write-back, replicas kept). */
  coherence?: CoherenceOptions;
  /**
   * Recycle finished tasks' and transfers' records (see Engine.compact): an endless stream of
   * tasks then runs in bounded memory. Task ids are shifted by each compaction and transfer
   * ids reused, so only owners that follow compact() turn it on (default false).
   */
  recycle?: boolean;
  /** Write every modified replica home at the end (default true; false for --stop-after). */
  flushAtEnd?: boolean;
  /**
   * Evict clean replicas before modified ones, under every eviction policy (default true;
   * false gives the policy's own order alone, for comparisons). See MemoryManager.
   */
  cleanFirst?: boolean;
  /**
   * Percent of a GPU node's replicas that should be clean (StarPU's STARPU_MINIMUM_CLEAN_BUFFERS,
   * whose default is 5): below it, modified replicas are written back early, in the eviction
   * policy's order, while the route home is idle (see MemoryManager). Default 0: off.
   */
  minClean?: number;
  /**
   * Percent of a node's replicas clean when those early write-backs stop (StarPU's
   * STARPU_TARGET_CLEAN_BUFFERS, default 10 there); default minClean. Not below minClean.
   */
  targetClean?: number;
  /**
   * Write-backs no task waits for yet, those of a prefetch's evictions and of wontUse hints,
   * share the links as prefetches do (after the fetches) rather than as fetches (default
   * false). One whose memory a fetch comes to wait for is made urgent then.
   */
  lazyWritebacks?: boolean;
}
