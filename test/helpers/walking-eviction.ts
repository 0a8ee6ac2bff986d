/**
 * LRU and FIFO that always walk their lists from the head past rejected replicas (the victim
 * search before the engine's eviction index), as oracles for the indexed ones.
 */
import { FifoEviction } from '../../src/evict/fifo.ts';
import { LruEviction } from '../../src/evict/lru.ts';

/** LRU by a walk of its list. */
export class WalkingLru extends LruEviction {
  override victim(node: number, allow?: (handle: number) => boolean): number {
    return this.list.firstMatching(node, this.ctx, allow);
  }
}

/** FIFO by a walk of its list. */
export class WalkingFifo extends FifoEviction {
  override victim(node: number, allow?: (handle: number) => boolean): number {
    return this.list.firstMatching(node, this.ctx, allow);
  }
}
