/**
 * Seed 004's coherence policies, applied after each task on a device (section 3 of the seed:
 * the four runtime versions): write-through of what the task wrote (copied home at once; a
 * copy already in flight is followed by another), then the operands the device must not keep
 * (all of them in version 1, the blocks it does not own in version 2), then the software
 * cache's line limit for alien blocks (version 3), least recently used first.
 */
import { F_AGAIN, F_DROP, F_WRITEBACK, Replica } from '../core/data/replicas.ts';
import type { Engine } from '../core/engine.ts';
import { TransferKind } from '../core/protocol.ts';
import { AccessMode, LocusError } from '../core/types.ts';
import type { CoherenceOptions } from './options.ts';

/** The state of seed 004's policies: one alien LRU list per device. */
export class CoherencePolicies {
  private readonly c: CoherenceOptions;
  /** Per device node: alien handles in least-recently-used-first order (alienCacheLines). */
  private readonly alienLru: number[][];

  constructor(options: CoherenceOptions, nodes: number) {
    if (
      options.alienCacheLines !== undefined &&
      !(Number.isInteger(options.alienCacheLines) && options.alienCacheLines >= 0)
    ) {
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `cache lines must be a non-negative integer (got ${options.alienCacheLines})`,
      );
    }
    this.c = options;
    this.alienLru = Array.from({ length: nodes }, () => []);
  }

  /** After `task` ran on device node n (not its data's home). */
  afterTask(e: Engine, task: number, n: number): void {
    const c = this.c;
    const g = e.graph;
    const r = e.replicas;
    const nn = r.nNodes;
    const free = c.freeAfterTask ?? 'none';
    const lru = this.alienLru[n]!;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      const h = g.accessHandle.data[a]!;
      const slot = h * nn + n;
      if (r.alloc[slot] !== 1 || n === r.home[h]) continue;
      if (c.writeThrough && g.accessMode.data[a]! & AccessMode.W && r.state[slot] === Replica.MODIFIED) {
        if ((r.flags[slot]! & F_WRITEBACK) === 0) {
          r.flags[slot]! |= F_WRITEBACK;
          e.transfers.issue(h, n, r.home[h]!, TransferKind.WRITETHROUGH);
        } else {
          r.flags[slot]! |= F_AGAIN; // the copy in flight is stale: another follows it
        }
      }
      const owned = c.owners !== undefined && c.owners[h] === n;
      if (free === 'all' || (free === 'aliens' && !owned)) {
        if ((r.flags[slot]! & F_WRITEBACK) !== 0) {
          r.flags[slot]! |= F_DROP; // freed when its copy home completes
        } else if (r.pins[slot] === 0 && r.state[slot] !== Replica.MODIFIED) {
          e.memory.free(h, n, 'evict');
        }
      } else if (!owned && c.alienCacheLines !== undefined) {
        const i = lru.indexOf(h);
        if (i >= 0) lru.splice(i, 1);
        lru.push(h);
      }
    }
    if (c.alienCacheLines === undefined) return;
    // Drop entries freed meanwhile (invalidated, evicted), then evict beyond the line count.
    for (let i = lru.length - 1; i >= 0; i--) if (r.alloc[lru[i]! * nn + n] !== 1) lru.splice(i, 1);
    let i = 0;
    while (lru.length > c.alienCacheLines && i < lru.length) {
      const h = lru[i]!;
      const slot = h * nn + n;
      if (r.pins[slot] === 0 && r.state[slot] !== Replica.MODIFIED && r.state[slot] !== Replica.LOADING) {
        lru.splice(i, 1);
        e.memory.free(h, n, 'evict');
      } else {
        i++;
      }
    }
  }
}
