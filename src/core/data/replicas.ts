/**
 * Replicas and their MSI coherence state (StarPU's datawizard "coherency"): one slot per
 * (handle, node), `slot = handle * nNodes + node`, in flat typed arrays that grow with the
 * handle count. The tables are read and written by the memory manager, the request queues
 * and the transfer layer; this file owns their layout, the flags and the waiter lists.
 *
 * Replica states per slot (Replica), with the transient states of a replica being filled:
 *
 *              fetch/prefetch issued              copy arrives (current version)
 *   INVALID ---------------------------> LOADING ------------------------------> SHARED
 *      ^  ^    write-only access                  copy arrives stale: refetch, or
 *      |  |  ---------------------> ALLOCATED      INVALID / freed when no one waits
 *      |  |                             |
 *      |  |        a task writing it starts on this node (every other copy -> INVALID)
 *      |  |   SHARED / ALLOCATED / LOADING(home) --------------------------> MODIFIED
 *      |  |                                                                    |
 *      |  +-- a writer starts elsewhere (freed off home once unpinned) --------+
 *      |                                                                       |
 *      |   evicted: SHARED freed at once; MODIFIED written back home first     |
 *      +-- (F_WRITEBACK | F_EVICTING until the copy lands, then freed) --------+
 *          MODIFIED copied home (write-back, flush, write-through) -> SHARED
 *
 * A MODIFIED replica copied to another device stays MODIFIED (the owner that must write it
 * back); only a copy home makes it SHARED. Each handle has a home node (its own, host memory
 * by default) whose replica is allocated for the handle's whole life and never freed; write-
 * backs go there. Flags on a replica: F_WRITEBACK (a copy from it to its home is in flight),
 * F_EVICTING (free it when that lands), F_DROP (coherence: free it after its copy home),
 * F_AGAIN (write-through: copy again), F_WRITING (a running task writes it: no copy may start
 * from it), F_WONTUSE (a wontUse hint: evicted first; cleared when a task uses it again).
 */
import { growI32, growU8, IntList } from '../growable.ts';

/** Replica states (MSI plus the transient states of a replica being filled). */
export const Replica = {
  /** No valid content (and, off the home node, no memory unless still pinned). */
  INVALID: 0,
  /** Valid, possibly one of several copies. */
  SHARED: 1,
  /** Valid and the only up-to-date copy: must be written back before it is dropped. */
  MODIFIED: 2,
  /** Allocated, a transfer into it in flight (or waiting for the home copy to arrive). */
  LOADING: 3,
  /** Allocated for a write-only access: no content needed. */
  ALLOCATED: 4,
} as const;

/** A copy from this replica to the handle's home is in flight. */
export const F_WRITEBACK = 1;
/** Free the replica when its write-back completes. */
export const F_EVICTING = 2;
/** Coherence: free it after its copy home completes; tasks must not reuse it. */
export const F_DROP = 4;
/** Write-through: written again while its copy home was in flight: copy again. */
export const F_AGAIN = 8;
/** A running task writes it: no copy may start from it. */
export const F_WRITING = 16;
/** The application will not use it for a while (wontUse): evicted before other data. */
export const F_WONTUSE = 32;

/** Why a replica was freed. */
export type FreeReason = 'evict' | 'invalidate' | 'discard';

/** The replica tables: states, flags, allocation, pins, versions and waiters. */
export class ReplicaTable {
  /** Memory nodes of the platform (slots per handle). */
  readonly nNodes: number;
  /** Replica state per slot (Replica). */
  state = new Uint8Array(0);
  /** Flags per slot (F_*). */
  flags = new Uint8Array(0);
  /** 1 when the slot holds memory. */
  alloc = new Uint8Array(0);
  /** 1 when the slot is counted dirty on its node (MemoryManager's clean-buffer counts). */
  dirtyMark = new Uint8Array(0);
  /** Pins per slot: queued and running tasks, and transfers reading it. */
  pins = new Int32Array(0);
  /** The transfer filling each LOADING slot, -1 when none. */
  loading = new Int32Array(0);
  /** Version of each handle's content (bumped by every writer): stale copies are dropped. */
  version = new Int32Array(0);
  /** Home node of each handle. */
  home = new Int32Array(0);
  /** First waiter on each slot (-1 for none): a task id (>= 0) or a forward -(node + 1). */
  private waitHead = new Int32Array(0);
  private readonly waitValue = new IntList(256);
  private readonly waitNext = new IntList(256);
  private waitFree = -1;

