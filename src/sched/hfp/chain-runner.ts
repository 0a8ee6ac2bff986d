/**
 * hfp's run time for a chain plan (hfp/chains.ts): each GPU hands out its planned tasks in
 * order, the first *ready* one within a window past the head (a chain's next task waits for
 * the previous one; in a step-major package it is a whole step behind, so the head is
 * normally ready). A worker with nothing ready steals a whole chain, not a task: the chain
 * the victim (the worker with the most planned work left) would reach last, not started if
 * any, moves with its accumulator and all its remaining tasks, so no accumulator ever goes
 * back and forth. A steal happens only while it shortens the longer of the two queues: the
 * stealer's remaining work plus the chain's (on the stealer) stays under the victim's minus
 * the chain's (on the victim). A CPU worker steals by HEFT's earliest-finish-time rule instead
 * (hfp/cpu-rule.ts): the victim's last chain when the CPU would end it (its own stolen work, the
 * chain's on the CPU and the accumulator's copy to the host) before the GPUs would reach it
 * (the GPUs' remaining work, balanced over them since they steal from each other, as the
 * chain is among the last); far slower CPUs take few chains,
 * from the end of the plan, so the GPUs' packages keep their locality. A worker runs its
 * stolen chains step-major too (the lowest step first). When a chain's last task ends, its
 * accumulator is finished: the runner gives the engine a wontUse hint for it (written back at
 * once, evicted first), so finished C blocks leave before the blocks the plan still needs.
 *
 * Costs: a pop is O(1) amortised over the plan (tasks taken or stolen are skipped once), plus
 * O(window) when the head is not ready and O(stolen chains) for stolen work; a steal walks the
 * victim's chains back from a cursor (amortised O(1) per chain) and is O(chain length) for the
 * work it moves. No allocation after init.
 */
import type { SchedContext } from '../../core/policy.ts';
import type { ChainPlan, Chains } from './chains.ts';

/** How far past its plan's head a GPU looks for a ready task. */
export const READY_WINDOW = 256;

/** Hands out a chain plan at run time (see the file's comment). */
export class ChainRunner {
  private readonly ctx: SchedContext;
  private readonly chains: Chains;
  private readonly gpus: number[];
  private readonly kOf: Int32Array;
  private readonly order: Int32Array[];
  private readonly chainsOf: Int32Array[];
  private readonly head: Int32Array;
  /** Per GPU k: chains at positions >= chainTail[k] in chainsOf[k] are no longer k's. */
  private readonly chainTail: Int32Array;
  /** Per chain: the worker owning it, and the position (in its task list) of its next task. */
  private readonly owner: Int32Array;
  private readonly next: Int32Array;
  /** Per worker: its stolen chains (a compact list) and its expected remaining work (s). */
  private readonly stolen: Int32Array[];
  private readonly stolenCount: Int32Array;
  private readonly leftWork: Float64Array;
  private readonly ready: Uint8Array;
  private readonly taken: Uint8Array;
  private readonly isCpu: Uint8Array;

  /**
   * Takes over the chain tasks of `plan`; `gpus[k]` is GPU k's worker id; `taken` is hfp's
   * per-task flag (shared: this runner sets it for what it hands out).
   */
  constructor(ctx: SchedContext, chains: Chains, plan: ChainPlan, gpus: number[], taken: Uint8Array) {
    this.ctx = ctx;
    this.chains = chains;
    this.gpus = gpus;
    const W = ctx.platform.workers.length;
    this.kOf = new Int32Array(W).fill(-1);
    gpus.forEach((w, k) => {
      this.kOf[w] = k;
    });
    this.order = plan.order;
    this.chainsOf = plan.chainsOf;
    this.head = new Int32Array(gpus.length);
    this.chainTail = Int32Array.from(plan.chainsOf, (l) => l.length);
    this.owner = new Int32Array(chains.count);
    this.next = new Int32Array(chains.count);
    this.leftWork = new Float64Array(W);
    plan.chainsOf.forEach((list, k) => {
      for (const c of list) {
        this.owner[c] = gpus[k]!;
        for (let i = chains.start[c]!; i < chains.start[c + 1]!; i++)
          this.leftWork[gpus[k]!]! += ctx.taskDuration(chains.tasks[i]!, gpus[k]!);
      }
    });
    this.stolen = Array.from({ length: W }, () => new Int32Array(chains.count));
    this.stolenCount = new Int32Array(W);
    this.ready = new Uint8Array(chains.chainOf.length);
    this.taken = taken;
    this.isCpu = Uint8Array.from(ctx.platform.workers, (w) => (w.kind === 'cpu' ? 1 : 0));
  }

  /** True when `task` is one of the plan's (its pushes come here). */
  has(task: number): boolean {
    return task < this.ready.length;
  }

  /** `task` (one of the plan's) is ready. */
  push(task: number): void {
    this.ready[task] = 1;
  }

  /** A ready task for `worker` from its plan, its stolen chains or a steal; -1 if none. */
  pop(worker: number): number {
    const k = this.kOf[worker]!;
    if (k >= 0) {
      const t = this.fromPlan(k, worker);
      if (t >= 0) return t;
    }
    const t = this.fromStolen(worker);
    if (t >= 0) return t;
    return this.steal(worker);
  }

