/**
 * hfp's eviction: Belady's rule (furthest next use first) over each GPU's known future, its
 * pipeline then hfp's plan (Scheduler.plannedTasks), up to the horizon, plus one exception to
 * the memory manager's clean-first rule for plans that cover the whole future (chain plans,
 * hfp/chains.ts). Clean first asks for a clean victim before a modified one because writing
 * a modified one back costs bus time; but a modified replica the plan never uses again (a
 * finished accumulator: a C block whose chain ended, or one stolen by another GPU) must be
 * written back anyway, while a clean replica the plan uses again must then be loaded again.
 * So when the memory manager's filter (clean replicas) leaves out such a dead modified replica
 * and the best clean victim has a planned use, this policy declines (returns -1): the memory
 * manager then asks again without the clean filter, and Belady's rule takes the dead replica.
 * Without a whole-future plan (hfp's other modes), it is Belady's rule as is.
 *
 * Cost: one scan of the known future per victim (O(horizon x accesses + resident data)), as
 * BeladyEviction's scan; the next-use table is reused between calls.
 */
import { BeladyEviction } from '../../evict/belady.ts';

/** Belady's rule that lets a dead modified replica go before a clean one the plan needs. */
export class PlanEviction extends BeladyEviction {
  private readonly wholeFuture: () => boolean;
  private readonly nextUse = new Map<number, number>();

  /** `wholeFuture()` is true while the scheduler's planned tasks are every task left. */
  constructor(wholeFuture: () => boolean, horizon?: number) {
    super(horizon);
    this.wholeFuture = wholeFuture;
  }

  override victim(node: number, allow?: (handle: number) => boolean): number {
    if (allow === undefined || !this.wholeFuture()) return super.victim(node, allow);
    const g = this.ctx.graph;
    const nextUse = this.nextUse;
    nextUse.clear();
    let pos = 0;
    const see = (t: number): boolean => {
      if (pos >= this.horizon) return false;
      for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
        const h = g.accessHandle.data[a]!;
        if (!nextUse.has(h)) nextUse.set(h, pos);
      }
      pos++;
      return true;
    };
    for (const w of this.workersOf[node]!) {
      for (const t of this.ctx.pipeline(w)) if (!see(t)) break;
      const planned = this.ctx.scheduler.plannedTasks?.(w);
      if (planned) for (const t of planned) if (!see(t)) break;
    }
    let best = -1;
    let bestUse = -1;
    let dead = false;
    this.list.forEach(node, (h) => {
      if (!this.ctx.isEvictable(h, node)) return;
      const use = nextUse.get(h) ?? Number.POSITIVE_INFINITY;
      if (!allow(h)) {
        if (use === Number.POSITIVE_INFINITY && this.ctx.evictionCost(h, node) > 0) dead = true;
        return;
      }
      if (use > bestUse) {
        bestUse = use;
        best = h;
      }
    });
    return dead && best >= 0 && bestUse !== Number.POSITIVE_INFINITY ? -1 : best;
  }
}
