/**
 * The inputs of queued tasks, per (handle, node): how many tasks queued on the workers of a
 * node read a handle. Adding or removing a task costs O(its accesses). Inputs are the
 * accesses in mode R or RW; a write-only access needs no content and is not an input.
 *
 * Prefetch reads the counts (a replica some queued task of its node reads must not be
 * evicted to make room for a prefetch), and so do LUF (planned uses) and the lookahead's
 * eviction filter.
 */
import { growI32 } from '../../core/growable.ts';
import type { SchedContext } from '../../core/policy.ts';
import { AccessMode } from '../../core/types.ts';

/** Per (handle, node) counts of queued tasks' inputs. */
export class QueuedInputs {
  /** Number of nodes (slot = handle * nodes + node). */
  nodes = 0;
  /** Queued tasks on each slot's node that read its handle (an access each). */
  count = new Int32Array(0);
  private ctx!: SchedContext;

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    this.nodes = ctx.platform.nodes.length;
    this.count = new Int32Array(ctx.handleCapacity * this.nodes);
  }

  /** Per-handle tables now hold `handles` handles. */
  grow(handles: number): void {
    this.count = growI32(this.count, handles * this.nodes);
  }

  /** Records `task`, just queued on a worker of `node`. O(inputs). */
  add(task: number, node: number): void {
    const g = this.ctx.graph;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      if (g.accessMode.data[a]! & AccessMode.R) this.count[g.accessHandle.data[a]! * this.nodes + node]!++;
    }
  }

  /**
   * Forgets `task`, just taken off a queue of a worker of `node`; tells the engine of each
   * input no queued task of the node reads any more (SchedContext.evictionFilterChanged).
   * O(inputs), plus O(log n) per input so released.
   */
  remove(task: number, node: number): void {
    const g = this.ctx.graph;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      if (!(g.accessMode.data[a]! & AccessMode.R)) continue;
      const h = g.accessHandle.data[a]!;
      // No queued task of the node reads it any more: the prefetch filters accept it now.
      if (--this.count[h * this.nodes + node]! === 0) this.ctx.evictionFilterChanged?.(h, node);
    }
  }

  /** True when some task queued on `node` reads `handle`. */
  needed(handle: number, node: number): boolean {
    return this.count[handle * this.nodes + node]! > 0;
  }
}
