/**
 * The eviction index (issue 25): the evictable replicas of each node in a ranked eviction
 * policy's order (LRU, FIFO: EvictionContext.rankedVictim), split by why a filtered victim
 * search must skip them, so that a search takes the first eligible replica without walking
 * past rejected ones, and a search that finds nothing gives up at once.
 *
 * A replica's class is three bits: EVICT_DIRTY (evicting it writes it back first: the clean
 * pass skips it), EVICT_HELD (the scheduler's evictionFilter refuses it: a task queued on the
 * node reads it; kept only for a scheduler that notifies the changes of its filter,
 * SchedContext.evictionFilterChanged) and EVICT_BUFFERED (a task in a lookahead buffer of the
 * node reads it). Per node, one indexed heap per class (RankHeaps) holds its evictable
 * replicas by rank; a search for the replicas whose class has none of the bits `skip`
 * compares the tops of the (up to eight) heaps it accepts.
 *
 * Kept lazily: every change that can make a replica eligible for more searches (unpinned, its
 * copy home landed, valid again, clean, no longer held or buffered) re-places it (`touch`);
 * changes the other way leave it where it is, and a search checks each top it meets against
 * the tables, dropping a replica no longer evictable and moving one whose class changed. A
 * replica sits in the heap of its class or of a class with fewer bits, so no search misses
 * it. Built from the tables at the first search, so runs that never evict under a ranked
 * policy pay nothing.
 *
 * Cost: O(log n) per touch (n replicas of the node); per search O(1) (eight tops) plus
 * O(log n) per stale entry met, each met once per change that made it stale.
 */
import type { Engine } from '../engine.ts';
import type { RankedEviction } from '../policy.ts';
import type { MemoryManager } from './memory.ts';
import { RankHeaps } from './rank-heaps.ts';
import type { ReplicaTable } from './replicas.ts';

/** Class bit: evicting the replica writes it back first (EvictionContext.evictionCost > 0). */
export const EVICT_DIRTY = 1;
/** Class bit: the scheduler's evictionFilter refuses the replica. */
export const EVICT_HELD = 2;
/** Class bit: a task in a lookahead buffer of the node reads the replica. */
export const EVICT_BUFFERED = 4;
const CLASSES = 8;

/** Evictable replicas by node, class and rank. */
export class EvictionIndex {
  private readonly e: Engine;
  private readonly mem: MemoryManager;
  private readonly r: ReplicaTable;
  private readonly nn: number;
  private heaps: RankHeaps | undefined;
  private ranked: RankedEviction | undefined;
  /** Per node, the scheduler's filter when its changes are notified (EVICT_HELD). */
  private held: (((handle: number) => boolean) | undefined)[] | undefined;
  /**
   * Per node: touches so far, a number that changes whenever a replica of the node may have
   * become eligible for more searches (the memory manager's memo of failed searches).
   */
  private readonly generations: Float64Array;
  /** Filters whose meaning the index knows, with the class bits they refuse. */
  private readonly described = new Map<(handle: number) => boolean, number>();

  constructor(engine: Engine, memory: MemoryManager) {
    this.e = engine;
    this.mem = memory;
    this.r = engine.replicas;
    this.nn = engine.platform.nodes.length;
    this.generations = new Float64Array(this.nn);
  }

  /** Node n's generation: unchanged since a search failed means it would fail again. O(1). */
  generation(n: number): number {
    return this.generations[n]!;
  }

  /** Per-handle tables now hold `handleCap` handles. */
  grow(handleCap: number): void {
    this.heaps?.grow(handleCap * this.nn);
  }

  /**
   * The scheduler's evictionFilter per node, whose every change from refusing a replica to
   * accepting it is notified: replicas it refuses get EVICT_HELD, and the filters are known.
   */
  trackHeld(filters: (((handle: number) => boolean) | undefined)[]): void {
    this.held = filters;
    for (const f of filters) if (f) this.described.set(f, EVICT_HELD);
  }

  /** Records that `filter` accepts exactly the replicas whose class has none of `bits`. */
  describe(filter: (handle: number) => boolean, bits: number): void {
    this.described.set(filter, bits);
  }

