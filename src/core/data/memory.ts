/**
 * The memory manager (StarPU's datawizard "memalloc"): per memory node, bytes used against
 * capacity, allocation and release of replicas, pins, and eviction through the eviction
 * policy. A replica pinned by a queued or running task or by a transfer is never taken; a
 * modified victim, the only valid copy, is written back to its home first and its memory
 * counted as being freed until that copy lands (`freeing`), so memory never exceeds capacity
 * and no modified data is lost.
 *
 * Clean first (EngineOptions.cleanFirst, on by default): a victim is asked of the eviction
 * policy among the clean replicas first (valid elsewhere, nothing to write back), and among
 * the dirty ones only when no clean one qualifies, so each policy keeps its own order within
 * each group. StarPU's allocator does the same in effect: it reuses a clean buffer and skips
 * buffers holding the only valid copy, whose eviction costs a write-back on a shared bus.
 *
 * wontUse hints (TaskGraph.wontUse, StarPU's starpu_data_wont_use): a hinted datum's modified
 * replicas are written back home at once (EARLY_WRITEBACK, when no task writes them), and its
 * replicas are flagged F_WONTUSE and listed per node: a victim is taken among them, oldest
 * hint first, before the eviction policy is asked. A task using the replica again clears it.
 * Schedulers give the same hint through SchedContext.wontUse, applied at once (hint(h)).
 *
 * Victims of a ranked policy (LRU, FIFO) come from the eviction index (eviction-index.ts):
 * the evictable replicas by rank, apart by what a filter may refuse (modified; held by the
 * scheduler's filter; read by a buffered task), so a search never walks past rejected
 * replicas. The filters it knows: none, the clean pass (cleanFilter), the scheduler's
 * evictionFilter when it notifies its changes, and the lookahead buffers' (described by the
 * worker pipelines); others (tidy's, a custom scheduler's) go to the policy's own walk.
 *
 * Clean buffers (EngineOptions.minClean / targetClean, StarPU's STARPU_MINIMUM_CLEAN_BUFFERS /
 * STARPU_TARGET_CLEAN_BUFFERS, memalloc.c's starpu_memchunk_tidy): per node, the replicas it
 * holds are counted, and those dirty (modified, off their home, no copy home in flight); a
 * replica whose write-back is in flight counts as clean, as StarPU marks a chunk clean when it
 * submits its write-back. After each event (tidy), on every node but host memory where fewer
 * than minClean% of the replicas are clean (StarPU's integer rule: clean < count x min / 100),
 * modified replicas are written back home (EARLY_WRITEBACK, a prefetch's priority) in the
 * eviction policy's victim order, until targetClean% are clean, only while no transfer is in
 * flight on the route to host memory (StarPU pushes these as idle requests, when its node's
 * fetch and prefetch queues are empty). Only replicas the policy could evict now go
 * (unpinned: no queued or running task writes them), and only when their home copy is stale.
 * Off (0) by default in Locus; StarPU's defaults are 5 and 10.
 */

import type { Engine } from '../engine.ts';
import { IntList } from '../growable.ts';
import type { EvictionPolicy, RankedEviction } from '../policy.ts';
import { Cmd, TransferKind } from '../protocol.ts';
import { EVICT_DIRTY, EvictionIndex } from './eviction-index.ts';
import {
  F_DROP,
  F_EVICTING,
  F_WONTUSE,
  F_WRITEBACK,
  F_WRITING,
  type FreeReason,
  Replica,
  type ReplicaTable,
} from './replicas.ts';

/** LOCUS_CHECK_EVICTION_INDEX=1: a search the memo skips is run anyway and must find nothing. */
const CHECK_MEMO = globalThis.process?.env?.LOCUS_CHECK_EVICTION_INDEX === '1';

/** Capacity, allocation and eviction of every memory node. */
export class MemoryManager {
  /** Bytes allocated per node. */
  readonly used: Float64Array;
  /** Bytes of victims being written back (freed when their copy lands) per node. */
  readonly freeing: Float64Array;
  /** Capacity per node in bytes. */
  readonly capacity: Float64Array;
  private readonly e: Engine;
  private readonly r: ReplicaTable;
  private readonly eviction: EvictionPolicy;
  private readonly nn: number;
  /** Prefer clean victims (see the file's comment). */
  readonly cleanFirst: boolean;
  /**
   * Write-backs no task waits for yet (a prefetch's evictions, hinted replicas) take a
   * prefetch's priority on the links (EngineOptions.lazyWritebacks).
   */
  readonly lazyWritebacks: boolean;
  // The clean-only filter, allocated once: it reads the node and the caller's filter here.
  private filterNode = 0;
  private filterAllow: ((handle: number) => boolean) | undefined = undefined;
  private readonly cleanFilter = (h: number): boolean =>
    this.evictionCost(h, this.filterNode) === 0 && (this.filterAllow === undefined || this.filterAllow(h));

