/**
 * A binary min-heap of timed events over flat typed arrays: (time, sequence) ordered, so
 * events at the same instant pop in the order they were pushed and a run is deterministic.
 * Push and pop are O(log n) and allocate nothing in steady state.
 */
import { LocusError } from '../core/types.ts';

/** Min-heap of (time, kind, payload) events. */
export class EventHeap {
  private time = new Float64Array(1024);
  private seq = new Float64Array(1024);
  private kind = new Int32Array(1024);
  private payload = new Int32Array(1024);
  private nextSeq = 0;
  /** Number of queued events. */
  size = 0;

  /** Queues an event. */
  push(time: number, kind: number, payload: number): void {
    if (!(time < Number.POSITIVE_INFINITY)) {
      throw new LocusError(
        'LOCUS_SIMULATION_FAILED',
        `a simulated event falls at ${time} s, not a finite time: check the platform's latencies and rates`,
      );
    }
    if (this.size === this.time.length) this.grow();
    let i = this.size++;
    const s = this.nextSeq++;
    // Sift up.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = this.time[parent]!;
      if (pt < time || (pt === time && this.seq[parent]! < s)) break;
      this.move(parent, i);
      i = parent;
    }
    this.time[i] = time;
    this.seq[i] = s;
    this.kind[i] = kind;
    this.payload[i] = payload;
  }

  /** Time of the earliest event, or Infinity when empty. */
  peekTime(): number {
    return this.size > 0 ? this.time[0]! : Number.POSITIVE_INFINITY;
  }

  /** Kind of the earliest event (valid until the next pop). */
  peekKind(): number {
    return this.kind[0]!;
  }

  /** Payload of the earliest event (valid until the next pop). */
  peekPayload(): number {
    return this.payload[0]!;
  }

  /** Removes the earliest event. */
  pop(): void {
    const last = --this.size;
    if (last === 0) return;
    const t = this.time[last]!;
    const s = this.seq[last]!;
    const k = this.kind[last]!;
    const p = this.payload[last]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= last) break;
      const r = c + 1;
      if (
        r < last &&
        (this.time[r]! < this.time[c]! || (this.time[r] === this.time[c] && this.seq[r]! < this.seq[c]!))
      )
        c = r;
      const ct = this.time[c]!;
      if (t < ct || (t === ct && s < this.seq[c]!)) break;
      this.move(c, i);
      i = c;
    }
    this.time[i] = t;
    this.seq[i] = s;
    this.kind[i] = k;
    this.payload[i] = p;
  }

  /** Adds `delta` to the payload of every queued event of `kind` (task ids shifted by a compaction). */
  shiftPayloads(kind: number, delta: number): void {
    for (let i = 0; i < this.size; i++) if (this.kind[i] === kind) this.payload[i]! += delta;
  }

  private move(from: number, to: number): void {
    this.time[to] = this.time[from]!;
    this.seq[to] = this.seq[from]!;
    this.kind[to] = this.kind[from]!;
    this.payload[to] = this.payload[from]!;
  }

  private grow(): void {
    const n = this.time.length * 2;
    const grow64 = (a: Float64Array) => {
      const b = new Float64Array(n);
      b.set(a);
      return b;
    };
    const grow32 = (a: Int32Array) => {
      const b = new Int32Array(n);
      b.set(a);
      return b;
    };
    this.time = grow64(this.time);
    this.seq = grow64(this.seq);
    this.kind = grow32(this.kind);
    this.payload = grow32(this.payload);
  }
}
