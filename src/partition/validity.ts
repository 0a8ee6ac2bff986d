/**
 * Which intervals of each buffer are valid where, as libsplit's BufferManager keeps them
 * (`hostValidData`, `devicesValidData[d]`), and the transfers a sub-kernel needs: the part of
 * its read region missing on its device; of that, the part missing on the host comes back
 * first from a device holding it (D2H), then everything missing goes host to device (H2D). A
 * sub-kernel's writes make its device the only valid holder of the written intervals.
 *
 * Besides validity it remembers who last wrote each interval (kernel, device, iteration), so
 * every transfer is attributed to a producer kernel (seed 003 section IV.B's `a_d^{h,k}`) and
 * the simulator knows which task produced the bytes it moves.
 */
import { IntervalSet } from './intervals.ts';

/** Who last wrote some intervals of a buffer: kernel, device and iteration (-1 for initial data). */
export interface Writer {
  readonly kernel: number;
  readonly device: number;
  readonly iteration: number;
}

/** Intervals of one buffer with the same last writer. */
export interface WrittenPiece {
  readonly set: IntervalSet;
  readonly writer: Writer;
}

/** One planned copy of a buffer's intervals, with the writer of those bytes. */
export interface PlannedCopy {
  readonly buffer: string;
  /** Source device for D2H (-1 for H2D, whose source is the host). */
  readonly from: number;
  /** Destination device for H2D (-1 for D2H, whose destination is the host). */
  readonly to: number;
  readonly set: IntervalSet;
  readonly writer: Writer;
}

/** The copies before one sub-kernel: D2H first, then H2D. */
export interface TransferPlan {
  readonly d2h: PlannedCopy[];
  readonly h2d: PlannedCopy[];
}

const INITIAL: Writer = { kernel: -1, device: -1, iteration: -1 };

/** Valid intervals per buffer on the host and on each device, and the last writer of every interval. */
export class Validity {
  private readonly host = new Map<string, IntervalSet>();
  private readonly devices: Map<string, IntervalSet>[];
  private readonly writers = new Map<string, WrittenPiece[]>();

  /** Every buffer starts valid on the host only, written by nobody (`lengths`: elements per buffer). */
  constructor(lengths: ReadonlyMap<string, number>, deviceCount: number) {
    this.devices = Array.from({ length: deviceCount }, () => new Map<string, IntervalSet>());
    for (const [name, len] of lengths) {
      this.host.set(name, IntervalSet.of(0, len));
      for (const d of this.devices) d.set(name, IntervalSet.EMPTY);
      this.writers.set(name, [{ set: IntervalSet.of(0, len), writer: INITIAL }]);
    }
  }

  /** Intervals of `buffer` valid on the host. */
  onHost(buffer: string): IntervalSet {
    return this.host.get(buffer)!;
  }

  /** Intervals of `buffer` valid on device `d`. */
  onDevice(buffer: string, d: number): IntervalSet {
    return this.devices[d]!.get(buffer)!;
  }

  /** Splits `set` by last writer. */
  writersOf(buffer: string, set: IntervalSet): WrittenPiece[] {
    const out: WrittenPiece[] = [];
    for (const p of this.writers.get(buffer)!) {
      const s = p.set.intersect(set);
      if (!s.isEmpty) out.push({ set: s, writer: p.writer });
    }
    return out;
  }

  /**
   * Plans and applies (to the validity sets) the copies device `d` needs to hold `required` of
   * `buffer`: the missing part not valid on the host comes back from the devices holding it (in
   * device order), then the missing part goes to `d`.
   */
  fetch(buffer: string, d: number, required: IntervalSet, plan: TransferPlan): void {
    const missing = required.minus(this.onDevice(buffer, d));
    if (missing.isEmpty) return;
    let hostMissing = missing.minus(this.onHost(buffer));
    for (let d2 = 0; d2 < this.devices.length && !hostMissing.isEmpty; d2++) {
      if (d2 === d) continue;
      const part = hostMissing.intersect(this.onDevice(buffer, d2));
      if (part.isEmpty) continue;
      for (const w of this.writersOf(buffer, part))
        plan.d2h.push({ buffer, from: d2, to: -1, set: w.set, writer: w.writer });
      this.host.set(buffer, this.onHost(buffer).union(part));
      hostMissing = hostMissing.minus(part);
    }
    if (!hostMissing.isEmpty) throw new Error(`partition: ${buffer} ${hostMissing} is valid nowhere`);
    for (const w of this.writersOf(buffer, missing))
      plan.h2d.push({ buffer, from: -1, to: d, set: w.set, writer: w.writer });
    this.devices[d]!.set(buffer, this.onDevice(buffer, d).union(missing));
  }

  /** Device `d` wrote `set` of `buffer`: it now holds the only valid copy. */
  wrote(buffer: string, d: number, set: IntervalSet, writer: Writer): void {
    if (set.isEmpty) return;
    this.host.set(buffer, this.onHost(buffer).minus(set));
    for (let d2 = 0; d2 < this.devices.length; d2++) {
      const s = this.onDevice(buffer, d2);
      this.devices[d2]!.set(buffer, d2 === d ? s.union(set) : s.minus(set));
    }
    const pieces: WrittenPiece[] = [];
    for (const p of this.writers.get(buffer)!) {
      const s = p.set.minus(set);
      if (!s.isEmpty) pieces.push({ set: s, writer: p.writer });
    }
    pieces.push({ set, writer });
    this.writers.set(buffer, pieces);
  }

  /** A device holding `buffer[i]` valid, or -1 for the host (the runner reads index entries there). */
  holderOf(buffer: string, i: number): number {
    if (this.onHost(buffer).has(i)) return -1;
    for (let d = 0; d < this.devices.length; d++) if (this.onDevice(buffer, d).has(i)) return d;
    throw new Error(`partition: ${buffer}[${i}] is valid nowhere`);
  }

  /** Plans the copies that bring every buffer's valid data back to the host (end of a run). */
  gather(plan: TransferPlan): void {
    for (const buffer of this.host.keys()) {
      const all = IntervalSet.of(0, Number.MAX_SAFE_INTEGER).intersect(
        this.host
          .get(buffer)!
          .union(this.devices.reduce((s, m) => s.union(m.get(buffer)!), IntervalSet.EMPTY)),
      );
      let missing = all.minus(this.onHost(buffer));
      for (let d = 0; d < this.devices.length && !missing.isEmpty; d++) {
        const part = missing.intersect(this.onDevice(buffer, d));
        if (part.isEmpty) continue;
        for (const w of this.writersOf(buffer, part))
          plan.d2h.push({ buffer, from: d, to: -1, set: w.set, writer: w.writer });
        this.host.set(buffer, this.onHost(buffer).union(part));
        missing = missing.minus(part);
      }
    }
  }
}
