/**
 * Transfers, routing and staging (StarPU's datawizard requests between nodes and
 * "write_back"): each copy gets an id whose handle, source, destination, kind and version
 * sit in flat tables the drivers read. A fetch picks the valid replica with the fastest
 * modelled route; when no device can reach the destination directly (no peer-to-peer), the
 * content is staged through the handle's home (a STAGE copy into the home replica, then a
 * forward), as seed 001's chained requests do. A copy that lands after its handle was
 * written again is stale: it is dropped, and refetched if a task still waits for it.
 */

import type { Engine } from '../engine.ts';
import { IntList } from '../growable.ts';
import { Cmd, TransferKind } from '../protocol.ts';
import { F_AGAIN, F_EVICTING, F_WRITEBACK, F_WRITING, Replica, type ReplicaTable } from './replicas.ts';

/** The transfer tables and the copy logic. */
export class Transfers {
  /** Handle of each transfer. */
  readonly handle = new IntList(256);
  /** Source node of each transfer. */
  readonly src = new IntList(256);
  /** Destination node of each transfer. */
  readonly dst = new IntList(256);
  /** Kind of each transfer (TransferKind). */
  readonly kind = new IntList(256);
  /** 1 when a task waits for the transfer: drivers serve these before prefetches. */
  readonly urgent = new IntList(256);
  /** Version of the handle the copy carries. */
  private readonly version = new IntList(256);
  /** 1 when the transfer counts on its route's links (all but low-priority early write-backs). */
  private readonly busy = new IntList(256);
  /** Transfers issued and not finished. */
  inFlight = 0;
  /** Per node: copies in flight into it (low-priority early write-backs apart). */
  readonly inbound: Int32Array;
  /** Per node: lazy write-backs from it in flight, not made urgent yet (see promoteLazy). */
  private readonly lazy: Set<number>[];
  /**
   * Reuse the ids of finished transfers (the engine's `recycle` option: an endless stream
   * then holds as many transfer records as copies in flight at once). Off by default, so
   * ids number the copies in issue order.
   */
  recycle = false;
  private readonly freeIds = new IntList(64);
  /**
   * Transfers in flight crossing each link, low-priority early write-backs apart (the memory
   * manager issues those only while the route home counts 0).
   */
  private readonly linkBusy: Int32Array;
  // Links of every direct route, flattened: route r's are routeLinks[routeStart[r] .. routeStart[r + 1]).
  private readonly routeStart: Int32Array;
  private readonly routeLinks: Int32Array;
  private readonly e: Engine;
  private readonly r: ReplicaTable;
  private readonly nn: number;
  /** The disk node (out of core, src/platform/disk.ts), -1 without one. */
  private readonly disk: number;
  /** Host memory's node. */
  private readonly host: number;

  constructor(engine: Engine) {
    this.e = engine;
    this.r = engine.replicas;
    this.nn = engine.platform.nodes.length;
    this.disk = engine.platform.nodes.findIndex((n) => n.kind === 'disk');
    this.host = engine.platform.homeNode;
    const p = engine.platform;
    this.linkBusy = new Int32Array(p.links.length);
    this.inbound = new Int32Array(this.nn);
    this.lazy = Array.from({ length: this.nn }, () => new Set<number>());
    this.routeStart = new Int32Array(this.nn * this.nn + 1);
    const flat: number[] = [];
    for (let r = 0; r < this.nn * this.nn; r++) {
      this.routeStart[r] = flat.length;
      for (const l of p.routes[r] ?? []) flat.push(l);
    }
    this.routeStart[this.nn * this.nn] = flat.length;
    this.routeLinks = Int32Array.from(flat);
  }

  /** True when no transfer in flight (but low-priority early write-backs) crosses the route from src to dst. */
  routeIdle(src: number, dst: number): boolean {
    const r = src * this.nn + dst;
    for (let i = this.routeStart[r]!; i < this.routeStart[r + 1]!; i++) {
      if (this.linkBusy[this.routeLinks[i]!]! > 0) return false;
    }
    return true;
  }

