/**
 * Belady's rule (MIN; Belady 1966, cited by seed 000 section 3.2): evict the datum whose next
 * use is the furthest in the worker's known future, which minimises loads when the future is
 * known. Here the known future of a node is, for each of its workers, the tasks it popped and
 * has not finished (its pipeline, in order) followed by the tasks its scheduler has planned
 * for it (Scheduler.plannedTasks), read up to a horizon of 2,000 tasks. Data with no known
 * next use go first, least recently used first.
 *
 * A node of one worker whose scheduler keeps a PlanIndex (dm, dmda, prio, ws, darts) reads
 * the next uses from it: the pipeline (a few tasks) is scanned, the horizon is the planned task
 * at rank 2,000 - pipeline (O(log n)), a datum's first planned use is O(log n) amortised, and
 * the walk over the node's data in LRU order stops at the first one with no use within the
 * horizon. Otherwise (several workers on the node, or a scheduler without an index) the
 * future is rescanned: O(horizon x inputs + resident data) per victim. Both give the same
 * victim.
 */
import type { EvictionContext } from '../core/policy.ts';
import type { IndexedPlanner } from '../sched/plan-index.ts';
import { FirstUses } from './first-uses.ts';
import { ListEviction } from './list-eviction.ts';

/** Furthest next use first. */
export class BeladyEviction extends ListEviction {
  override readonly name = 'belady';
  /** -1 only when no replica is evictable and allowed (EvictionPolicy.exhaustive). */
  readonly exhaustive = true;
  /** How many future tasks per node are read. */
  readonly horizon: number;
  /** Each handle's first position in the future a search reads (the pipeline, or all of it). */
  private readonly firstUse = new FirstUses();

  constructor(horizon = 2_000) {
    super();
    this.horizon = horizon;
  }

  override init(ctx: EvictionContext): void {
    super.init(ctx);
  }

  override victim(node: number, allow?: (handle: number) => boolean): number {
    const workers = this.workersOf[node]!;
    const view =
      workers.length === 1
        ? (this.ctx.scheduler as Partial<IndexedPlanner>).plannedIndex?.(workers[0]!)
        : undefined;
    return view ? this.indexedVictim(node, workers[0]!, view, allow) : this.scanVictim(node, allow);
  }

  /** The victim from the scheduler's PlanIndex, for a node of one worker. */
  private indexedVictim(
    node: number,
    worker: number,
    view: NonNullable<ReturnType<IndexedPlanner['plannedIndex']>>,
    allow?: (handle: number) => boolean,
  ): number {
    const g = this.ctx.graph;
    const { index, group } = view;
    // Positions of the pipeline's uses (they come before every planned task).
    const pipeUse = this.firstUse;
    pipeUse.begin(g.handleCount);
    const pos = pipeUse.recordTasks(g, this.ctx.pipeline(worker), 0, this.horizon);
    // Planned tasks from rank `room` on are beyond the horizon.
    const room = this.horizon - pos;
    const cut = index.size(group) > room ? index.at(group, room) : -1;
    let best = -1;
    let bestPipe = -1; // pipeline position of the best's next use, or -1
    let bestTask = -1; // planned task of the best's next use, when not in the pipeline
    const list = this.list;
    for (let s = list.nextCandidate(node, -1, this.ctx, allow); s >= 0; ) {
      const h = list.handleOf(s, node);
      s = list.nextCandidate(node, s, this.ctx, allow);
      const p = pipeUse.get(h);
      if (p >= 0) {
        if (best < 0 || (bestTask < 0 && p > bestPipe)) {
          best = h;
          bestPipe = p;
        }
        continue;
      }
      const t = index.firstUse(group, h);
      // No known next use (within the horizon): nothing comes later, the first such datum wins.
      if (t < 0 || (cut >= 0 && index.compare(t, cut) >= 0)) return h;
      if (best < 0 || bestTask < 0 || index.compare(t, bestTask) > 0) {
        best = h;
        bestTask = t;
      }
    }
    return best;
  }

  /**
   * The victim from a scan of the known future (pipelines and plannedTasks): each handle's
   * first position in it, kept in per-handle tables stamped with the scan's number (no map
   * or allocation per scan).
   */
  private scanVictim(node: number, allow?: (handle: number) => boolean): number {
    const g = this.ctx.graph;
    const firstUse = this.firstUse;
    firstUse.begin(g.handleCount);
    let pos = 0;
    for (const w of this.workersOf[node]!) {
      const futures: Iterable<number>[] = [this.ctx.pipeline(w)];
      const planned = this.ctx.scheduler.plannedTasks?.(w);
      if (planned) futures.push(planned);
      for (const future of futures) pos = firstUse.recordTasks(g, future, pos, this.horizon);
    }
    let best = -1;
    let bestUse = -1;
    const list = this.list;
    for (let s = list.nextCandidate(node, -1, this.ctx, allow); s >= 0; ) {
      const h = list.handleOf(s, node);
      s = list.nextCandidate(node, s, this.ctx, allow);
      const p = firstUse.get(h);
      const use = p >= 0 ? p : Number.POSITIVE_INFINITY;
      if (use > bestUse) {
        bestUse = use;
        best = h;
      }
    }
    return best;
  }
}