  /** The evictable replicas by class and rank, for ranked eviction policies (eviction-index.ts). */
  readonly index: EvictionIndex;

  /**
   * Per node and filter class bits (n * 8 + bits): the eviction index's generation of n when
   * a policy search with that filter last found nothing (-1: none). See policyVictim.
   */
  private readonly failedAt: Float64Array;
  /** Per node: the last filter policyVictim was given, its inner filter, and their bits. */
  private readonly lastFilter: (((handle: number) => boolean) | undefined | null)[];
  private readonly lastInner: (((handle: number) => boolean) | undefined | null)[];
  private readonly lastBits: Int32Array;

  /** Per node, handles given a wontUse hint (stale entries are dropped as they are met). */
  private readonly hinted: IntList[];
  /** Length at which a node's hinted list is next purged of stale entries. */
  private readonly hintedCap: Int32Array;

  /** Replicas allocated per node (home ones included). */
  readonly count: Int32Array;
  /** Dirty replicas per node: modified, off home, no copy home in flight (see sync). */
  readonly dirty: Int32Array;
  /** Percent of a node's replicas below which clean ones are made (0: off). */
  readonly minClean: number;
  /** Percent of a node's replicas clean once early write-backs stop. */
  readonly targetClean: number;
  /** Early write-backs issued to keep memory clean. */
  tidyWritebacks = 0;
  private readonly tidyFilter = (h: number): boolean => {
    const r = this.r;
    const slot = h * this.nn + this.filterNode;
    return (
      r.state[slot] === Replica.MODIFIED &&
      (r.flags[slot]! & F_WRITING) === 0 &&
      r.state[h * this.nn + r.home[h]!] === Replica.INVALID &&
      this.e.transfers.routeIdle(this.filterNode, r.home[h]!)
    );
  };

  constructor(engine: Engine, cleanFirst = true, minClean = 0, targetClean = 0, lazyWritebacks = false) {
    this.cleanFirst = cleanFirst;
    this.lazyWritebacks = lazyWritebacks;
    this.minClean = minClean;
    this.targetClean = targetClean;
    this.hinted = engine.platform.nodes.map(() => new IntList(16));
    this.hintedCap = new Int32Array(engine.platform.nodes.length).fill(1024);
    this.e = engine;
    this.r = engine.replicas;
    this.eviction = engine.eviction;
    const nodes = engine.platform.nodes;
    this.nn = nodes.length;
    this.used = new Float64Array(this.nn);
    this.freeing = new Float64Array(this.nn);
    this.capacity = new Float64Array(nodes.map((n) => n.capacity));
    this.count = new Int32Array(this.nn);
    this.dirty = new Int32Array(this.nn);
    this.index = new EvictionIndex(engine, this);
    this.failedAt = new Float64Array(this.nn * 8).fill(-1);
    this.lastFilter = new Array(this.nn).fill(null);
    this.lastInner = new Array(this.nn).fill(null);
    this.lastBits = new Int32Array(this.nn).fill(-1);
  }

  /** Per-handle tables now hold `handleCap` handles. */
  grow(handleCap: number): void {
    this.index.grow(handleCap);
  }

  /**
   * The replica in `slot` may have become eligible for more victim searches (unpinned, valid,
   * clean, no longer refused by a filter): the eviction index re-places it. O(log n).
   */
  changed(slot: number): void {
    this.index.touch(slot);
  }

  /**
   * EvictionContext.rankedVictim: the evictable replica of node n of least rank that `allow`
   * accepts, from the eviction index, or -1; -2 when the index does not know what `allow`
   * means. O(1) amortised (see eviction-index.ts).
   */
  rankedVictim(n: number, ranked: RankedEviction, allow: ((handle: number) => boolean) | undefined): number {
    const skip = this.filterBits(allow);
    return skip < 0 ? -2 : this.index.victim(n, skip, ranked);
  }

