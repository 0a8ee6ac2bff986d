/**
 * Per-node request queues (StarPU's datawizard "data_request"): every access of a task taken
 * into a worker's pipeline, and of an acquire at its data's home, waits in a FIFO of its
 * node and is granted in order, so the earliest task always gets memory first: every replica
 * pinned on a node belongs to an earlier, fully served task or to a running one, which
 * guarantees progress whenever each task fits in its node. A grant pins the replica and
 * either finds it valid, joins the transfer filling it, or allocates it (evicting through
 * the memory manager) and fetches it.
 */

import type { Engine } from '../engine.ts';
import { IntQueue } from '../growable.ts';
import { TransferKind } from '../protocol.ts';
import { AccessMode } from '../types.ts';
import { F_DROP, F_WONTUSE, Replica, type ReplicaTable } from './replicas.ts';

/** The request FIFOs of every memory node. */
export class RequestQueues {
  private readonly e: Engine;
  private readonly r: ReplicaTable;
  private readonly nn: number;
  private readonly reqTask: IntQueue[];
  private readonly reqAccess: IntQueue[];
  private readonly dirty: Uint8Array;
  /** Some node's queue may be servable (markDirty was called since the last serve). */
  anyDirty = false;

  constructor(engine: Engine) {
    this.e = engine;
    this.r = engine.replicas;
    this.nn = engine.platform.nodes.length;
    this.reqTask = engine.platform.nodes.map(() => new IntQueue());
    this.reqAccess = engine.platform.nodes.map(() => new IntQueue());
    this.dirty = new Uint8Array(this.nn);
  }

  /** Number of requests waiting on node `n`. */
  pending(n: number): number {
    return this.reqTask[n]!.length;
  }

  /** Queues the accesses [aStart, aEnd) of `task` on node `n`. */
  enqueue(task: number, aStart: number, aEnd: number, n: number): void {
    const tq = this.reqTask[n]!;
    const aq = this.reqAccess[n]!;
    for (let a = aStart; a < aEnd; a++) {
      tq.push(task);
      aq.push(a);
    }
    this.markDirty(n);
  }

  /** Queues one access `a` of `task` on node `n`. */
  enqueueOne(task: number, a: number, n: number): void {
    this.reqTask[n]!.push(task);
    this.reqAccess[n]!.push(a);
    this.markDirty(n);
  }

  /**
   * Task ids shift down by k and access indices by `accesses` (the engine's compaction drops
   * the graph's first k tasks and their accesses): the queued requests follow.
   */
  rebase(k: number, accesses: number): void {
    for (const q of this.reqTask) q.addToAll(-k);
    for (const q of this.reqAccess) q.addToAll(-accesses);
  }

  /** Node `n`'s queue may make progress (memory was freed, content arrived, a task came). */
  markDirty(n: number): void {
    this.dirty[n] = 1;
    this.anyDirty = true;
  }

  /** Serves every node marked dirty until none is. */
  serveDirty(): void {
    while (this.anyDirty) {
      this.anyDirty = false;
      for (let n = 0; n < this.nn; n++) {
        if (this.dirty[n] === 1) {
          this.dirty[n] = 0;
          this.serve(n);
        }
      }
    }
  }

  /** Grants queued requests of node n in order, stopping at the first that must wait. */
  private serve(n: number): void {
    const tq = this.reqTask[n]!;
    const aq = this.reqAccess[n]!;
    while (tq.length > 0) {
      if (!this.grant(tq.peek(), aq.peek(), n)) return;
      tq.shift();
      aq.shift();
    }
  }

  /** Makes the access usable on node n for its task; false if memory must be freed first. */
  private grant(task: number, access: number, n: number): boolean {
    const e = this.e;
    const r = this.r;
    const g = e.graph;
    const h = g.accessHandle.data[access]!;
    const mode = g.accessMode.data[access]!;
    const slot = h * this.nn + n;
    // Freed after its task by a coherence policy, once its copy home ends: wait, then reload.
    if ((r.flags[slot]! & F_DROP) !== 0) return false;
    r.flags[slot]! &= ~F_WONTUSE; // used again: no longer first to go
    const s = r.state[slot]!;
    if (
      s === Replica.SHARED ||
      s === Replica.MODIFIED ||
      (s === Replica.ALLOCATED && mode === AccessMode.W)
    ) {
      r.pins[slot]!++;
      e.eviction.used(h, n);
      e.tasks.satisfied(task);
      return true;
    }
    if (s === Replica.LOADING) {
      r.pins[slot]!++;
      e.eviction.used(h, n);
      r.addWaiter(slot, task);
      e.transfers.makeUrgent(r.loading[slot]!);
      return true;
    }
    if (r.alloc[slot] === 1) {
      // An invalidated replica still pinned as a transfer's source: wait until it is freed,
      // except at home, whose buffer is permanent.
      if (n !== r.home[h]) return false;
      r.state[slot] = mode === AccessMode.W ? Replica.ALLOCATED : Replica.LOADING;
      e.memory.sync(slot); // a dead home copy makes the handle's modified replicas clean to evict
      if (mode !== AccessMode.W) e.scheduler.dataRequested?.(h, n);
    } else {
      const bytes = g.handleSize.data[h]!;
      const mem = e.memory;
      if (mem.used[n]! + bytes > mem.capacity[n]! && !mem.makeSpace(n, bytes)) {
        e.transfers.promoteLazy(n);
        return false;
      }
      mem.allocate(h, n, mode === AccessMode.W ? Replica.ALLOCATED : Replica.LOADING);
    }
    r.pins[slot]!++;
    e.eviction.used(h, n);
    if (mode === AccessMode.W) {
      e.tasks.satisfied(task);
    } else {
      r.addWaiter(slot, task);
      e.transfers.fetch(h, n, TransferKind.FETCH);
    }
    return true;
  }
}