  /** Adds `d` to the busy count of every link of the route from src to dst. */
  private markRoute(src: number, dst: number, d: number): void {
    const r = src * this.nn + dst;
    for (let i = this.routeStart[r]!; i < this.routeStart[r + 1]!; i++)
      this.linkBusy[this.routeLinks[i]!]! += d;
  }

  /**
   * A fetch on node n waits for memory: the lazy write-backs from n in flight (issued with a
   * prefetch's priority, EngineOptions.lazyWritebacks) become URGENT, since their memory is
   * what it waits for.
   */
  promoteLazy(n: number): void {
    const ids = this.lazy[n]!;
    if (ids.size === 0) return;
    for (const id of ids) this.makeUrgent(id);
    ids.clear();
  }

  /** Transfer `id`, a prefetch so far, is now waited for by a task: URGENT. */
  makeUrgent(id: number): void {
    if (id >= 0 && this.urgent.data[id] === 0) {
      this.urgent.data[id] = 1;
      this.e.emit(Cmd.URGENT, id, 0);
    }
  }

  /** Brings valid content of h into the LOADING replica on node dst. */
  fetch(h: number, dst: number, kind: number): void {
    const r = this.r;
    const nn = this.nn;
    const model = this.e.model;
    const bytes = this.e.graph.handleSize.data[h]!;
    let best = -1;
    let bestTime = Number.POSITIVE_INFINITY;
    let anyValid = -1;
    for (let m = 0; m < nn; m++) {
      if (m === dst) continue;
      const s = r.state[h * nn + m]!;
      if (s !== Replica.SHARED && s !== Replica.MODIFIED) continue;
      anyValid = m;
      const t = model.transferTime(m, dst, bytes);
      if (t < bestTime) {
        bestTime = t;
        best = m;
      }
    }
    if (best >= 0) {
      if (best === this.disk && dst !== this.host && this.stageInHost(h, best, dst, kind)) return;
      this.issue(h, best, dst, kind);
      return;
    }
    const home = r.home[h]!;
    // Out of core, the home is the disk: stage through host memory when it has room.
    if (home === this.disk && anyValid >= 0 && this.stageInHost(h, anyValid, dst, kind)) return;
    const homeSlot = h * nn + home;
    if (r.state[homeSlot] !== Replica.LOADING) {
      if (anyValid < 0) throw new Error(`no valid replica of handle ${h} anywhere`);
      r.state[homeSlot] = Replica.LOADING;
      this.e.scheduler.dataRequested?.(h, home);
      r.flags[h * nn + anyValid]! |= F_WRITEBACK;
      this.issue(h, anyValid, home, TransferKind.STAGE);
    }
    r.addWaiter(homeSlot, -(dst + 1));
  }

  /**
   * Out of core: a device needs `h`, whose only copy within reach is on the disk (`src`), or
   * on another device without a direct route (staged: the home, the disk, is no way through).
   * The copy goes through host memory, which keeps it (host memory caches the disk as a GPU
   * memory caches host memory): a copy already coming into host memory is joined, else room is
   * made there (the memory manager evicts host replicas: clean ones dropped, modified ones
   * written to the disk) and `src` is copied into it; the device's copy follows from host
   * memory when it lands (a forward waiter, as a staged copy). Returns false when host memory
   * has no room now: the caller then copies straight from the disk, or stages through it.
   * O(1) but for the eviction.
   */
  private stageInHost(h: number, src: number, dst: number, kind: number): boolean {
    const r = this.r;
    const host = this.host;
    const slot = h * this.nn + host;
    if (r.state[slot] === Replica.LOADING) {
      r.addWaiter(slot, -(dst + 1));
      return true;
    }
    if (r.alloc[slot] === 1) return false;
    const mem = this.e.memory;
    const bytes = this.e.graph.handleSize.data[h]!;
    if (mem.used[host]! + bytes > mem.capacity[host]! && !mem.makeSpace(host, bytes)) return false;
    mem.allocate(h, host, Replica.LOADING);
    this.issue(h, src, host, kind);
    r.addWaiter(slot, -(dst + 1));
    return true;
  }