  /**
   * `task` ended: when it was its chain's last, the accumulator is finished (no task uses it
   * again): the engine is told (SchedContext.wontUse), so it writes the block back now and
   * evicts it before the data the plan still needs.
   */
  finished(task: number): void {
    if (!this.has(task)) return;
    const { chainOf, start, tasks, acc } = this.chains;
    const c = chainOf[task]!;
    if (tasks[start[c + 1]! - 1] === task) this.ctx.wontUse(acc[c]!);
  }

  /** GPU `worker`'s tasks in the order it will take them (for Belady's rule). */
  *planned(worker: number): Iterable<number> {
    const k = this.kOf[worker]!;
    const { chainOf, start, tasks } = this.chains;
    if (k >= 0) {
      const list = this.order[k]!;
      for (let i = this.head[k]!; i < list.length; i++) {
        const t = list[i]!;
        if (this.taken[t] === 0 && this.owner[chainOf[t]!] === worker) yield t;
      }
    }
    const s = this.stolen[worker]!;
    for (let j = 0; j < this.stolenCount[worker]!; j++) {
      const c = s[j]!;
      for (let i = start[c]! + this.next[c]!; i < start[c + 1]!; i++) yield tasks[i]!;
    }
  }

  private fromPlan(k: number, worker: number): number {
    const list = this.order[k]!;
    const { chainOf } = this.chains;
    let i = this.head[k]!;
    while (i < list.length && (this.taken[list[i]!] !== 0 || this.owner[chainOf[list[i]!]!] !== worker)) i++;
    this.head[k] = i;
    const end = Math.min(list.length, i + READY_WINDOW);
    for (; i < end; i++) {
      const t = list[i]!;
      if (this.taken[t] === 0 && this.ready[t] === 1 && this.owner[chainOf[t]!] === worker)
        return this.take(t, worker);
    }
    return -1;
  }

  /** The ready next task of `worker`'s stolen chains with the lowest step. */
  private fromStolen(worker: number): number {
    const s = this.stolen[worker]!;
    const { start, tasks } = this.chains;
    let best = -1;
    let bestStep = 0;
    for (let j = 0; j < this.stolenCount[worker]!; j++) {
      const c = s[j]!;
      if (start[c]! + this.next[c]! >= start[c + 1]!) {
        // Finished: drop it from the list.
        s[j] = s[--this.stolenCount[worker]!]!;
        j--;
        continue;
      }
      const t = tasks[start[c]! + this.next[c]!]!;
      if (this.ready[t] === 1 && this.taken[t] === 0 && (best < 0 || this.next[c]! < bestStep)) {
        best = t;
        bestStep = this.next[c]!;
      }
    }
    return best >= 0 ? this.take(best, worker) : -1;
  }

  /** Steals the victim's last chain (see the file's comment) and returns its next task, or -1. */
  private steal(worker: number): number {
    let victim = -1;
    for (let k = 0; k < this.gpus.length; k++) {
      const w = this.gpus[k]!;
      if (w !== worker && (victim < 0 || this.leftWork[w]! > this.leftWork[this.gpus[victim]!]!)) victim = k;
    }
    if (victim < 0) return -1;
    const vw = this.gpus[victim]!;
    const list = this.chainsOf[victim]!;
    const { start, tasks } = this.chains;
    // Drop finished or stolen chains from the end of the victim's list.
    let end = this.chainTail[victim]!;
    while (end > 0) {
      const c = list[end - 1]!;
      if (this.owner[c] === vw && start[c]! + this.next[c]! < start[c + 1]!) break;
      end--;
    }
    this.chainTail[victim] = end;
    // The last chain not started whose first task is ready, else the last started one.
    for (let pass = 0; pass < 2; pass++) {
      for (let j = end - 1; j >= 0; j--) {
        const c = list[j]!;
        if (this.owner[c] !== vw) continue;
        const n = this.next[c]!;
        if ((pass === 0) !== (n === 0) || start[c]! + n >= start[c + 1]!) continue;
        const t = tasks[start[c]! + n]!;
        if (this.ready[t] === 0 || this.taken[t] !== 0 || !this.ctx.canRun(t, worker)) continue;
        let mine = 0;
        let theirs = 0;
        for (let i = start[c]! + n; i < start[c + 1]!; i++) {
          mine += this.ctx.taskDuration(tasks[i]!, worker);
          theirs += this.ctx.taskDuration(tasks[i]!, vw);
        }
        if (this.isCpu[worker] === 1) {
          const node = this.ctx.platform.workers[worker]!.node;
          const end = this.leftWork[worker]! + mine + this.ctx.transferTime(this.chains.acc[c]!, node);
          let gpus = 0;
          for (const g of this.gpus) gpus += this.leftWork[g]!;
          if (end >= gpus / this.gpus.length) return -1;
        } else if (this.leftWork[worker]! + mine >= this.leftWork[vw]! - theirs) return -1;
        this.owner[c] = worker;
        this.leftWork[vw]! -= theirs;
        this.leftWork[worker]! += mine;
        this.stolen[worker]![this.stolenCount[worker]!++] = c;
        return this.take(t, worker);
      }
    }
    return -1;
  }

  private take(t: number, worker: number): number {
    this.taken[t] = 1;
    this.next[this.chains.chainOf[t]!]!++;
    this.leftWork[worker]! -= this.ctx.taskDuration(t, worker);
    return t;
  }
}
