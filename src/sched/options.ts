/** Options every scheduler factory receives (each reads those that apply to it). */
export interface SchedulerOptions {
  /** dm*, heft-*: prefetch a task's inputs to its worker's node when it is assigned. */
  prefetch?: boolean;
  /** darts: scan at most this many candidate data per decision (0 = all). */
  dartsThreshold?: number;
  /** darts: break ties by the tasks one datum away from free (for 3-input tasks). */
  darts3inputs?: boolean;
  /** darts: the "opti" order: the datum with the smallest transfer time / compute time freed. */
  dartsOpti?: boolean;
  /** darts: plan a pushed task at once on a GPU holding all its inputs (StarPU master's push). */
  dartsPushFree?: boolean;
  /**
   * darts: when no datum frees a task, take the highest-priority task one datum away from free
   * (else the highest-priority task), not a random one (StarPU master's STARPU_DARTS_APP = 1).
   */
  dartsOneFromFree?: boolean;
  /**
   * darts: when no datum frees a task, take a task one datum away from free, the highest
   * priority first and a random one among equals (seed 000's random task, restricted to the
   * tasks closest to free); with dartsOneFromFree, StarPU's earliest-submitted tie wins.
   */
  dartsOneAway?: boolean;
  /**
   * darts: D_opt's ties in StarPU master's order: the highest priority among the freed tasks,
   * then the tasks one datum away, then the remaining work (STARPU_DARTS_DOPT_SELECTION_ORDER = 1).
   */
  dartsStarpuTies?: boolean;
  /**
   * darts, hfp: out of core (a disk node below host memory), plan host memory for the CPU
   * workers as one more level (seed 000 Algorithm 2 for the host, LUF/Belady there, the chosen
   * data prefetched from the disk; src/sched/darts/host-level.ts). No effect without a disk.
   * Default: on when the machine has no GPU worker, off beside GPUs.
   */
  dartsHostLevel?: boolean;
  /**
   * hfp out of core: read ahead from the disk into host memory the inputs of each GPU's next
   * n planned tasks (src/sched/hfp/host-staging.ts); 0: off. Default HOST_STAGING_WINDOW (8).
   */
  hfpHostStaging?: number;
  /** darts, hfp with dartsHostLevel: decide the host's next datum before its plan runs out. */
  dartsHostAhead?: boolean;
  /**
   * hfp: a ready task within this fraction of the highest priority not handed out yet is on
   * the critical path's front and goes first (default 0.03).
   */
  criticalSlack?: number;
  /**
   * hfp: a GPU takes, among the critical tasks, the one with the fewest input bytes missing
   * from its memory (then the highest priority), not the highest priority alone.
   */
  criticalLocal?: boolean;
  /**
   * hfp: the critical slack is a fraction of the graph's highest priority (a fixed width in
   * priority units), not of the front's, whose width shrinks as the run nears its end.
   */
  criticalFixed?: boolean;
  /**
   * hfp: the run's tail starts once the critical path's front is down to this fraction of the
   * graph's highest priority (where the front's chain bounds the time); in it a GPU takes,
   * among its lookahead buffer's tasks whose inputs are in place, the one with the longest
   * expected path to the end (bottom level in seconds; Scheduler.bufferRank, needs the
   * engine's readyFirst), not the first popped. Off when undefined.
   */
  criticalTail?: number;
  /** static: the owner-computes mapping of blocks to GPUs (default: 2-D cyclic). */
  mapping?: import('./mapping.ts').BlockMapping;
}

/** A named scheduler factory with a one-line description. */
export interface SchedulerEntry {
  /** One line for `locus policies`, with the seed reference. */
  description: string;
  /** Builds a fresh instance. */
  create(options: SchedulerOptions): import('../core/policy.ts').Scheduler;
}