  /** The index's class bits `allow` refuses, -1 when it does not know the filter. */
  private filterBits(allow: ((handle: number) => boolean) | undefined): number {
    if (allow === undefined) return 0;
    if (allow === this.cleanFilter) {
      const b = this.filterBits(this.filterAllow);
      return b < 0 ? -1 : b | EVICT_DIRTY;
    }
    return this.index.bitsOf(allow);
  }

  /**
   * Brings the dirty count of `slot`'s node up to date after its state or flags changed
   * (every site that makes a replica modified, clean, invalid or starts or ends its copy home
   * calls it), and re-places it in the eviction index. O(1) for the count, nothing when the
   * clean-buffer knobs are off; O(log n) for the index once it is built.
   */
  sync(slot: number): void {
    this.index.touch(slot);
    if (this.minClean <= 0) return;
    const r = this.r;
    const n = slot % this.nn;
    const h = (slot - n) / this.nn;
    const d =
      n !== r.home[h] && r.state[slot] === Replica.MODIFIED && (r.flags[slot]! & F_WRITEBACK) === 0 ? 1 : 0;
    if (d !== r.dirtyMark[slot]) {
      r.dirtyMark[slot] = d;
      this.dirty[n]! += d === 1 ? 1 : -1;
    }
  }

  /**
   * Early write-backs to keep each node's share of clean replicas (see the file's comment);
   * the engine calls it after each event. Returns the write-backs issued.
   */
  tidy(): number {
    if (this.minClean <= 0) return 0;
    const host = this.e.platform.homeNode;
    const r = this.r;
    let issued = 0;
    for (let n = 0; n < this.nn; n++) {
      if (n === host) continue;
      const nb = this.count[n]!;
      let clean = nb - this.dirty[n]!;
      if (clean >= Math.floor((nb * this.minClean) / 100)) continue;
      if (!this.e.transfers.routeIdle(n, host)) continue;
      const target = Math.floor((nb * this.targetClean) / 100);
      this.filterNode = n;
      while (clean < target) {
        const v = this.eviction.victim(n, this.tidyFilter, true);
        if (v < 0) break;
        const slot = v * this.nn + n;
        r.flags[slot]! |= F_WRITEBACK;
        this.e.transfers.issue(v, n, r.home[v]!, TransferKind.EARLY_WRITEBACK, true);
        clean++;
        issued++;
      }
    }
    this.tidyWritebacks += issued;
    return issued;
  }

  /** Takes memory for `h` on `n` and gives the replica `state`. */
  allocate(h: number, n: number, state: number): void {
    const e = this.e;
    const slot = h * this.nn + n;
    this.r.alloc[slot] = 1;
    this.r.state[slot] = state;
    this.used[n]! += e.graph.handleSize.data[h]!;
    this.count[n]!++;
    this.eviction.added(h, n);
    this.index.touch(slot);
    if (state === Replica.LOADING) e.scheduler.dataRequested?.(h, n);
    const peak = e.counters.peakMemory;
    if (this.used[n]! > peak[n]!) peak[n] = this.used[n]!;
    const hooks = e.hooks.replicaAllocated;
    for (let i = 0; i < hooks.length; i++) hooks[i]!(h, n, e.nowS);
  }

  /** Frees the replica of `h` on `n` (emits FREE). */
  free(h: number, n: number, reason: FreeReason): void {
    const e = this.e;
    const slot = h * this.nn + n;
    this.r.alloc[slot] = 0;
    this.r.state[slot] = Replica.INVALID;
    this.r.flags[slot] = 0;
    this.sync(slot);
    this.used[n]! -= e.graph.handleSize.data[h]!;
    this.count[n]!--;
    this.eviction.removed(h, n);
    this.index.removed(slot);
    e.emit(Cmd.FREE, h, n);
    if (reason === 'evict') e.counters.evictions[n]!++;
    else if (reason === 'discard') e.counters.discardedBytes += e.graph.handleSize.data[h]!;
    const hooks = e.hooks.replicaFreed;
    for (let i = 0; i < hooks.length; i++) hooks[i]!(h, n, reason, e.nowS);
    e.scheduler.dataRemoved?.(h, n, reason);
    e.requests.markDirty(n);
    e.workers.replicaFreed(h, n);
  }

