/**
 * The bookkeeping every list-based eviction policy shares: one ReplicaList per platform (a
 * doubly linked list per node, least recently used first: a use moves the replica to the
 * tail), the context and the workers of each node. LRU and FIFO take their victims from it by
 * rank (lru.ts); LUF and Belady walk it in order to break ties (luf.ts, belady.ts). O(1) per
 * added, used or removed replica.
 */
import type { EvictionContext, EvictionPolicy } from '../core/policy.ts';
import { ReplicaList } from './replica-list.ts';

/** A replica list kept in use order; subclasses choose the victim. */
export abstract class ListEviction implements EvictionPolicy {
  abstract readonly name: string;
  /** Takes handles registered while the engine runs. */
  readonly dynamic: boolean = true;
  protected list!: ReplicaList;
  protected ctx!: EvictionContext;
  /** The workers of each memory node (for policies that read their pipelines and plans). */
  protected workersOf: number[][] = [];

  init(ctx: EvictionContext): void {
    this.ctx = ctx;
    this.list = new ReplicaList(ctx.handleCapacity, ctx.platform.nodes.length);
    this.workersOf = ctx.platform.nodes.map((_, n) =>
      ctx.platform.workers.flatMap((w, i) => (w.node === n ? [i] : [])),
    );
  }

  /** Per-handle state only: recycled tasks change nothing. */
  rebase(_k: number): void {}

  grow(_tasks: number, handles: number): void {
    this.list.grow(handles);
  }

  added(handle: number, node: number): void {
    this.list.append(handle, node);
  }

  used(handle: number, node: number): void {
    this.list.moveToTail(handle, node);
  }

  removed(handle: number, node: number): void {
    this.list.remove(handle, node);
  }

  abstract victim(node: number, allow?: (handle: number) => boolean, peek?: boolean): number;
}