  /**
   * Issues a copy of h from src to dst (emits TRANSFER); pins the source. `low` gives it a
   * prefetch's priority (the memory manager's early write-backs to keep memory clean).
   */
  issue(h: number, src: number, dst: number, kind: number, low = false, lazy = false): void {
    const e = this.e;
    const r = this.r;
    const urgent = kind === TransferKind.PREFETCH || low || lazy ? 0 : 1;
    let id: number;
    if (this.freeIds.length > 0) {
      id = this.freeIds.data[--this.freeIds.length]!;
      this.handle.data[id] = h;
      this.src.data[id] = src;
      this.dst.data[id] = dst;
      this.kind.data[id] = kind;
      this.urgent.data[id] = urgent;
      this.version.data[id] = r.version[h]!;
      this.busy.data[id] = low ? 0 : 1;
    } else {
      id = this.handle.push(h);
      this.src.push(src);
      this.dst.push(dst);
      this.kind.push(kind);
      this.urgent.push(urgent);
      this.version.push(r.version[h]!);
      this.busy.push(low ? 0 : 1);
    }
    r.loading[h * this.nn + dst] = id;
    this.inFlight++;
    if (!low) {
      this.markRoute(src, dst, 1);
      this.inbound[dst]!++;
    }
    r.pins[h * this.nn + src]!++;
    e.memory.sync(h * this.nn + src);
    if (dst === r.home[h]) {
      if (r.state[h * this.nn + dst] !== Replica.LOADING) {
        r.state[h * this.nn + dst] = Replica.LOADING;
        e.scheduler.dataRequested?.(h, dst);
      }
      // The handle's modified replicas may now cost nothing to evict (homeHasValue).
      e.memory.sync(h * this.nn + dst);
    }
    if (lazy) this.lazy[src]!.add(id);
    e.emit(Cmd.TRANSFER, id, 0);
    const hooks = e.hooks.transferStarted;
    for (let i = 0; i < hooks.length; i++) hooks[i]!(id, e.nowS);
  }

  /**
   * Copy `id` landed: the destination becomes SHARED (a copy home also makes a modified
   * source SHARED) and its waiters resume, or the content went stale in flight and is
   * dropped or refetched; then the source's pending coherence actions (free after its
   * write-back, write-through again, drop) run.
   */
  finished(id: number): void {
    const e = this.e;
    const r = this.r;
    const mem = e.memory;
    const h = this.handle.data[id]!;
    const src = this.src.data[id]!;
    const dst = this.dst.data[id]!;
    const kind = this.kind.data[id]!;
    const home = r.home[h]!;
    const nn = this.nn;
    const srcSlot = h * nn + src;
    const dstSlot = h * nn + dst;
    const current = this.version.data[id] === r.version[h];
    this.inFlight--;
    const lazy = this.lazy[src]!;
    if (lazy.size > 0) lazy.delete(id);
    if (this.busy.data[id] === 1) {
      this.markRoute(src, dst, -1);
      this.inbound[dst]!--;
    }
    if (r.loading[dstSlot] === id) r.loading[dstSlot] = -1;
    e.counters.copied(kind, src, dst, e.graph.handleSize.data[h]!);
    const hooks = e.hooks.transferFinished;
    for (let i = 0; i < hooks.length; i++) hooks[i]!(id, e.nowS, current);
    if (
      kind === TransferKind.WRITEBACK ||
      kind === TransferKind.FLUSH ||
      kind === TransferKind.STAGE ||
      kind === TransferKind.WRITETHROUGH ||
      kind === TransferKind.EARLY_WRITEBACK
    ) {
      r.flags[srcSlot]! &= ~F_WRITEBACK;
      if (kind === TransferKind.WRITEBACK) mem.freeing[src]! -= e.graph.handleSize.data[h]!;
    }
    const evicting = (r.flags[srcSlot]! & F_EVICTING) !== 0 && (r.flags[srcSlot]! & F_WRITEBACK) === 0;
    if (evicting) r.flags[srcSlot]! &= ~F_EVICTING;
    if (current) {
      r.state[dstSlot] = Replica.SHARED;
      // A modified source stays the owner (home is still stale) unless it was copied home.
      if (dst === home && r.state[srcSlot] === Replica.MODIFIED) r.state[srcSlot] = Replica.SHARED;
      e.scheduler.dataLoaded?.(h, dst);
      mem.unpin(srcSlot, 'evict');
      if (evicting && r.pins[srcSlot] === 0 && r.alloc[srcSlot] === 1) mem.free(h, src, 'evict');
      this.wakeWaiters(h, dstSlot);
    } else {
      // The content went stale in flight (a writer started elsewhere meanwhile).
      mem.unpin(srcSlot, 'evict');
      if (r.state[dstSlot] !== Replica.LOADING) {
        // A writer took the slot over meanwhile (a write-only access at home): leave it.
      } else if (r.loading[dstSlot]! >= 0) {
        // A newer copy fills the slot already: its arrival wakes whoever waits.
      } else if (r.hasWaiters(dstSlot)) {
        this.fetch(h, dst, TransferKind.FETCH); // someone needs the new version
      } else if (dst === home) {
        r.state[dstSlot] = Replica.INVALID;
      } else {
        mem.free(h, dst, 'invalidate');
      }
    }
    if (
      (r.flags[srcSlot]! & (F_WRITEBACK | F_WRITING)) === 0 &&
      r.state[srcSlot] === Replica.MODIFIED &&
      dst === home &&
      !this.currentCopyInFlight(h, dstSlot)
    ) {
      // The only valid copy is still on src and no copy of it is on its way home.
      if ((r.flags[srcSlot]! & F_AGAIN) !== 0 || (!current && e.flushing)) {
        r.flags[srcSlot]! |= F_WRITEBACK;
        this.issue(h, src, home, e.flushStarted ? TransferKind.FLUSH : TransferKind.WRITETHROUGH);
      }
    }
    r.flags[srcSlot]! &= ~F_AGAIN;
    mem.sync(srcSlot);
    mem.sync(dstSlot);
    e.requests.markDirty(src);
    e.requests.markDirty(dst);
    if (this.recycle) this.freeIds.push(id);
  }