  /** Drops one pin of `slot`; an invalid replica off its home is freed once unpinned. */
  unpin(slot: number, reason: FreeReason): void {
    const r = this.r;
    if (--r.pins[slot]! > 0) return;
    const n = slot % this.nn;
    const h = (slot - n) / this.nn;
    if (n !== r.home[h] && r.alloc[slot] === 1 && r.state[slot] === Replica.INVALID) {
      this.free(h, n, reason === 'discard' ? 'discard' : 'invalidate');
    } else if (
      (r.flags[slot]! & (F_DROP | F_WRITEBACK)) === F_DROP &&
      n !== r.home[h] &&
      r.alloc[slot] === 1 &&
      r.state[slot] !== Replica.MODIFIED
    ) {
      // Dropped after its task by a coherence policy; the copies that read it are done.
      this.free(h, n, 'evict');
    } else {
      this.index.touch(slot);
      this.e.requests.markDirty(n);
    }
  }

  /** True when the policy may take the replica of `h` on `n`: valid, unpinned, off home, no copy home in flight. */
  isEvictable(h: number, n: number): boolean {
    const r = this.r;
    const slot = h * this.nn + n;
    const s = r.state[slot]!;
    return (
      n !== r.home[h] &&
      (s === Replica.SHARED || s === Replica.MODIFIED) &&
      r.pins[slot] === 0 &&
      (r.flags[slot]! & F_WRITEBACK) === 0
    );
  }

  /**
   * Bytes an eviction of the replica of `h` on `n` writes back first: its size when it is
   * modified (the only valid copy), 0 when it is clean, its value is dead (a ready task
   * overwrites the home copy without reading it) or already at home or on its way there
   * (Transfers.homeHasValue).
   */
  evictionCost(h: number, n: number): number {
    const r = this.r;
    if (r.state[h * this.nn + n] !== Replica.MODIFIED) return 0;
    if (r.state[h * this.nn + r.home[h]!] === Replica.ALLOCATED) return 0;
    if (this.e.transfers.homeHasValue(h)) return 0;
    return this.e.graph.handleSize.data[h]!;
  }

  /**
   * Applies a wontUse hint to `h`: its modified replicas off home are written back now (unless
   * a task writes them, a copy home is on its way, or the home copy is being rewritten), and
   * every replica off home is flagged to go first. Returns the write-backs issued.
   */
  hint(h: number): number {
    const r = this.r;
    const nn = this.nn;
    const home = r.home[h]!;
    let issued = 0;
    for (let n = 0; n < nn; n++) {
      const slot = h * nn + n;
      if (n === home || r.alloc[slot] !== 1) continue;
      const s = r.state[slot]!;
      if (s === Replica.INVALID) continue;
      if ((r.flags[slot]! & F_WONTUSE) === 0) {
        r.flags[slot]! |= F_WONTUSE;
        const list = this.hinted[n]!;
        // Entries of replicas freed or used again since go when a victim is sought; a node
        // that never runs short would keep them all: drop them once the list doubles.
        if (list.length >= this.hintedCap[n]!) {
          this.dropStaleHints(n);
          this.hintedCap[n] = Math.max(1024, 2 * list.length);
        }
        list.push(h);
      }
      if (
        s === Replica.MODIFIED &&
        (r.flags[slot]! & (F_WRITEBACK | F_WRITING)) === 0 &&
        r.state[h * nn + home] === Replica.INVALID
      ) {
        r.flags[slot]! |= F_WRITEBACK;
        this.e.transfers.issue(h, n, home, TransferKind.EARLY_WRITEBACK, false, this.lazyWritebacks);
        issued++;
      }
    }
    return issued;
  }

  /** Removes the entries of node n's hinted list whose replica is no longer flagged. */
  private dropStaleHints(n: number): void {
    const list = this.hinted[n]!;
    const d = list.data;
    const r = this.r;
    let kept = 0;
    for (let i = 0; i < list.length; i++) {
      const slot = d[i]! * this.nn + n;
      if ((r.flags[slot]! & F_WONTUSE) !== 0 && r.alloc[slot] === 1) d[kept++] = d[i]!;
    }
    list.length = kept;
  }

  /**
   * The oldest hinted replica of node n that may go now (only clean ones with `clean`), or -1;
   * entries no longer flagged are dropped from the list.
   */
  private hintedVictim(n: number, allow: ((handle: number) => boolean) | undefined, clean: boolean): number {
    const list = this.hinted[n]!;
    if (list.length === 0) return -1;
    const r = this.r;
    const d = list.data;
    let kept = 0;
    let found = -1;
    for (let i = 0; i < list.length; i++) {
      const h = d[i]!;
      const slot = h * this.nn + n;
      if ((r.flags[slot]! & F_WONTUSE) === 0 || r.alloc[slot] !== 1) continue;
      d[kept++] = h;
      if (found >= 0 || !this.isEvictable(h, n) || (allow !== undefined && !allow(h))) continue;
      if (!clean || this.evictionCost(h, n) === 0) found = h;
    }
    list.length = kept;
    return found;
  }