  constructor(nNodes: number) {
    this.nNodes = nNodes;
  }

  /** Sizes the tables for `handleCap` handles. */
  grow(handleCap: number): void {
    const slots = handleCap * this.nNodes;
    this.state = growU8(this.state, slots);
    this.flags = growU8(this.flags, slots);
    this.alloc = growU8(this.alloc, slots);
    this.dirtyMark = growU8(this.dirtyMark, slots);
    this.pins = growI32(this.pins, slots);
    this.loading = growI32(this.loading, slots, -1);
    this.waitHead = growI32(this.waitHead, slots, -1);
    this.version = growI32(this.version, handleCap);
    this.home = growI32(this.home, handleCap);
  }

  /** True when the replica of `h` on `n` is valid (shared or modified). */
  isValid(h: number, n: number): boolean {
    const s = this.state[h * this.nNodes + n]!;
    return s === Replica.SHARED || s === Replica.MODIFIED;
  }

  /** True when the replica of `h` on `n` is valid or being filled. */
  isValidOrLoading(h: number, n: number): boolean {
    const s = this.state[h * this.nNodes + n]!;
    return s === Replica.SHARED || s === Replica.MODIFIED || s === Replica.LOADING;
  }

  /** True when someone waits for content in `slot`. */
  hasWaiters(slot: number): boolean {
    return this.waitHead[slot]! >= 0;
  }

  /** Adds a waiter on `slot`: a task id, or -(node + 1) to forward the content to a node. */
  addWaiter(slot: number, value: number): void {
    let e = this.waitFree;
    if (e >= 0) {
      this.waitFree = this.waitNext.data[e]!;
      this.waitValue.data[e] = value;
      this.waitNext.data[e] = this.waitHead[slot]!;
    } else {
      e = this.waitValue.push(value);
      this.waitNext.push(this.waitHead[slot]!);
    }
    this.waitHead[slot] = e;
  }

  /**
   * Detaches the waiters of `slot` and returns the first entry in arrival order (-1 for
   * none); walk them with `nextWaiter`, which recycles each entry as it goes.
   */
  takeWaiters(slot: number): number {
    let e = this.waitHead[slot]!;
    if (e < 0) return -1;
    this.waitHead[slot] = -1;
    // Waiters sit in a list pushed at the head; reverse it to serve them in arrival order.
    let prev = -1;
    while (e >= 0) {
      const next = this.waitNext.data[e]!;
      this.waitNext.data[e] = prev;
      prev = e;
      e = next;
    }
    return prev;
  }

  /** Task ids shift down by k (the engine's compaction): waiting tasks follow, forwards stay. */
  rebaseWaiters(k: number, handles: number): void {
    const slots = handles * this.nNodes;
    for (let s = 0; s < slots; s++) {
      for (let e = this.waitHead[s]!; e >= 0; e = this.waitNext.data[e]!) {
        if (this.waitValue.data[e]! >= 0) this.waitValue.data[e]! -= k;
      }
    }
  }

  /** The value of waiter entry `e` (read it before `nextWaiter(e)`). */
  waiterValue(e: number): number {
    return this.waitValue.data[e]!;
  }

  /** Recycles entry `e` and returns the entry after it. */
  nextWaiter(e: number): number {
    const next = this.waitNext.data[e]!;
    this.waitNext.data[e] = this.waitFree;
    this.waitFree = e;
    return next;
  }
}
