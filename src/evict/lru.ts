/**
 * LRU eviction (StarPU's default, used by every scheduler of seed 000 but DARTS+LUF): the
 * victim is the evictable replica whose last use is the oldest. One doubly linked list per
 * node over the replica slots; a use moves the replica to the tail, O(1). A victim search
 * walks from the head past the replicas it must reject: O(rejected) per victim, few with the
 * engine's filters alone. Under a scheduler whose filter refuses most of memory (dm*'s
 * prefetches) or with many modified replicas, walks grow long: the policy, ranked (rank: the
 * list order), then asks the engine's eviction index (core/data/eviction-index.ts), O(1) per
 * search plus O(log n) per change of a replica, which costs more than a short walk. It
 * switches once a window of searches averages more than LONG_WALK replicas per walk, for
 * good; the victims are the same either way.
 */
import { ListEviction } from './list-eviction.ts';

/** LOCUS_CHECK_EVICTION_INDEX=1: the index from the first search, every victim checked against the walk. */
const CHECK_INDEX = globalThis.process?.env?.LOCUS_CHECK_EVICTION_INDEX === '1';
/** Searches per window over which the walks' length is judged. */
const WINDOW = 256;
/** Replicas a walk may look at on average (over a window) before the index takes over. */
const LONG_WALK = 16;

/** When victims come from the engine's eviction index: 'auto' once walks grow long. */
export type IndexUse = 'auto' | 'always' | 'never';

/** Least recently used first. */
export class LruEviction extends ListEviction {
  readonly name: string = 'lru';
  /** -1 only when no replica is evictable and allowed (EvictionPolicy.exhaustive). */
  readonly exhaustive = true;
  private readonly use: IndexUse;
  private indexed: boolean;
  private searches = 0;
  private windowSteps = 0;

  /**
   * `use`: 'auto' (default) walks the list while walks stay short (a window of searches that
   * looks at more than LONG_WALK replicas per search on average switches to the index for
   * good; maintaining the index costs more than a short walk), 'always' or 'never'.
   */
  constructor(use: IndexUse = CHECK_INDEX ? 'always' : 'auto') {
    super();
    this.use = use;
    this.indexed = use === 'always';
  }

  /** True once victims come from the engine's eviction index. */
  get usesIndex(): boolean {
    return this.indexed;
  }

  /** The replica's place in the list: the victim is the accepted one of least rank. */
  rank(handle: number, node: number): number {
    return this.list.rank(handle, node);
  }

  victim(node: number, allow?: (handle: number) => boolean): number {
    if (this.indexed) {
      const v = this.ctx.rankedVictim?.(node, this, allow) ?? -2;
      if (v !== -2) {
        if (CHECK_INDEX) {
          const walked = this.list.firstMatching(node, this.ctx, allow);
          if (walked !== v)
            throw new Error(`eviction index: victim ${v} on node ${node}, the list walk gives ${walked}`);
        }
        return v;
      }
    }
    const v = this.list.firstMatching(node, this.ctx, allow);
    if (this.use === 'auto' && !this.indexed && ++this.searches === WINDOW) {
      // Same victims either way: the switch changes the cost only.
      this.indexed =
        this.list.steps - this.windowSteps > LONG_WALK * WINDOW && this.ctx.rankedVictim !== undefined;
      this.searches = 0;
      this.windowSteps = this.list.steps;
    }
    return v;
  }
}
