/**
 * `hfp`: memory-aware strip packing ahead of DARTS. For a set of independent tasks submitted
 * whole (seed 000's matrix product, random bipartite task sets), it plans each GPU's task order
 * before the run, as Gonthier, Marchal and Thibault's HFP (hierarchical fair packing, IPDPS
 * 2022) does, but with packages built for streaming rather than merged pairwise: a package is
 * an *anchor* set of data that stays resident (at most B = M - reserve bytes, M the GPU's
 * memory, reserve = RESERVE_TASKS tasks' footprint for the data streamed through and the
 * outputs), plus every remaining task whose inputs are the anchor and at most one other datum
 * D, grouped by D: each D is loaded once, used by all its tasks, and dropped. On the 2-D
 * matrix product the anchors come out as a rows of A, the streamed data as the columns of B:
 * the strip schedule of the outer-product locality bounds (Beaumont and Marchal, HPDC'14,
 * seed 000's ref. [3]), where a package of a rows costs a + N loads for a N tasks, against
 * DARTS+LUF's mixed resident sets. Data are counted in loads of their size:
 *
 *   loads(strips) = N + ceil(N / a) * N,  a = floor(B / w)   (w: block size)      (1)
 *
 * Anchor growth is greedy. With R the tasks not yet planned and A the anchor, a candidate D
 * scores (s1, s2), compared lexicographically:
 *   s1(D) = |{t in R : D in inputs(t), |inputs(t) \ (A + D)| <= 1}|   (tasks made streamable)
 *   s2(D) = |{(t, x) : t in R reads D, x in inputs(t) \ (A + D), x co-read with A}| (affinity)
 * s2 is HFP's "share the most data" criterion: a row of A shares every column with the rows
 * already in A, a column of B shares none, so the anchor fills with rows. Data read by every
 * remaining task (a datum shared by all) are kept out of the anchor scores and counted as
 * resident everywhere, so one shared datum never pins all the work on one GPU (issue 16).
 * Packages go to the GPU with the least planned work (the sum of its tasks' expected
 * durations); streamed data are ordered most recently streamed on that GPU first (the
 * boustrophedon order: a strip reuses the end of the previous one's stream). A package starts
 * with its anchor-only tasks and the tasks of its first `room` streamed data (those still
 * resident from the GPU's previous package, then new ones) in square shells: anchor datum p
 * and streamed datum c in shell max(p, c), so when nothing is resident yet s + 1 loads feed
 * (s + 1)^2 tasks rather than s + 1, and the anchor's loads hide behind tasks from the start.
 *
 * Tasks of more inputs (random task sets of 4 to 6 inputs) and whatever the packages leave go
 * to a second planner (hfp/greedy.ts): dmdar's "fewest missing data" rule played out before the
 * run against a simulated resident set per GPU, with incremental counts (tasks one datum away
 * from each datum, eviction values) instead of rescoring: it loads the datum completing the
 * most tasks, evicts the datum whose readers are least close to ready. It also plans every
 * task alone first; the packages are built only for tasks of at most PACK_MAX_INPUTS inputs
 * besides the shared data, stop as soon as they load more bytes per task than that plan does on
 * average, and the plan whose simulation loads fewer bytes (packages + planner on the rest, or
 * the planner alone) is kept.
 *
 * Graphs of accumulation chains (the tiled 3-D GEMM: the tasks of one C block form a chain
 * along k through it, reading A and B blocks no task writes) have dependencies, yet every
 * dependency stays in a chain and the whole future is known: hfp packs *whole chains*
 * (hfp/chains.ts). A package is a set of chains planned step-major on one GPU (the first task
 * of each chain, then the second of each, ...); its accumulators stay resident, and at step s
 * it needs the step-s inputs of its chains only, so its footprint is acc(P) + max_s
 * stepInputs_s(P) and it loads acc(P) + inputs(P), each datum once. On GEMM a p x q block of C
 * loads p q + N (p + q) blocks for p q N tasks (the blocked schedule of the I/O lower bounds),
 * where a C strip, or DARTS's ready-set choices, load about N blocks per chain. Chains join a
 * package by fewest new bytes per task, ties to the chain that completes the most other chains
 * (which keeps the block square), up to the memory budget and the GPU's share of the work. At
 * run time (hfp/chain-runner.ts) a GPU takes the first ready task of its plan; a worker with
 * nothing ready steals a whole chain (the victim's last, not started if any): a GPU while that
 * shortens the longer queue, a CPU by the earliest-finish-time rule below. The eviction is
 * Belady's rule over the plan (src/evict/belady.ts), within the memory manager's clean-first
 * rule. When a chain's last task ends, the runner gives the engine a wontUse hint for its C
 * block (SchedContext.wontUse): the block, which the plan never uses again, is written back at
 * once and evicted before any block the plan still needs, clean or not.
 *
 * At run time a GPU pops its plan in order; when its plan is empty it takes the fallback
 * scheduler's tasks, then steals the tail of the longest plan (the tasks the owner would reach
 * last; load balance, as HFP's ready-time stealing). Tasks whose inputs do not fit a GPU,
 * every task of other graphs with dependencies or submitted while the engine runs, runs
 * without memory pressure, go to an embedded DARTS (seed 000 Algorithm 2, with its share cap
 * when GPUs are idle). With dependencies and priorities, a ready task within `criticalSlack`
 * (default CRITICAL_SLACK) of the highest priority not handed out yet (the critical path's
 * front; with `criticalFixed` the slack is a fraction of the graph's highest priority, a width
 * that stays the same as the front moves down) is kept from DARTS and goes first: the highest
 * priority first, or with
 * `criticalLocal` the one with the fewest input bytes missing from the asking GPU's memory
 * (issue 24: on a shared bus the front's tasks taken by priority alone each load a tile, and
 * the GPUs wait for the bus; O(critical tasks x inputs) per pop).
 * With `criticalTail` x, the run's tail starts once the front's priority is at most x times the
 * graph's highest (bottom levels: the critical path left is that share of the whole). There
 * the front's chain (Cholesky's POTRF, TRSM, SYRK of each column, one after the other) bounds
 * the time, and a GPU takes, among the tasks of its lookahead buffer whose inputs are in place,
 * the one with the longest expected path to the graph's end (its bottom level in seconds, each
 * task weighing its shortest expected duration: Scheduler.bufferRank), not the first popped.
 * Without it a task of the chain waits behind the whole buffer (about a dozen GEMMs at
 * lookahead 16), and flop bottom levels misjudge the chain where one codelet is far slower per
 * flop than the others (Cholesky's POTRF on a GPU). The levels cost O(tasks x workers + edges)
 * once; a rank O(1) amortised.
 *
 * CPU workers beside the GPUs (hfp/cpu-rule.ts) take a task only when, by HEFT's
 * earliest-finish-time rule, they would end it before any GPU would: their queued work plus
 * the task's expected duration on them (the performance model) and its inputs' copies,
 * against each GPU's. For DARTS's tasks and critical tasks a GPU's queue is its pipeline (the
 * embedded DARTS sees a context whose canRun applies the rule to CPU workers); for the last
 * task of a plan, or a chain plan's last chain, it is the pipeline plus the whole remaining
 * plan. So CPUs far slower than the GPUs (seed 000's V100 node: 50 GFlop/s a core, 12.6 TFlop/s
 * a GPU) take a few tasks or chains from the plans' ends, leaving the packages' locality
 * alone, and the codelets they run faster (Cholesky's POTRF, 14.1 GFlop/s on a V100) on the
 * critical path. The GPUs' model times leave the bus's contention out: the rule errs towards
 * leaving work to the GPUs, never slowing the run by the model's account. Eviction is Belady's rule
 * over the known future (pipeline, then the plan, then DARTS's planned tasks): with the order
 * fixed ahead it is the eviction consistent with the plan.
 *
 * Cost: an anchor step is O(candidate data) for the choice plus O(readers x d) for the datum
 * added and each datum it makes co-read (d inputs per task; scores kept incrementally,
 * hfp/anchor-scores.ts), a planned task O(d): O(N^2) per package on the matrix product, where
 * rescanning every datum's readers per step cost O(anchor size x N^2); packing stops at a
 * package of fewer than MIN_YIELD tasks per anchor datum. The fewest-missing planner is
 * O(loads x (D + readers x d)), D the data some task reads: about 1 to 1.6 s for 4,000 random
 * tasks of 5 or 6 inputs over 852 to 1,705 data (measured on a loaded 2-core machine,
 * `planStats.planMs`; not charged to the simulated time unless --charge-scheduling). A pop is
 * O(1) amortised; a steal O(plan length) in the worst case (tasks already taken are skipped).
 * Chain packing is O(chains) per chain joining a package plus O(new inputs x readers) for the
 * tied candidates: about 0.1 to 0.7 s for 3-D GEMM at N = 17 to 24 (289 to 576 chains). A
 * chain-plan pop is O(1) amortised (O(256) when its head is not ready), a chain steal
 * O(chain length); each victim under a chain plan rescans up to 2,000 planned tasks, as
 * Belady's rule does. A CPU worker's pop adds O(pipelines) once and O(accesses x GPUs) per
 * task it considers (DARTS's pool scan included). No allocation on a pop. Memory O(T + H).
 */