  /**
   * The next victim on node n, or -1 when none may go. With cleanFirst: a clean hinted replica,
   * a clean one of the eviction policy's, a dirty hinted one, a dirty one of the policy's;
   * without: a hinted replica, else the policy's choice.
   */
  private pickVictim(n: number, allow: ((handle: number) => boolean) | undefined): number {
    const hinted = this.hintedVictim(n, allow, this.cleanFirst);
    if (hinted >= 0) return hinted;
    if (this.cleanFirst) {
      this.filterNode = n;
      this.filterAllow = allow;
      const v = this.policyVictim(n, this.cleanFilter);
      this.filterAllow = undefined;
      if (v >= 0) return v;
      const dirty = this.hintedVictim(n, allow, false);
      if (dirty >= 0) return dirty;
    }
    return this.policyVictim(n, allow);
  }

  /**
   * The eviction policy's victim on node n among what `allow` accepts, or -1. An exhaustive
   * policy (EvictionPolicy.exhaustive) is not asked again with a filter the eviction index
   * knows while a search with it failed and no replica of n became more eligible since (the
   * index's generation of n): the same search fails again, so a prefetch retried at every
   * event costs O(1) rather than a walk of the node's data. LOCUS_CHECK_EVICTION_INDEX=1 asks
   * anyway and checks that it finds nothing.
   */
  private policyVictim(n: number, allow: ((handle: number) => boolean) | undefined): number {
    if (this.eviction.exhaustive !== true) return this.eviction.victim(n, allow);
    // The filter's bits, remembered per node for the last filter asked (a filter's meaning
    // never changes once the index knows it): no map lookup per search.
    const inner = allow === this.cleanFilter ? this.filterAllow : undefined;
    let bits = this.lastBits[n]!;
    if (allow !== this.lastFilter[n] || inner !== this.lastInner[n]) {
      bits = this.filterBits(allow);
      this.lastFilter[n] = allow;
      this.lastInner[n] = inner;
      this.lastBits[n] = bits;
    }
    if (bits < 0) return this.eviction.victim(n, allow);
    const key = n * 8 + bits;
    const gen = this.index.generation(n);
    if (this.failedAt[key] === gen) {
      if (CHECK_MEMO && this.eviction.victim(n, allow, true) >= 0)
        throw new Error(
          `eviction memo: a search on node ${n} (filter bits ${bits}) failed, yet finds a victim now`,
        );
      return -1;
    }
    const v = this.eviction.victim(n, allow);
    if (v < 0) this.failedAt[key] = gen;
    return v;
  }

  /**
   * Evicts replicas of node n chosen by the eviction policy until `bytes` more fit. A
   * modified victim is written back home first (its memory is freed when that completes).
   * Returns true when the bytes fit now; false when they must wait.
   */
  makeSpace(
    n: number,
    bytes: number,
    allow?: (handle: number) => boolean,
    forPrefetch = false,
    waiting = 0,
  ): boolean {
    const r = this.r;
    const cap = this.capacity[n]!;
    while (this.used[n]! - this.freeing[n]! + bytes + waiting > cap) {
      const v = this.pickVictim(n, allow);
      if (v < 0) return false;
      if (!this.isEvictable(v, n)) {
        throw new Error(
          `eviction policy ${this.eviction.name} chose ${v} on node ${n}, which is not evictable`,
        );
      }
      const slot = v * this.nn + n;
      const home = r.home[v]!;
      if (r.state[v * this.nn + home] === Replica.ALLOCATED) {
        // A ready task will overwrite the home copy (write-only access): the value is dead.
        this.free(v, n, 'evict');
      } else if (r.state[slot] === Replica.MODIFIED && !this.e.transfers.homeHasValue(v)) {
        r.flags[slot]! |= F_WRITEBACK | F_EVICTING;
        this.freeing[n]! += this.e.graph.handleSize.data[v]!;
        this.e.transfers.issue(v, n, home, TransferKind.WRITEBACK, false, forPrefetch && this.lazyWritebacks);
      } else {
        this.free(v, n, 'evict');
      }
    }
    return this.used[n]! + bytes <= cap;
  }
}