  /** The class bits `filter` refuses, or -1 when its meaning is unknown. */
  bitsOf(filter: (handle: number) => boolean): number {
    return this.described.get(filter) ?? -1;
  }

  /** True when the scheduler's filter on `node` is tracked as EVICT_HELD. */
  tracksHeld(): boolean {
    return this.held !== undefined;
  }

  /**
   * The replica in `slot` may be eligible for more searches than before (or was allocated):
   * re-place it. A home slot re-places the handle's other replicas (their dirtiness reads the
   * home copy's state), and bumps the generation of each node re-placed. O(log n); only the
   * generations before the first search.
   */
  touch(slot: number): void {
    const nn = this.nn;
    const n = slot % nn;
    const h = (slot - n) / nn;
    const gen = this.generations;
    const heaps = this.heaps;
    if (n !== this.r.home[h]) {
      gen[n]!++;
      if (heaps !== undefined) this.place(slot, h, n);
      return;
    }
    for (let m = 0; m < nn; m++) {
      if (m === n) continue;
      gen[m]!++;
      if (heaps !== undefined) this.place(h * nn + m, h, m);
    }
  }

  /** The replica in `slot` was freed. */
  removed(slot: number): void {
    this.heaps?.remove(slot);
  }

  /**
   * The evictable replica of `node` of least rank whose class has none of the bits `skip`,
   * or -1. The first search builds the index for `ranked`.
   */
  victim(node: number, skip: number, ranked: RankedEviction): number {
    if (this.heaps === undefined) this.build(ranked);
    else if (ranked !== this.ranked) throw new Error('eviction index: asked by a second eviction policy');
    const heaps = this.heaps!;
    const nn = this.nn;
    for (;;) {
      let best = -1;
      let bestKey = Number.POSITIVE_INFINITY;
      let moved = false;
      for (let c = 0; c < CLASSES; c++) {
        if ((c & skip) !== 0) continue;
        const id = node * CLASSES + c;
        for (;;) {
          const s = heaps.top(id);
          if (s < 0) break;
          const h = (s - node) / nn;
          if (this.r.alloc[s] !== 1 || !this.mem.isEvictable(h, node)) {
            heaps.remove(s);
            continue;
          }
          const cls = this.classOf(s, h, node);
          const key = ranked.rank(h, node);
          if (cls !== c || key !== heaps.keyOf(s)) {
            heaps.place(s, node * CLASSES + cls, key);
            moved = true;
            continue;
          }
          if (key < bestKey) {
            bestKey = key;
            best = h;
          }
          break;
        }
      }
      // A replica moved to a heap already looked at may come first: look again.
      if (!moved) return best;
    }
  }

  private build(ranked: RankedEviction): void {
    this.ranked = ranked;
    const slots = this.r.alloc.length;
    this.heaps = new RankHeaps(this.nn * CLASSES, slots);
    for (let s = 0; s < slots; s++) {
      if (this.r.alloc[s] !== 1) continue;
      const n = s % this.nn;
      const h = (s - n) / this.nn;
      if (n !== this.r.home[h]) this.place(s, h, n);
    }
  }

  /** Puts an evictable replica in the heap of its class; drops a freed one. */
  private place(slot: number, h: number, n: number): void {
    const heaps = this.heaps!;
    if (this.r.alloc[slot] !== 1) {
      heaps.remove(slot);
      return;
    }
    if (!this.mem.isEvictable(h, n)) return; // dropped when a search meets it
    heaps.place(slot, n * CLASSES + this.classOf(slot, h, n), this.ranked!.rank(h, n));
  }

  private classOf(slot: number, h: number, n: number): number {
    let c = this.mem.evictionCost(h, n) > 0 ? EVICT_DIRTY : 0;
    const f = this.held?.[n];
    if (f !== undefined && !f(h)) c |= EVICT_HELD;
    if (this.e.workers.bufferedReads(slot) > 0) c |= EVICT_BUFFERED;
    return c;
  }
}