import type { EvictionPolicy, SchedContext, Scheduler } from '../core/policy.ts';
import { AccessMode } from '../core/types.ts';
import { BeladyEviction } from '../evict/belady.ts';
import { DartsScheduler } from './darts/darts.ts';
import { AnchorScores } from './hfp/anchor-scores.ts';
import { ChainRunner } from './hfp/chain-runner.ts';
import { findChains, planChains } from './hfp/chains.ts';
import { CpuRule } from './hfp/cpu-rule.ts';
import { planGreedy } from './hfp/greedy.ts';
import { HostStaging } from './hfp/host-staging.ts';
import { PackInputs } from './hfp/pack-inputs.ts';
import type { SchedulerOptions } from './options.ts';

/** Tasks' footprint kept free of anchors on each GPU (the streamed inputs and outputs in flight). */
export const RESERVE_TASKS = 4;

/** Packing stops at a package with fewer tasks than this per anchor datum. */
export const MIN_YIELD = 1 / 16;

/** Packages are built only when tasks read at most this many inputs on average (besides data all read). */
export const PACK_MAX_INPUTS = 2;

/** Tasks' footprint kept free on each GPU by the fewest-missing planner (hfp/greedy.ts). */
export const GREEDY_RESERVE_TASKS = 2;

/** Tasks' footprint kept free on each GPU by a chain plan (hfp/chains.ts), besides its own footprint. */
export const CHAIN_RESERVE_TASKS = 2;

