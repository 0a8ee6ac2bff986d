/**
 * LUF, Least Used in the Future (seed 000, section 3.2, Algorithm 3), DARTS's eviction
 * policy. Among the evictable data of a GPU: if some are used by no task of its taskBuffer
 * (the tasks it has popped and not finished: the engine's pipeline), evict the one used by the
 * fewest tasks of its plannedTasks; otherwise apply Belady's rule to the taskBuffer (evict the
 * datum whose next use there is the furthest). Then the planned tasks that read the victim go
 * back to the shared pool (line 10) and the victim back to dataNotInMem (through the
 * scheduler's removal notification, line 11). Ties go to the least recently used datum.
 * Works with any scheduler exposing plannedTasks. Planned uses come in O(1) from DARTS's
 * counts, or from the scheduler's PlanIndex (dm, dmda, prio, ws) for a node of one worker;
 * otherwise the planned tasks are rescanned. Cost per victim: O(pipeline depth x inputs +
 * resident data), plus O(planned tasks x inputs) for the rescan. Under prio the index counts
 * every queued task, where the rescan reads the first PRIO_PLANNED_CAP.
 */
import type { EvictionContext } from '../core/policy.ts';
import { LocusError } from '../core/types.ts';
import type { IndexedPlanner } from '../sched/plan-index.ts';
import { FirstUses } from './first-uses.ts';
import { ListEviction } from './list-eviction.ts';

/** A scheduler that counts planned uses of a datum per worker and can unplan tasks (DARTS). */
interface PlanningScheduler extends Partial<IndexedPlanner> {
  plannedUsesOf?(worker: number, handle: number): number;
  unplan?(handle: number, node: number): void;
}

/** Least used in the future, then Belady on the task buffer. */
export class LufEviction extends ListEviction {
  override readonly name = 'luf';
  /** -1 only when no replica is evictable and allowed (EvictionPolicy.exhaustive). */
  readonly exhaustive = true;
  private sched!: PlanningScheduler & EvictionContext['scheduler'];
  /** Each datum's first position in the task buffers (the Belady key of the victim search). */
  private readonly nextUse = new FirstUses();

  override init(ctx: EvictionContext): void {
    super.init(ctx);
    this.sched = ctx.scheduler as PlanningScheduler & EvictionContext['scheduler'];
    if (!this.sched.plannedTasks) {
      throw new LocusError(
        'LOCUS_POLICY_INCOMPATIBLE',
        `eviction luf needs a scheduler that plans tasks ahead (darts, dm*, ws, prio); '${ctx.scheduler.name}' does not`,
      );
    }
  }

  override victim(node: number, allow?: (handle: number) => boolean, peek = false): number {
    const g = this.ctx.graph;
    const workers = this.workersOf[node]!;
    // Next use of each datum in the task buffers, by position (Belady's key).
    const nextUse = this.nextUse;
    nextUse.begin(g.handleCount);
    let pos = 0;
    for (const w of workers)
      pos = nextUse.recordTasks(g, this.ctx.pipeline(w), pos, Number.POSITIVE_INFINITY);
    const view =
      !this.sched.plannedUsesOf && workers.length === 1 ? this.sched.plannedIndex?.(workers[0]!) : undefined;
    const planned = this.sched.plannedUsesOf || view ? undefined : this.countPlanned(workers);
    let best = -1;
    let bestPlanned = Number.POSITIVE_INFINITY;
    let belady = -1;
    let beladyUse = -1;
    const list = this.list;
    for (let s = list.nextCandidate(node, -1, this.ctx, allow); s >= 0; ) {
      const h = list.handleOf(s, node);
      s = list.nextCandidate(node, s, this.ctx, allow);
      const use = nextUse.get(h);
      if (use < 0) {
        let np = 0;
        if (planned) np = planned.get(h) ?? 0;
        else if (view) np = view.index.usesIn(view.group, h);
        else for (const w of workers) np += this.sched.plannedUsesOf!(w, h);
        if (np < bestPlanned) {
          bestPlanned = np;
          best = h;
        }
      } else if (use > beladyUse) {
        beladyUse = use;
        belady = h;
      }
    }
    const victim = best >= 0 ? best : belady;
    if (victim >= 0 && !peek) this.sched.unplan?.(victim, node);
    return victim;
  }

  private countPlanned(workers: number[]): Map<number, number> {
    const g = this.ctx.graph;
    const counts = new Map<number, number>();
    for (const w of workers) {
      for (const t of this.ctx.scheduler.plannedTasks!(w)) {
        for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
          const h = g.accessHandle.data[a]!;
          counts.set(h, (counts.get(h) ?? 0) + 1);
        }
      }
    }
    return counts;
  }
}
