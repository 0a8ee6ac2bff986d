/**
 * Each handle's first position in a scanned sequence of tasks (a node's known future), for
 * the eviction policies that rescan it per victim (Belady without a plan index, LUF's task
 * buffer): per-handle tables stamped with the scan's number, so a scan allocates nothing and
 * starts without clearing. O(1) per record and per lookup.
 */
import type { TaskGraph } from '../core/graph.ts';
import { growI32 } from '../core/growable.ts';

/** Per-handle first positions of the current scan. */
export class FirstUses {
  /** Per handle: the number of the scan that last recorded it. */
  private scanOf = new Int32Array(0);
  /** Per handle: its first position in that scan. */
  private pos = new Int32Array(0);
  /** Scans so far (the current one's number). */
  private scans = 0;

  /** Starts a scan over handles [0, handles): none recorded yet. */
  begin(handles: number): void {
    if (this.scanOf.length < handles) {
      const n = Math.max(handles, 2 * this.scanOf.length);
      this.scanOf = growI32(this.scanOf, n);
      this.pos = growI32(this.pos, n);
    }
    if (this.scans === 0x7fffffff) {
      this.scanOf.fill(0);
      this.scans = 0;
    }
    this.scans++;
  }

  /** Records position `p` for handle h unless this scan recorded it already. */
  record(h: number, p: number): void {
    if (this.scanOf[h] !== this.scans) {
      this.scanOf[h] = this.scans;
      this.pos[h] = p;
    }
  }

  /**
   * Records the accesses of `tasks` in order, the first at position `pos`, up to position
   * `limit` (excluded); returns the position after the last task recorded. O(accesses).
   */
  recordTasks(graph: TaskGraph, tasks: Iterable<number>, pos: number, limit: number): number {
    const start = graph.accessStart.data;
    const handle = graph.accessHandle.data;
    for (const t of tasks) {
      if (pos >= limit) break;
      for (let a = start[t]!; a < start[t + 1]!; a++) this.record(handle[a]!, pos);
      pos++;
    }
    return pos;
  }

  /** Handle h's first position in this scan, or -1 when the scan did not meet it. */
  get(h: number): number {
    return this.scanOf[h] === this.scans ? this.pos[h]! : -1;
  }
}
