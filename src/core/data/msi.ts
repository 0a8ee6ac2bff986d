/**
 * The MSI transitions a task causes (write-invalidate, DESIGN.md): when a task that writes
 * a handle starts on node n, n's replica becomes MODIFIED (the owner) and every other copy
 * is invalidated, freed at once off its home when unpinned; when the task ends, the pins of
 * its accesses are dropped, and the content of a scratch (discard) output is dropped too.
 */

import type { Engine } from '../engine.ts';
import { AccessMode } from '../types.ts';
import { F_WRITING, Replica } from './replicas.ts';

/**
 * Written handles of `task`, about to run on node n (-1: an acquire, at each handle's home):
 * that replica owns them, the others go invalid.
 */
export function applyWrites(e: Engine, task: number, n: number): void {
  const g = e.graph;
  const r = e.replicas;
  const nn = r.nNodes;
  const aEnd = g.accessStart.data[task + 1]!;
  for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
    if (!(g.accessMode.data[a]! & AccessMode.W)) continue;
    const h = g.accessHandle.data[a]!;
    const home = r.home[h]!;
    const node = n < 0 ? home : n;
    r.version[h]!++;
    r.state[h * nn + node] = Replica.MODIFIED;
    r.flags[h * nn + node]! |= F_WRITING;
    e.memory.sync(h * nn + node);
    for (let m = 0; m < nn; m++) {
      if (m === node) continue;
      const slot = h * nn + m;
      const s = r.state[slot]!;
      if (s === Replica.INVALID || s === Replica.LOADING) continue; // a late copy is dropped on arrival
      r.state[slot] = Replica.INVALID;
      e.memory.sync(slot);
      if (m !== home && r.pins[slot] === 0) e.memory.free(h, m, 'invalidate');
    }
  }
}

/**
 * `task` ended on node n (-1: an acquire released, its accesses at each handle's home):
 * clears the writing flags and unpins its accesses. With `discardScratch`, a written scratch
 * handle's content is dropped instead of kept for a write-back; its home copy stands for it.
 */
export function releaseAccesses(e: Engine, task: number, n: number, discardScratch: boolean): void {
  const g = e.graph;
  const r = e.replicas;
  const nn = r.nNodes;
  const aEnd = g.accessStart.data[task + 1]!;
  for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
    const h = g.accessHandle.data[a]!;
    const home = r.home[h]!;
    const node = n < 0 ? home : n;
    const slot = h * nn + node;
    const writes = (g.accessMode.data[a]! & AccessMode.W) !== 0;
    if (writes) r.flags[slot]! &= ~F_WRITING;
    if (writes && discardScratch && g.handleDiscard.data[h] === 1) {
      r.state[slot] = node === home ? Replica.SHARED : Replica.INVALID;
      r.state[h * nn + home] = Replica.SHARED;
      r.version[h]!++;
      e.memory.sync(slot);
      e.memory.unpin(slot, 'discard');
    } else {
      e.memory.unpin(slot, 'evict');
    }
  }
}
