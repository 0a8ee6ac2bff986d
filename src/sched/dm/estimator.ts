/**
 * Expected completion times per worker, StarPU's dm bookkeeping (exp_start, exp_len,
 * exp_end) adapted to Locus's worker pipelines, where a popped task may wait behind the
 * running one:
 * - exp_start(w) = max(now, end of the running task) + predicted work popped but not started;
 * - exp_len(w)   = predicted work still in w's queue;
 * - exp_end(w)   = exp_start(w) + exp_len(w).
 * assign adds a task's duration to exp_len, a pop moves it to the popped work, a start
 * moves it to the running task (expected to end at now + duration), a finish sets the end of
 * the running task to now. Sums are reset to 0 whenever their task count drops to 0, so
 * rounding never accumulates.
 *
 * A placement (HEFT with task-duration models, seed 001 section III.B) is the worker that
 * minimises exp_end(w) + duration(task, w), plus with `transfers` (heft-tmdp, seed 000 Eq. 1)
 * the estimated time to bring every input not valid or loading on w's node. Ties go to the
 * lowest worker index. A task whose duration the model does not know on some worker able to
 * run it (an estimate of 0 or NaN: no flop count and nothing measured) goes instead to the
 * worker with the fewest tasks queued or popped and not started (ties round-robin), as
 * StarPU's dm policies switch to a greedy placement for an uncalibrated codelet: the tasks
 * spread over the workers and get measured, where equal estimates would send them all to the
 * first worker. That is said once per codelet through SchedContext.warn. Cost: O(W) duration
 * estimates plus, with transfers, O(a) transfer estimates per distinct node (cached per
 * decision).
 */
import { growF64 } from '../../core/growable.ts';
import type { SchedContext } from '../../core/policy.ts';
import { AccessMode } from '../../core/types.ts';

/** Per-worker expected end times and the best-completion placement. */
export class CompletionEstimator {
  private ctx!: SchedContext;
  private nw = 0;
  private workerNode = new Int32Array(0);
  private queuedLen = new Float64Array(0);
  private queuedCount = new Int32Array(0);
  private heldLen = new Float64Array(0);
  private heldCount = new Int32Array(0);
  private runEnd = new Float64Array(0);
  private taskDur = new Float64Array(0);
  private penalty = new Float64Array(0);
  private penaltyStamp = new Int32Array(0);
  private decision = 0;
  private lastGreedy = -1;

