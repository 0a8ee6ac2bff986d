/**
 * Belady's rule (MIN; Belady 1966, cited by seed 000 section 3.2): evict the datum whose next
 * use is the furthest in the worker's known future, which minimises loads when the future is
 * known. Here the known future of a node is, for each of its workers, the tasks it popped and
 * has not finished (its pipeline, in order) followed by the tasks its scheduler has planned
 * for it (Scheduler.plannedTasks), read up to a horizon of 2,000 tasks. Data with no known
 * next use go first, least recently used first.
 * Cost per victim: O(horizon x inputs + resident data).
 */
import type { EvictionContext } from '../core/policy.ts';
import { LruEviction } from './lru.ts';

/** Furthest next use first. */
export class BeladyEviction extends LruEviction {
  override readonly name = 'belady';
  /** How many future tasks per node are read. */
  readonly horizon: number;

  constructor(horizon = 2_000) {
    super();
    this.horizon = horizon;
  }

  override init(ctx: EvictionContext): void {
    super.init(ctx);
  }

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
