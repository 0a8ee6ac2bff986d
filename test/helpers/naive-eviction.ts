/**
 * Reference Belady and LUF victims that rescan the known future on every call (the
 * implementations before the incremental PlanIndex), as oracles for the indexed ones.
 */
import type { EvictionContext } from '../../src/core/policy.ts';
import { LruEviction } from '../../src/evict/lru.ts';

/** Belady over the rescanned pipelines and plannedTasks, horizon 2,000. */
export class NaiveBelady extends LruEviction {
  override readonly name = 'belady';
  readonly horizon = 2000;

  override victim(node: number, allow?: (handle: number) => boolean): number {
    const g = this.ctx.graph;
    const nextUse = new Map<number, number>();
    let pos = 0;
    for (const w of this.workersOf[node]!) {
      const futures: Iterable<number>[] = [this.ctx.pipeline(w)];
      const planned = this.ctx.scheduler.plannedTasks?.(w);
      if (planned) futures.push(planned);
      for (const future of futures) {
        for (const t of future) {
          if (pos >= this.horizon) break;
          for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
            const h = g.accessHandle.data[a]!;
            if (!nextUse.has(h)) nextUse.set(h, pos);
          }
          pos++;
        }
      }
    }
    let best = -1;
    let bestUse = -1;
    this.list.forEach(node, (h) => {
      if (!this.ctx.isEvictable(h, node) || (allow && !allow(h))) return;
      const use = nextUse.get(h) ?? Number.POSITIVE_INFINITY;
      if (use > bestUse) {
        bestUse = use;
        best = h;
      }
    });
    return best;
  }
}

interface Planner {
  plannedUsesOf?(worker: number, handle: number): number;
  unplan?(handle: number, node: number): void;
}

/** LUF with planned uses counted over a rescan of plannedTasks (or DARTS's counts). */
export class NaiveLuf extends LruEviction {
  override readonly name = 'luf';
  private sched!: Planner & EvictionContext['scheduler'];

  override init(ctx: EvictionContext): void {
    super.init(ctx);
    this.sched = ctx.scheduler as Planner & EvictionContext['scheduler'];
  }

  override victim(node: number, allow?: (handle: number) => boolean): number {
    const g = this.ctx.graph;
    const workers = this.workersOf[node]!;
    const nextUse = new Map<number, number>();
    let pos = 0;
    for (const w of workers) {
      for (const t of this.ctx.pipeline(w)) {
        for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
          const h = g.accessHandle.data[a]!;
          if (!nextUse.has(h)) nextUse.set(h, pos);
        }
        pos++;
      }
    }
    const counts = new Map<number, number>();
    if (!this.sched.plannedUsesOf) {
      for (const w of workers) {
        for (const t of this.sched.plannedTasks!(w)) {
          for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
            const h = g.accessHandle.data[a]!;
            counts.set(h, (counts.get(h) ?? 0) + 1);
          }
        }
      }
    }
    let best = -1;
    let bestPlanned = Number.POSITIVE_INFINITY;
    let belady = -1;
    let beladyUse = -1;
    this.list.forEach(node, (h) => {
      if (!this.ctx.isEvictable(h, node) || (allow && !allow(h))) return;
      const use = nextUse.get(h);
      if (use === undefined) {
        let np = 0;
        if (this.sched.plannedUsesOf) for (const w of workers) np += this.sched.plannedUsesOf(w, h);
        else np = counts.get(h) ?? 0;
        if (np < bestPlanned) {
          bestPlanned = np;
          best = h;
        }
      } else if (use > beladyUse) {
        beladyUse = use;
        belady = h;
      }
    });
    const victim = best >= 0 ? best : belady;
    if (victim >= 0) this.sched.unplan?.(victim, node);
    return victim;
  }
}