  /**
   * @param transfers count input transfer times in placements (dmda family).
   * @param policy the scheduler's name, in warnings.
   */
  constructor(
    readonly transfers: boolean,
    readonly policy = 'dm',
  ) {}

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    const p = ctx.platform;
    this.nw = p.workers.length;
    this.workerNode = Int32Array.from(p.workers, (w) => w.node);
    this.queuedLen = new Float64Array(this.nw);
    this.queuedCount = new Int32Array(this.nw);
    this.heldLen = new Float64Array(this.nw);
    this.heldCount = new Int32Array(this.nw);
    this.runEnd = new Float64Array(this.nw);
    this.taskDur = new Float64Array(ctx.taskCapacity);
    this.penalty = new Float64Array(p.nodes.length);
    this.penaltyStamp = new Int32Array(p.nodes.length);
    this.lastGreedy = -1;
  }

  /** Per-task tables now hold `tasks` entries. */
  grow(tasks: number): void {
    this.taskDur = growF64(this.taskDur, tasks);
  }

  /** The engine recycled tasks [0, k): the per-task table shifts down. O(tasks held). */
  rebase(k: number): void {
    this.taskDur.copyWithin(0, k);
  }

  /** Expected time at which `worker` has done everything assigned to it. */
  expEnd(worker: number): number {
    const now = this.ctx.now();
    const run = this.runEnd[worker]!;
    return (run > now ? run : now) + this.heldLen[worker]! + this.queuedLen[worker]!;
  }

  /** Expected time to bring `task`'s inputs to `node` (each not valid or loading there). */
  transferPenalty(task: number, node: number): number {
    const g = this.ctx.graph;
    let sum = 0;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      if (g.accessMode.data[a]! & AccessMode.R) sum += this.ctx.transferTime(g.accessHandle.data[a]!, node);
    }
    return sum;
  }

  /**
   * The worker where `task` is expected to complete first (-1 when none can run it). While
   * calibrating, a worker whose model for the task is not calibrated wins (the one expected
   * to be free first among them), as StarPU's dm policies spread tasks to measure them.
   */
  best(task: number): number {
    const ctx = this.ctx;
    const stamp = ++this.decision;
    let best = -1;
    let bestEnd = Number.POSITIVE_INFINITY;
    let toCalibrate = -1;
    let calibrateEnd = Number.POSITIVE_INFINITY;
    let unknown = -1;
    for (let w = 0; w < this.nw; w++) {
      if (!ctx.canRun(task, w)) continue;
      if (ctx.needsCalibration(task, w)) {
        const e = this.expEnd(w);
        if (e < calibrateEnd) {
          calibrateEnd = e;
          toCalibrate = w;
        }
      }
      const duration = ctx.taskDuration(task, w);
      if (!(duration > 0) && unknown < 0) unknown = w;
      let end = this.expEnd(w) + duration;
      if (this.transfers) {
        const n = this.workerNode[w]!;
        if (this.penaltyStamp[n] !== stamp) {
          this.penaltyStamp[n] = stamp;
          this.penalty[n] = this.transferPenalty(task, n);
        }
        end += this.penalty[n]!;
      }
      if (best < 0 || end < bestEnd) {
        best = w;
        bestEnd = end;
      }
    }
    if (toCalibrate >= 0) return toCalibrate;
    if (unknown < 0) return best;
    this.warnUnknown(task, unknown);
    return this.fewestTasks(task);
  }

  /**
   * The worker able to run `task` with the fewest tasks queued or popped and not started;
   * ties go round-robin, from the worker after the last one chosen so, so that tasks spread
   * even when each ends before the next is placed.
   */
  private fewestTasks(task: number): number {
    let fewest = -1;
    let fewestCount = 0;
    for (let k = 1; k <= this.nw; k++) {
      const w = (this.lastGreedy + k) % this.nw;
      if (!this.ctx.canRun(task, w)) continue;
      const count = this.queuedCount[w]! + this.heldCount[w]!;
      if (fewest < 0 || count < fewestCount) {
        fewest = w;
        fewestCount = count;
      }
    }
    this.lastGreedy = fewest;
    return fewest;
  }

  /** Says once per codelet that its tasks are placed greedily for want of an estimate. */
  private warnUnknown(task: number, worker: number): void {
    const ctx = this.ctx;
    const codelet = ctx.graph.codelets[ctx.graph.taskCodelet.data[task]!]!.name;
    const kind = ctx.platform.workers[worker]!.kind;
    ctx.warn(
      `${this.policy}: codelet '${codelet}' has no duration estimate on ${kind} workers (no flop count and no measurements yet): its tasks go to the worker with the fewest queued tasks, to be measured, as StarPU does while calibrating; give the codelet flops, or run it once with the models recorded, for ${this.policy}'s placement`,
    );
  }

  /** `task` was queued on `worker`. */
  assigned(task: number, worker: number): void {
    const d = this.ctx.taskDuration(task, worker);
    this.taskDur[task] = d;
    this.queuedLen[worker]! += d;
    this.queuedCount[worker]!++;
  }

  /** `worker` took `task` off its queue. */
  popped(task: number, worker: number): void {
    const d = this.taskDur[task]!;
    if (--this.queuedCount[worker]! === 0) this.queuedLen[worker] = 0;
    else this.queuedLen[worker]! -= d;
    this.heldLen[worker]! += d;
    this.heldCount[worker]!++;
  }

  /** `task` started on `worker`. */
  started(task: number, worker: number): void {
    const d = this.taskDur[task]!;
    if (--this.heldCount[worker]! <= 0) {
      this.heldCount[worker] = 0;
      this.heldLen[worker] = 0;
    } else {
      this.heldLen[worker]! -= d;
    }
    this.runEnd[worker] = this.ctx.now() + d;
  }

  /** A task finished on `worker`. */
  finished(worker: number): void {
    this.runEnd[worker] = this.ctx.now();
  }
}
