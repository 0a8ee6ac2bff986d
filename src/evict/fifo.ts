/**
 * FIFO eviction: the victim is the evictable replica loaded first, whatever its later uses.
 * Same list as LRU without the move on use.
 */
import { LruEviction } from './lru.ts';

/** First loaded, first evicted. */
export class FifoEviction extends LruEviction {
  override readonly name = 'fifo';

  override used(): void {}
}
