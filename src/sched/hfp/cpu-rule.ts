/**
 * hfp's rule for CPU workers beside GPUs: HEFT's earliest finish time (Topcuoglu, Hariri and
 * Wu, 2002). A CPU worker takes a task only when it would finish it before any GPU would:
 *
 *   finish_cpu(t) = queue(cpu) + d(t, cpu) + sum_{inputs h} transfer(h, cpu's node)
 *   finish_gpu(t) = min_g queue(g) + d(t, g) + sum_{inputs h} transfer(h, g's node)
 *
 * d from the performance model (SchedContext.taskDuration), transfer the context's expected
 * copy time, queue(w) the expected work of w's pipeline. For a task the GPUs have not been
 * given (DARTS's pool, hfp's critical tasks) the pipeline is all they are committed to, so a
 * CPU far slower than the GPUs (seed 000's V100 node: 50 GFlop/s against 12.6 TFlop/s) takes
 * only the codelets it runs faster (Cholesky's POTRF: 14.1 GFlop/s on the V100). For a task
 * at the end of a GPU's plan the GPUs reach it only after their plans, which they balance by
 * stealing each other's tails: finish_gpu is then their pipelines' and plans' expected work
 * divided by the GPU count (gpusFinish), which is how a CPU may take a plan's tail (a strip
 * package's last task, a chain plan's last chain), only while it ends that earlier.
 *
 * Both sides use the model's compute times: a GPU slowed by the shared host bus finishes later
 * than the model says, so the rule errs on the side of leaving work to the GPUs, never slowing
 * the run by the model's account.
 *
 * Cost: begin() is O(pipeline length) per worker; allows() O(accesses x GPUs) per candidate.
 * No allocation after construction.
 */
import type { SchedContext } from '../../core/policy.ts';
import { AccessMode } from '../../core/types.ts';

/** The earliest-finish-time test for CPU workers (see the file's comment). */
export class CpuRule {
  private readonly ctx: SchedContext;
  private readonly gpus: number[];
  private readonly isCpu: Uint8Array;
  /** Per GPU k: its pipeline's expected work, cached by begin(). */
  private readonly gpuQueue: Float64Array;
  private cpu = -1;
  private cpuQueue = 0;

  /** `gpus[k]` is GPU k's worker id. */
  constructor(ctx: SchedContext, gpus: number[]) {
    this.ctx = ctx;
    this.gpus = gpus;
    this.isCpu = Uint8Array.from(ctx.platform.workers, (w) => (w.kind === 'cpu' ? 1 : 0));
    this.gpuQueue = new Float64Array(gpus.length);
  }

  /** True when the rule applies to `worker`: a CPU worker beside GPUs. */
  applies(worker: number): boolean {
    return this.gpus.length > 0 && this.isCpu[worker] === 1;
  }

  /** CPU `worker` is choosing: caches every worker's queued work until end(). */
  begin(worker: number): void {
    this.cpu = worker;
    this.cpuQueue = this.queue(worker);
    for (let k = 0; k < this.gpus.length; k++) this.gpuQueue[k] = this.queue(this.gpus[k]!);
  }

  /** The choice of begin()'s worker is over. */
  end(): void {
    this.cpu = -1;
  }

  /** Expected finish time of `task` on CPU `worker` from now (seconds), between begin(worker) and end(). */
  cpuFinish(task: number, worker: number): number {
    return this.cpuQueue + this.ctx.taskDuration(task, worker) + this.inputTime(task, worker);
  }

  /** Expected finish time of `task` on GPU k from now (seconds), between begin() and end(). */
  gpuFinish(task: number, k: number): number {
    const g = this.gpus[k]!;
    return this.gpuQueue[k]! + this.ctx.taskDuration(task, g) + this.inputTime(task, g);
  }

  /**
   * When the GPUs reach the last task of their plans, from now (seconds), `planWork[k]` being
   * GPU k's plan's expected work: their pipelines and plans balanced over them, since a GPU done
   * with its plan steals the others' tails; between begin() and end().
   */
  gpusFinish(planWork: ArrayLike<number>): number {
    let s = 0;
    for (let k = 0; k < this.gpus.length; k++) s += this.gpuQueue[k]! + planWork[k]!;
    return s / this.gpus.length;
  }

  /**
   * True when `worker` may take `task` now: any GPU worker; a CPU worker when no GPU can run
   * the task or when it finishes the task before every GPU that can would.
   */
  allows(task: number, worker: number): boolean {
    if (!this.applies(worker)) return true;
    const cached = this.cpu === worker;
    if (!cached) this.begin(worker);
    const mine = this.cpuFinish(task, worker);
    let ok = true;
    for (let k = 0; k < this.gpus.length && ok; k++)
      if (this.ctx.canRun(task, this.gpus[k]!) && this.gpuFinish(task, k) <= mine) ok = false;
    if (!cached) this.end();
    return ok;
  }

  /** A context like `ctx` whose canRun also asks allows() (for the embedded DARTS). */
  wrap(ctx: SchedContext): SchedContext {
    return {
      get graph() {
        return ctx.graph;
      },
      get platform() {
        return ctx.platform;
      },
      get taskCapacity() {
        return ctx.taskCapacity;
      },
      get handleCapacity() {
        return ctx.handleCapacity;
      },
      now: () => ctx.now(),
      canRun: (t, w) => ctx.canRun(t, w) && this.allows(t, w),
      isValidOn: (h, n) => ctx.isValidOn(h, n),
      isValidOrLoading: (h, n) => ctx.isValidOrLoading(h, n),
      memoryUsed: (n) => ctx.memoryUsed(n),
      memoryCapacity: (n) => ctx.memoryCapacity(n),
      needsCalibration: (t, w) => ctx.needsCalibration(t, w),
      taskDuration: (t, w) => ctx.taskDuration(t, w),
      transferTime: (h, n) => ctx.transferTime(h, n),
      prefetch: (h, n, mayEvict, allow) => ctx.prefetch(h, n, mayEvict, allow),
      wontUse: (h) => ctx.wontUse(h),
      warn: (m) => ctx.warn(m),
      currentWorker: () => ctx.currentWorker(),
      pipeline: (w) => ctx.pipeline(w),
      random: (n) => ctx.random(n),
    };
  }

  /** Expected work of `worker`'s pipeline (seconds). */
  private queue(worker: number): number {
    let s = 0;
    for (const t of this.ctx.pipeline(worker)) s += this.ctx.taskDuration(t, worker);
    return s;
  }

  /** Expected time to bring `task`'s inputs to `worker`'s node (seconds). */
  private inputTime(task: number, worker: number): number {
    const g = this.ctx.graph;
    const node = this.ctx.platform.workers[worker]!.node;
    let s = 0;
    for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++)
      if (g.accessMode.data[a]! & AccessMode.R) s += this.ctx.transferTime(g.accessHandle.data[a]!, node);
    return s;
  }
}