/** Out of core: planned tasks per GPU whose inputs hfp reads ahead into host memory (hfp/host-staging.ts). */
export const HOST_STAGING_WINDOW = 8;

/** A ready task within this fraction of the highest remaining priority is on the critical path. */
export const CRITICAL_SLACK = 0.03;

/** The hfp scheduler (see the file's comment). */
export class HfpScheduler implements Scheduler {
  readonly name = 'hfp';
  /** Tasks submitted while the engine runs go to the embedded DARTS. */
  readonly dynamic = true;
  private ctx!: SchedContext;
  private readonly options: SchedulerOptions;
  private inner!: DartsScheduler;
  private decided = false;
  private buffered: number[] = [];
  private gpus: number[] = [];
  private kOf!: Int32Array;
  /** Per GPU k: its planned tasks in order, and the next index. */
  private plan: number[][] = [];
  private head: number[] = [];
  private tail: number[] = [];
  private left: number[] = [];
  /** Per GPU k: the expected work (s) of its plan's tasks not taken yet. */
  private leftWork: number[] = [];
  /** The earliest-finish-time test for CPU workers (hfp/cpu-rule.ts). */
  private rule!: CpuRule;
  private taken = new Uint8Array(0);
  /** Tasks [0, known) were known when the plan was decided (`taken` covers them; later ones go to DARTS). */
  private known = 0;
  /** Critical-path mode (graphs with dependencies and priorities): tasks by priority, descending. */
  private byPriority: Int32Array | undefined;
  private frontier = 0;
  /** Ready critical tasks kept from DARTS, highest priority last. */
  private critical: number[] = [];
  /** Critical tasks within this fraction of the front's priority (SchedulerOptions.criticalSlack). */
  private readonly slack: number;
  /** Pick among critical tasks by missing bytes first (SchedulerOptions.criticalLocal). */
  private readonly criticalLocal: boolean;
  /** Measure the slack against the graph's highest priority (SchedulerOptions.criticalFixed). */
  private readonly criticalFixed: boolean;
  /** With criticalFixed, the front's width in priority units (set with byPriority); else -1. */
  private fixedWidth = -1;
  /** Out of core: reads ahead from the disk into host memory for the GPUs' plans (hfp/host-staging.ts). */
  private staging: HostStaging | undefined;
  /** SchedulerOptions.criticalTail, or -1 (off). */
  private readonly tailFraction: number;
  /** The graph's highest priority (with byPriority). */
  private topPriority = 0;
  /** With criticalTail: each task's bottom level in expected seconds (set with byPriority). */
  private timeLevel: Float64Array | undefined;
  /**
   * With SchedulerOptions.criticalTail, the engine's Scheduler.bufferRank: in the run's tail a
   * task's bottom level in expected seconds, before it (and for tasks submitted after the
   * decision, which have no level) 0: the buffer's order.
   */
  readonly bufferRank: ((task: number) => number) | undefined;
  /** The chain plan's run time (graphs of accumulation chains, hfp/chains.ts), if one was made. */
  private chainRunner: ChainRunner | undefined;

  /**
   * The last plan's figures (undefined when nothing was planned): tasks the packages planned,
   * bytes they load, bytes the fewest-missing planner loads after them and alone (-1: not
   * run), whether the packages were kept, and the planning's wall time in milliseconds.
   */
  planStats:
    | {
        packTasks: number;
        packBytes: number;
        restBytes: number;
        aloneBytes: number;
        packed: boolean;
        planMs: number;
      }
    | undefined;

