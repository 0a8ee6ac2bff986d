/**
 * LRU eviction (StarPU's default, used by every scheduler of seed 000 but DARTS+LUF): the
 * victim is the evictable replica whose last use is the oldest. One doubly linked list per
 * node over the replica slots; a use moves the replica to the tail, O(1); a victim search
 * walks from the head past pinned replicas (few: those of running and queued tasks).
 */
import type { EvictionContext, EvictionPolicy } from '../core/policy.ts';
import { ReplicaList } from './replica-list.ts';

/** Least recently used first. */
export class LruEviction implements EvictionPolicy {
  readonly name: string = 'lru';
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

  victim(node: number, allow?: (handle: number) => boolean): number {
    return this.list.firstMatching(node, this.ctx, allow);
  }
}
