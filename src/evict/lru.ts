/**
 * LRU eviction (StarPU's default, used by every scheduler of seed 000 but DARTS+LUF): the
 * victim is the evictable replica whose last use is the oldest. One doubly linked list per
 * node over the replica slots; a use moves the replica to the tail, O(1). The policy is
 * ranked (EvictionPolicy.rank: the list order), so the memory manager finds victims in its
 * eviction index, O(1) per search plus O(log n) per change of a replica
 * (core/data/eviction-index.ts); victim() itself, asked only with filters the index cannot apply, walks from the
 * head past the replicas it must reject: O(rejected) per victim.
 */
import { ListEviction } from './list-eviction.ts';

/** LOCUS_CHECK_EVICTION_INDEX=1: every indexed victim is checked against the list walk. */
const CHECK_INDEX = globalThis.process?.env?.LOCUS_CHECK_EVICTION_INDEX === '1';

/** Least recently used first. */
export class LruEviction extends ListEviction {
  readonly name: string = 'lru';

  /** The replica's place in the list: the victim is the accepted one of least rank. */
  rank(handle: number, node: number): number {
    return this.list.rank(handle, node);
  }

  victim(node: number, allow?: (handle: number) => boolean): number {
    const v = this.ctx.rankedVictim?.(node, this, allow) ?? -2;
    if (v === -2) return this.list.firstMatching(node, this.ctx, allow);
    if (CHECK_INDEX) {
      const walked = this.list.firstMatching(node, this.ctx, allow);
      if (walked !== v)
        throw new Error(`eviction index: victim ${v} on node ${node}, the list walk gives ${walked}`);
    }
    return v;
  }
}