  /** Creates hfp; DARTS's options apply to the embedded DARTS. */
  constructor(options: SchedulerOptions = {}) {
    this.options = options;
    this.slack = options.criticalSlack ?? CRITICAL_SLACK;
    this.criticalLocal = options.criticalLocal ?? false;
    this.criticalFixed = options.criticalFixed ?? false;
    this.tailFraction = options.criticalTail ?? -1;
    this.bufferRank =
      this.tailFraction >= 0
        ? (task) =>
            this.timeLevel !== undefined && task < this.known && this.inTail() ? this.timeLevel[task]! : 0
        : undefined;
  }

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    this.decided = false;
    this.buffered = [];
    const workers = ctx.platform.workers;
    this.gpus = [];
    this.kOf = new Int32Array(workers.length).fill(-1);
    workers.forEach((w, i) => {
      if (w.kind === 'gpu') {
        this.kOf[i] = this.gpus.length;
        this.gpus.push(i);
      }
    });
    this.rule = new CpuRule(ctx, this.gpus);
    // The embedded DARTS hands a CPU worker only the tasks the rule lets it take.
    this.inner = new DartsScheduler(this.options, 'hfp');
    this.inner.init(this.rule.wrap(ctx));
    this.plan = this.gpus.map(() => []);
    this.head = this.gpus.map(() => 0);
    this.tail = this.gpus.map(() => 0);
    this.left = this.gpus.map(() => 0);
    this.leftWork = this.gpus.map(() => 0);
    this.taken = new Uint8Array(ctx.taskCapacity);
    this.timeLevel = undefined;
    this.known = 0;
    this.byPriority = undefined;
    this.fixedWidth = -1;
    this.frontier = 0;
    this.critical = [];
    this.planStats = undefined;
    this.chainRunner = undefined;
    const window = this.options.hfpHostStaging ?? HOST_STAGING_WINDOW;
    // Staged: the plans whose loads stream in a known order (packages, chains), not the
    // fewest-missing planner's alone (measured: no gain there).
    this.staging = HostStaging.forPlatform(
      ctx,
      (w) => (this.chainRunner !== undefined || this.planStats?.packed === true ? this.ownPlan(w) : []),
      window,
    );
  }

  /** Out of core: the staging's counts (undefined without it). */
  get stagingStats(): HostStaging['stats'] | undefined {
    return this.staging?.stats;
  }

  grow(tasks: number, handles: number): void {
    this.inner.grow(tasks, handles);
  }

  /** A chain plan (whole-graph chains) keeps its task ids: nothing is recycled while it exists. */
  canRebase(): boolean {
    return this.chainRunner === undefined;
  }

  /**
   * The engine recycled tasks [0, k), all ended (so taken): the embedded DARTS, the plans (their
   * live part), the critical-path order and lists shift down by k; tasks known at the decision
   * stay those below `known`, shifted too. Same decisions after as before. O(tasks held).
   */
  rebase(k: number): void {
    this.inner.rebase(k);
    this.taken.copyWithin(0, k);
    this.taken.fill(0, this.taken.length - k);
    if (this.timeLevel !== undefined) {
      this.timeLevel.copyWithin(0, k);
      this.timeLevel.fill(0, this.timeLevel.length - k);
    }
    this.known = Math.max(0, this.known - k);
    this.buffered = this.buffered.map((t) => t - k);
    for (let j = 0; j < this.plan.length; j++) {
      const list = this.plan[j]!;
      const kept: number[] = [];
      for (let i = this.head[j]!; i < this.tail[j]!; i++) if (list[i]! >= k) kept.push(list[i]! - k);
      this.plan[j] = kept;
      this.head[j] = 0;
      this.tail[j] = kept.length;
    }
    if (this.byPriority !== undefined) {
      const order = this.byPriority;
      let front = 0;
      let n = 0;
      for (let i = 0; i < order.length; i++) {
        if (order[i]! < k) continue;
        if (i < this.frontier) front++;
        order[n++] = order[i]! - k;
      }
      this.byPriority = order.subarray(0, n);
      this.frontier = front;
    }
    for (let i = 0; i < this.critical.length; i++) this.critical[i]! -= k;
  }

  submitted(from: number, to: number): void {
    this.inner.submitted(from, to);
    if (to < this.ctx.graph.taskCount || from > 0) this.decideNow(false);
  }

  push(task: number): void {
    if (!this.decided) this.buffered.push(task);
    else if (this.chainRunner?.has(task)) this.chainRunner.push(task);
    else if (this.isCritical(task)) this.addCritical(task);
    else this.inner.push(task);
  }

  pop(worker: number): number {
    if (!this.decided) this.decideNow(true);
    let t: number;
    if (!this.rule.applies(worker)) t = this.popFor(worker);
    else {
      this.rule.begin(worker);
      t = this.popFor(worker);
      this.rule.end();
    }
    if (this.staging !== undefined && this.kOf[worker]! >= 0) this.staging.fill();
    return t;
  }

  /** True in the run's tail (SchedulerOptions.criticalTail): the front is down to its fraction of the top priority. */
  private inTail(): boolean {
    return (
      this.tailFraction >= 0 &&
      this.byPriority !== undefined &&
      this.front() <= this.tailFraction * this.topPriority
    );
  }

  private popFor(worker: number): number {
    let t = this.popCritical(worker);
    if (t >= 0) return t;
    if (this.chainRunner !== undefined) {
      t = this.chainRunner.pop(worker);
      if (t >= 0) return t;
    }
    const k = this.kOf[worker]!;
    if (k >= 0) {
      t = this.next(k);
      if (t >= 0) return t;
    }
    t = this.inner.pop(worker);
    if (t >= 0) {
      if (t < this.known) this.taken[t] = 1;
      return t;
    }
    return this.steal(worker);
  }

  // ------------------------------------------------------------------ critical path

  /** The highest priority among tasks not handed out yet (the critical path's front). */
  private front(): number {
    const order = this.byPriority!;
    while (this.frontier < order.length && this.taken[order[this.frontier]!] === 1) this.frontier++;
    return this.frontier < order.length
      ? this.ctx.graph.taskPriority.data[order[this.frontier]!]!
      : Number.NEGATIVE_INFINITY;
  }

  /** A ready task on the critical path's front (within CRITICAL_SLACK of its priority). */
  private isCritical(t: number): boolean {
    if (this.byPriority === undefined || t >= this.known) return false;
    const top = this.front();
    const width = this.fixedWidth >= 0 ? this.fixedWidth : this.slack * Math.abs(top);
    return this.ctx.graph.taskPriority.data[t]! >= top - width;
  }

  private addCritical(t: number): void {
    const pr = this.ctx.graph.taskPriority.data;
    const c = this.critical;
    let i = c.length;
    c.push(t);
    while (i > 0 && pr[c[i - 1]!]! > pr[t]!) {
      c[i] = c[i - 1]!;
      i--;
    }
    c[i] = t;
  }

  /** The highest-priority critical task `worker` can run, or -1. */
  private popCritical(worker: number): number {
    const c = this.critical;
    if (this.criticalLocal && c.length > 1) return this.popCriticalLocal(worker);
    for (let i = c.length - 1; i >= 0; i--) {
      const t = c[i]!;
      if (!this.ctx.canRun(t, worker) || !this.rule.allows(t, worker)) continue;
      c.splice(i, 1);
      this.taken[t] = 1;
      return t;
    }
    return -1;
  }

  /**
   * hfpCriticalLocal: the critical task `worker` can run with the fewest input bytes missing
   * from its memory (neither valid nor on their way), the highest priority among those.
   * O(critical tasks x inputs).
   */
  private popCriticalLocal(worker: number): number {
    const c = this.critical;
    const ctx = this.ctx;
    const g = ctx.graph;
    const node = ctx.platform.workers[worker]!.node;
    let best = -1;
    let bestMissing = Number.POSITIVE_INFINITY;
    for (let i = c.length - 1; i >= 0; i--) {
      const t = c[i]!;
      if (!ctx.canRun(t, worker) || !this.rule.allows(t, worker)) continue;
      let missing = 0;
      for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
        const h = g.accessHandle.data[a]!;
        if (g.accessMode.data[a]! & AccessMode.R && !ctx.isValidOrLoading(h, node))
          missing += g.handleSize.data[h]!;
      }
      if (missing < bestMissing) {
        bestMissing = missing;
        best = i;
        if (missing === 0) break;
      }
    }
    if (best < 0) return -1;
    const t = c[best]!;
    c.splice(best, 1);
    this.taken[t] = 1;
    return t;
  }

  taskFinished(task: number, worker: number): void {
    this.chainRunner?.finished(task);
    this.inner.taskFinished(task, worker);
    this.staging?.fill();
  }

  dataRemoved(handle: number, node: number): void {
    this.inner.dataRemoved(handle, node);
  }

  /** Out of core: the embedded DARTS's host level follows copies into host memory. */
  dataRequested(handle: number, node: number): void {
    this.inner.dataRequested(handle, node);
  }

  /** GPU `worker`'s known future after its pipeline: its plan, then DARTS's planned tasks. */
  *plannedTasks(worker: number): Iterable<number> {
    yield* this.ownPlan(worker);
    yield* this.inner.plannedTasks(worker);
  }

  /** The part of `worker`'s future that hfp planned before the run (its chain plan, its packages). */
  private *ownPlan(worker: number): Iterable<number> {
    if (this.chainRunner !== undefined) yield* this.chainRunner.planned(worker);
    const k = this.kOf[worker]!;
    if (k >= 0) {
      const list = this.plan[k]!;
      for (let i = this.head[k]!; i < this.tail[k]!; i++) if (this.taken[list[i]!] === 0) yield list[i]!;
    }
  }

  /** Belady's rule over plannedTasks' future. */
  evictionPolicy(): EvictionPolicy {
    return new BeladyEviction();
  }

  // ------------------------------------------------------------------ run time

  private next(k: number): number {
    const list = this.plan[k]!;
    while (this.head[k]! < this.tail[k]!) {
      const t = list[this.head[k]!++]!;
      if (this.taken[t] === 0) return this.take(k, t);
    }
    return -1;
  }

  /**
   * The last task of the longest plan that `worker` can run; for a CPU worker, of the plan with
   * the most work left, and only when the CPU would finish it before the GPUs would reach it
   * (after their pipelines and all their plans, balanced: hfp/cpu-rule.ts).
   */
  private steal(worker: number): number {
    const cpu = this.rule.applies(worker);
    let victim = -1;
    for (let j = 0; j < this.gpus.length; j++) {
      if (this.left[j]! <= 0) continue;
      const more = cpu ? this.leftWork[j]! > this.leftWork[victim]! : this.left[j]! > this.left[victim]!;
      if (victim < 0 || more) victim = j;
    }
    if (victim < 0) return -1;
    const list = this.plan[victim]!;
    for (let i = this.tail[victim]! - 1; i >= this.head[victim]!; i--) {
      const t = list[i]!;
      if (this.taken[t] !== 0) {
        if (i === this.tail[victim]! - 1) this.tail[victim] = i;
        continue;
      }
      if (!this.ctx.canRun(t, worker)) continue;
      // The GPUs reach a plan's last task when they have done all their plans (they steal each
      // other's tails): at the end of their balanced remaining work.
      if (cpu && this.rule.cpuFinish(t, worker) >= this.rule.gpusFinish(this.leftWork)) return -1;
      if (i === this.tail[victim]! - 1) this.tail[victim] = i;
      return this.take(victim, t);
    }
    return -1;
  }

  private take(k: number, t: number): number {
    this.taken[t] = 1;
    this.left[k]!--;
    this.leftWork[k]! -= this.duration(t, k);
    return t;
  }

  /** Expected duration of `t` on GPU k. */
  private duration(t: number, k: number): number {
    return this.ctx.taskDuration(t, this.gpus[k]!);
  }

  // ------------------------------------------------------------------ planning

  /** Plans the buffered tasks (when `whole`: every task of the graph, all ready) or hands them to DARTS. */
  private decideNow(whole: boolean): void {
    if (this.decided) return;
    this.decided = true;
    const g = this.ctx.graph;
    const ready = this.buffered;
    this.buffered = [];
    let leftover = ready;
    if (this.taken.length < this.ctx.taskCapacity) {
      const t = new Uint8Array(this.ctx.taskCapacity);
      t.set(this.taken);
      this.taken = t;
    }
    this.known = this.taken.length;
    if (whole && this.gpus.length > 0 && ready.length === g.taskCount && ready.length > 0) {
      const t0 = performance.now();
      leftover = this.pack(ready);
      if (this.planStats !== undefined) this.planStats.planMs = performance.now() - t0;
    } else if (whole && this.gpus.length > 0 && ready.length > 0 && this.planChainGraph()) {
      for (const t of ready) this.chainRunner!.push(t);
      leftover = [];
    }
    // Graphs with dependencies and priorities: ready tasks at the critical path's front go first.
    const pr = g.taskPriority.data;
    if (leftover.length < g.taskCount && g.taskCount <= this.taken.length) {
      let varies = false;
      for (let t = 1; t < g.taskCount && !varies; t++) varies = pr[t] !== pr[0];
      if (varies) {
        const order = Int32Array.from({ length: g.taskCount }, (_, t) => t);
        order.sort((x, y) => pr[y]! - pr[x]! || x - y);
        this.byPriority = order;
        this.topPriority = pr[order[0]!]!;
        if (this.tailFraction >= 0) this.timeLevel = this.timeLevels();
        if (this.criticalFixed) this.fixedWidth = this.slack * Math.abs(pr[order[0]!]!);
      }
    }
    for (const t of leftover) this.push(t);
  }

  /**
   * SchedulerOptions.criticalTail's ranks: each task's bottom level in seconds, a task costing
   * its shortest expected duration on a worker able to run it (the performance model; 0 if none
   * can). O(tasks x workers + edges).
   */
  private timeLevels(): Float64Array {
    const ctx = this.ctx;
    const n = ctx.platform.workers.length;
    const level = ctx.graph.bottomLevels((t) => {
      let best = Number.POSITIVE_INFINITY;
      for (let w = 0; w < n; w++) if (ctx.canRun(t, w)) best = Math.min(best, ctx.taskDuration(t, w));
      return Number.isFinite(best) ? best : 0;
    });
    if (level.length >= this.taken.length) return level;
    const sized = new Float64Array(this.taken.length);
    sized.set(level);
    return sized;
  }

  /**
   * Plans a graph of accumulation chains (hfp/chains.ts) under memory pressure, every task on
   * every GPU; returns false (nothing planned) for any other graph.
   */
  private planChainGraph(): boolean {
    const ctx = this.ctx;
    const g = ctx.graph;
    const T = g.taskCount;
    for (let t = 0; t < T; t++) for (const w of this.gpus) if (!ctx.canRun(t, w)) return false;
    let bytes = 0;
    for (let h = 0; h < g.handleCount; h++) bytes += g.handleSize.data[h]!;
    let capacity = 0;
    for (const w of this.gpus) capacity += ctx.memoryCapacity(ctx.platform.workers[w]!.node);
    if (bytes <= capacity) return false;
    const t0 = performance.now();
    const chains = findChains(g);
    if (chains === undefined) return false;
    let footprint = 0;
    for (let t = 0; t < T; t++) {
      let b = 0;
      for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++)
        b += g.handleSize.data[g.accessHandle.data[a]!]!;
      footprint = Math.max(footprint, b);
    }
    const plan = planChains({
      chains,
      size: g.handleSize.data,
      handles: g.handleCount,
      budget: this.gpus.map(
        (w) => ctx.memoryCapacity(ctx.platform.workers[w]!.node) - CHAIN_RESERVE_TASKS * footprint,
      ),
      duration: (t) => ctx.taskDuration(t, this.gpus[0]!),
    });
    if (plan === undefined) return false;
    this.chainRunner = new ChainRunner(ctx, chains, plan, this.gpus, this.taken);
    this.planStats = {
      packTasks: T,
      packBytes: plan.loadedBytes,
      restBytes: 0,
      aloneBytes: -1,
      packed: true,
      planMs: performance.now() - t0,
    };
    return true;
  }

  /** Builds the packages; returns the tasks no package took. */
  private pack(ready: number[]): number[] {
    const ctx = this.ctx;
    const g = ctx.graph;
    const H = g.handleCount;
    const size = g.handleSize.data;
    // The tasks every GPU can run; then their inputs (read accesses) and each datum's readers.
    const rest: number[] = [];
    const leftover: number[] = [];
    let footprint = 0;
    for (const t of ready) {
      if (!this.gpus.every((w) => ctx.canRun(t, w))) {
        leftover.push(t);
        continue;
      }
      let bytes = 0;
      for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++)
        bytes += size[g.accessHandle.data[a]!]!;
      footprint = Math.max(footprint, bytes);
      rest.push(t);
    }
    const inputs = PackInputs.ofGraph(g, rest);
    const { local, inStart, inList, rdStart, rdList } = inputs;
    // Without memory pressure (every input fits in the GPUs together) DARTS loads each datum
    // about once per GPU already: no packages.
    let inputBytes = 0;
    for (let h = 0; h < H; h++) if (inputs.readerCount(h) > 0) inputBytes += size[h]!;
    let capacity = 0;
    for (const w of this.gpus) capacity += ctx.memoryCapacity(ctx.platform.workers[w]!.node);
    if (inputBytes <= capacity) return [...leftover, ...rest];
    // A datum read by every task is resident everywhere: out of the anchor scores.
    const everywhere = new Uint8Array(H);
    for (let h = 0; h < H; h++)
      if (rest.length > 1 && inputs.readerCount(h) === rest.length) everywhere[h] = 1;
    const planned = new Uint8Array(g.taskCount);
    const work = this.gpus.map(() => 0);
    const plans: number[][] = this.gpus.map(() => []);
    // Bytes the packages load (anchors, and streamed data not kept from the GPU's previous package).
    let packBytes = 0;
    const lastStream = new Map<number, number>(); // (handle * K + k) -> stream rank
    let rank = 0;
    const K = this.gpus.length;
    let remaining = rest.length;
    const inAnchor = new Uint8Array(H);
    let scores: AnchorScores | undefined; // built at the first package
    const recentOf: number[][] = this.gpus.map(() => []);
    let maxInput = 0;
    for (let k = 0; k < inList.length; k++) maxInput = Math.max(maxInput, size[inList[k]!]!);
    /** Task t's first input outside the anchor and the shared data, -1 when none. */
    const streamOf = (t: number): number => {
      const i = local[t]!;
      for (let k = inStart[i]!; k < inStart[i + 1]!; k++) {
        const h = inList[k]!;
        if (inAnchor[h] === 0 && everywhere[h] === 0) return h;
      }
      return -1;
    };
    const missing = (t: number): number => {
      const i = local[t]!;
      let m = 0;
      for (let k = inStart[i]!; k < inStart[i + 1]!; k++)
        if (inAnchor[inList[k]!] === 0 && everywhere[inList[k]!] === 0) m++;
      return m;
    };
    // Two plans: the packages, then the fewest-missing-data planner (hfp/greedy.ts) on what
    // they left; or that planner alone (run first: fast). The plan whose simulation loads fewer
    // bytes is kept; packing stops once its own loads reach the planner alone's (it cannot win).
    let shared = 0;
    for (let h = 0; h < H; h++) if (everywhere[h]) shared += size[h]!;
    const room = this.gpus.map(
      (w) => ctx.memoryCapacity(ctx.platform.workers[w]!.node) - GREEDY_RESERVE_TASKS * footprint - shared,
    );
    const greedy = (tasks: number[], done: number[]): { order: number[][]; bytes: number } | undefined => {
      if (tasks.length === 0) return { order: this.gpus.map(() => []), bytes: 0 };
      if (!room.every((c) => c > 0)) return undefined;
      const start = new Int32Array(tasks.length + 1);
      for (let j = 0; j < tasks.length; j++) {
        const i = local[tasks[j]!]!;
        let m = 0;
        for (let k = inStart[i]!; k < inStart[i + 1]!; k++) if (everywhere[inList[k]!] === 0) m++;
        start[j + 1] = start[j]! + m;
      }
      const flat = new Int32Array(start[tasks.length]!);
      for (let j = 0, f = 0; j < tasks.length; j++) {
        const i = local[tasks[j]!]!;
        for (let k = inStart[i]!; k < inStart[i + 1]!; k++)
          if (everywhere[inList[k]!] === 0) flat[f++] = inList[k]!;
      }
      const r = planGreedy({
        n: tasks.length,
        start,
        inputs: flat,
        size,
        handles: H,
        capacity: room,
        duration: (i, k) => ctx.taskDuration(tasks[i]!, this.gpus[k]!),
        work: done,
      });
      return { order: r.order.map((l) => l.map((i) => tasks[i]!)), bytes: r.loadedBytes };
    };
    const alone = greedy(
      rest,
      this.gpus.map(() => 0),
    );
    // Packages cover a task when all but one of its inputs are in the anchor: built for tasks
    // of two inputs besides the data every task reads (the outer product's strips). With more
    // (random tasks of 4 to 6 inputs), a first package's anchor growth costs seconds and covers
    // a few dozen tasks: they are skipped there.
    let reads = 0;
    for (let k = 0; k < inList.length; k++) if (everywhere[inList[k]!] === 0) reads++;
    const bound =
      alone === undefined
        ? Number.POSITIVE_INFINITY
        : reads > PACK_MAX_INPUTS * rest.length
          ? 0
          : alone.bytes;
    let packedTasks = 0;
    // Each GPU's anchor budget: its memory less the reserve and the shared data.
    const budgets = this.gpus.map((w) => {
      let budget = ctx.memoryCapacity(ctx.platform.workers[w]!.node) - RESERVE_TASKS * footprint;
      for (let h = 0; h < H; h++) if (everywhere[h]) budget -= size[h]!;
      return budget;
    });
    while (remaining > 0 && packBytes < bound) {
      let k = 0;
      for (let j = 1; j < K; j++) if (work[j]! < work[k]!) k = j;
      let budget = budgets[k]!;
      // Grow the anchor: the datum of greatest (s1, s2) joins it (anchor-scores.ts).
      scores ??= new AnchorScores(inputs, everywhere, inAnchor);
      const anchor: number[] = [];
      for (;;) {
        const best = scores.best(budget, size);
        if (best < 0) break;
        anchor.push(best);
        inAnchor[best] = 1;
        budget -= size[best]!;
        scores.add(best);
      }
      scores.endGrowth();
      // The package: tasks on the anchor alone, then streamed data one by one.
      const own: number[] = [];
      const groups = new Map<number, number[]>();
      for (const a of anchor) {
        for (let r = rdStart[a]!; r < rdStart[a + 1]!; r++) {
          const t = rest[rdList[r]!]!;
          if (planned[t]) continue;
          const m = missing(t);
          if (m === 0) {
            planned[t] = 1;
            scores.planned(t);
            own.push(t);
          } else if (m === 1) {
            const d = streamOf(t);
            planned[t] = 1;
            scores.planned(t);
            const list = groups.get(d) ?? [];
            if (list.length === 0) groups.set(d, list);
            list.push(t);
          }
        }
      }
      const streamed = [...groups.keys()].sort(
        (x, y) => (lastStream.get(y * K + k) ?? -1) - (lastStream.get(x * K + k) ?? -1) || x - y,
      );
      const list = plans[k]!;
      const before = list.length;
      const add = (t: number) => {
        list.push(t);
        work[k]! += ctx.taskDuration(t, this.gpus[k]!);
        remaining--;
      };
      // The tasks on the anchor alone and those of the streamed data likely still resident (the
      // last `room` streamed on k) first, in anchor order: each new anchor datum is then used
      // by several tasks in a row, which hides its load behind them; then the other streamed
      // data, one group each.
      const room = Math.max(1, Math.floor((RESERVE_TASKS * footprint) / Math.max(1, maxInput)));
      const recent = new Set(recentOf[k]!.slice(-room));
      const pos = new Map(anchor.map((a, i) => [a, i]));
      const anchorPos = (t: number) => {
        const i = local[t]!;
        let p = anchor.length;
        for (let k = inStart[i]!; k < inStart[i + 1]!; k++) p = Math.min(p, pos.get(inList[k]!) ?? p);
        return p;
      };
      // Then, while fewer than `room` are recent, the next streamed data join them: the new
      // anchor data then load one per `room` tasks rather than one per task (a package's
      // first stream would otherwise wait on every anchor load in turn).
      const first = streamed.filter((d) => recent.has(d));
      for (const d of streamed) {
        if (first.length >= room) break;
        if (recent.has(d)) continue;
        first.push(d);
        packBytes += size[d]!;
        recentOf[k]!.push(d);
      }
      const inFirst = new Set(first);
      const order = new Map(first.map((d, i) => [d, i]));
      const warm = [...own, ...first.flatMap((d) => groups.get(d)!)];
      const rankOf = (t: number) => order.get(streamOf(t)) ?? -1;
      // Square shells (row p and column c in shell max(p, c)): at a package's start, when
      // nothing is resident, s + 1 loads give (s + 1)^2 tasks rather than s + 1.
      const shell = (t: number) => Math.max(anchorPos(t), rankOf(t));
      warm.sort(
        (x, y) => shell(x) - shell(y) || anchorPos(x) - anchorPos(y) || rankOf(x) - rankOf(y) || x - y,
      );
      warm.forEach(add);
      for (const d of first) lastStream.set(d * K + k, rank++);
      for (const a of anchor) packBytes += size[a]!;
      for (const d of streamed) {
        if (inFirst.has(d)) continue;
        packBytes += size[d]!;
        for (const t of groups.get(d)!.sort((x, y) => x - y)) add(t);
        lastStream.set(d * K + k, rank++);
        recentOf[k]!.push(d);
      }
      for (const a of anchor) inAnchor[a] = 0;
      // A package of fewer tasks than MIN_YIELD per anchor datum stops the packing (task sets
      // whose inputs spread too widely), and so do packages loading more bytes per task than
      // the fewest-missing planner alone does on average: the planner takes the rest.
      const made = list.length - before;
      if (made === 0 || made < MIN_YIELD * anchor.length) break;
      packedTasks += made;
      if (packBytes * rest.length > bound * packedTasks) break;
    }
    const afterPacks =
      packedTasks === 0
        ? alone
        : greedy(
            rest.filter((t) => !planned[t]),
            work,
          );
    this.planStats = {
      packTasks: plans.reduce((n, l) => n + l.length, 0),
      packBytes,
      restBytes: afterPacks?.bytes ?? -1,
      aloneBytes: alone?.bytes ?? -1,
      packed: packedTasks > 0,
      planMs: 0,
    };
    if (alone !== undefined && (afterPacks === undefined || alone.bytes < packBytes + afterPacks.bytes)) {
      planned.fill(0);
      for (let k = 0; k < K; k++) plans[k] = alone.order[k]!;
      this.planStats.packed = false;
    } else if (afterPacks !== undefined)
      for (let k = 0; k < K; k++) for (const t of afterPacks.order[k]!) plans[k]!.push(t);
    for (let k = 0; k < K; k++) {
      this.plan[k] = plans[k]!;
      for (const t of plans[k]!) planned[t] = 1;
      this.tail[k] = this.plan[k]!.length;
      this.left[k] = this.plan[k]!.length;
      this.leftWork[k] = 0;
      for (const t of plans[k]!) this.leftWork[k]! += this.duration(t, k);
    }
    for (const t of rest) if (!planned[t]) leftover.push(t);
    return leftover;
  }
}
