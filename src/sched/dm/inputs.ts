/**
 * The inputs of queued tasks, per (handle, node): how many tasks queued on the workers of a
 * node read a handle, and which (an intrusive doubly linked list over access indices, so
 * adding or removing a task costs O(its accesses) and walking the readers of one replica
 * costs O(those readers)). Inputs are the accesses in mode R or RW; a write-only access
 * needs no content and is not an input.
 *
 * Prefetch reads the counts (a replica some queued task of its node reads must not be
 * evicted to make room for a prefetch); the ready ordering walks the lists (a replica that
 * appears or disappears changes the non-ready count of exactly those tasks).
 */
import { growI32 } from '../../core/growable.ts';
import type { SchedContext } from '../../core/policy.ts';
import { AccessMode } from '../../core/types.ts';

/** Per (handle, node) counts and lists of queued tasks' inputs. */
export class QueuedInputs {
  /** Number of nodes (slot = handle * nodes + node). */
  nodes = 0;
  /** Queued tasks on each slot's node that read its handle. */
  count = new Int32Array(0);
  /** First access of each slot's list (-1 when empty). */
  head = new Int32Array(0);
  /** Next access in the same list (-1 ends it). */
  next = new Int32Array(0);
  /** Task of each queued access (set when its task is queued). */
  accessTask = new Int32Array(0);
  private prev = new Int32Array(0);
  private ctx!: SchedContext;

  init(ctx: SchedContext): void {
    this.ctx = ctx;
    const g = ctx.graph;
    this.nodes = ctx.platform.nodes.length;
    const slots = ctx.handleCapacity * this.nodes;
    const na = Math.max(16, g.accessHandle.length);
    this.count = new Int32Array(slots);
    this.head = new Int32Array(slots).fill(-1);
    this.next = new Int32Array(na).fill(-1);
    this.prev = new Int32Array(na).fill(-1);
    this.accessTask = new Int32Array(na);
  }

  /** Per-handle tables now hold `handles` handles (access tables grow as tasks are queued). */
  grow(handles: number): void {
    const slots = handles * this.nodes;
    this.count = growI32(this.count, slots);
    this.head = growI32(this.head, slots, -1);
  }

  private growAccesses(n: number): void {
    let cap = this.next.length;
    while (cap < n) cap *= 2;
    this.next = growI32(this.next, cap, -1);
    this.prev = growI32(this.prev, cap, -1);
    this.accessTask = growI32(this.accessTask, cap);
  }

  /** Records `task`, just queued on a worker of `node`. O(inputs). */
  add(task: number, node: number): void {
    const g = this.ctx.graph;
    const aEnd = g.accessStart.data[task + 1]!;
    if (aEnd > this.next.length) this.growAccesses(aEnd);
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      if (!(g.accessMode.data[a]! & AccessMode.R)) continue;
      this.accessTask[a] = task;
      const s = g.accessHandle.data[a]! * this.nodes + node;
      this.count[s]!++;
      const h = this.head[s]!;
      this.next[a] = h;
      this.prev[a] = -1;
      if (h >= 0) this.prev[h] = a;
      this.head[s] = a;
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
      const s = h * this.nodes + node;
      // No queued task of the node reads it any more: the prefetch filters accept it now.
      if (--this.count[s]! === 0) this.ctx.evictionFilterChanged?.(h, node);
      const p = this.prev[a]!;
      const n = this.next[a]!;
      if (p >= 0) this.next[p] = n;
      else this.head[s] = n;
      if (n >= 0) this.prev[n] = p;
      this.next[a] = -1;
      this.prev[a] = -1;
    }
  }

  /**
   * The engine recycled tasks [0, k) and accesses [0, accesses): none of them is queued (a
   * queued task has not ended), so every access index and task id this table holds shifts
   * down. O(accesses held + handles x nodes).
   */
  rebase(k: number, accesses: number): void {
    const n = this.next.length;
    const kept = Math.max(0, n - accesses);
    for (const table of [this.next, this.prev, this.accessTask]) table.copyWithin(0, accesses, n);
    this.next.fill(-1, kept);
    this.prev.fill(-1, kept);
    const { next, prev, accessTask, head } = this;
    for (let a = 0; a < kept; a++) {
      if (next[a]! >= 0) next[a]! -= accesses;
      if (prev[a]! >= 0) prev[a]! -= accesses;
      accessTask[a]! -= k;
    }
    for (let s = 0; s < head.length; s++) if (head[s]! >= 0) head[s]! -= accesses;
  }

  /** True when some task queued on `node` reads `handle`. */
  needed(handle: number, node: number): boolean {
    return this.count[handle * this.nodes + node]! > 0;
  }
}