  /**
   * True when `h`'s current value is at home or on its way there (a copy of the current
   * version into the home slot is in flight): a modified replica elsewhere then holds nothing
   * home lacks, and evicting it needs no write-back. (A modified owner copied to a peer stays
   * the owner; a copy home from that peer carries the same value.) O(1).
   */
  homeHasValue(h: number): boolean {
    const slot = h * this.nn + this.r.home[h]!;
    const s = this.r.state[slot]!;
    return (
      s === Replica.SHARED ||
      s === Replica.MODIFIED ||
      (s === Replica.LOADING && this.currentCopyInFlight(h, slot))
    );
  }

  /** True when a copy carrying `h`'s current version is on its way into `slot`. */
  private currentCopyInFlight(h: number, slot: number): boolean {
    const id = this.r.loading[slot]!;
    return id >= 0 && this.version.data[id] === this.r.version[h];
  }

  /**
   * Content of h arrived in `slot`: resume the tasks and forward the copies that waited for it
   * (from the slot's node: the home for a staged copy, host memory for one from the disk).
   */
  private wakeWaiters(h: number, slot: number): void {
    const r = this.r;
    const from = slot - h * this.nn;
    for (let e = r.takeWaiters(slot); e >= 0; ) {
      const v = r.waiterValue(e);
      e = r.nextWaiter(e);
      if (v < 0) this.issue(h, from, -v - 1, TransferKind.FETCH);
      else this.e.tasks.satisfied(v);
    }
  }

  /** The run closes: writes every modified replica off its home back home (FLUSH). */
  flushAll(knownHandles: number): void {
    const r = this.r;
    const g = this.e.graph;
    const nn = this.nn;
    for (let h = 0; h < knownHandles; h++) {
      if (g.handleDiscard.data[h] === 1) continue;
      const home = r.home[h]!;
      for (let n = 0; n < nn; n++) {
        if (n === home) continue;
        const slot = h * nn + n;
        if (r.state[slot] === Replica.MODIFIED && (r.flags[slot]! & F_WRITEBACK) === 0) {
          r.flags[slot]! |= F_WRITEBACK;
          this.issue(h, n, home, TransferKind.FLUSH);
        }
      }
    }
  }
}
