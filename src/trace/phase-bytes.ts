/**
 * Bytes moved per phase (iteration) of a run whose tasks carry TaskOptions.phase, for the
 * report's `iterations`. The engine's transfers do not record the task they serve, so a
 * transfer is attributed by this rule: it belongs to the phase of the first task that starts
 * after the transfer started and accesses the transferred handle (the task a fetch or
 * prefetch brings the data for, the next user of data written back on eviction or staged
 * through host memory). Tasks without a phase (acquires) claim nothing. Transfers no phased
 * task has claimed when the figures are read go to the highest phase started so far; the
 * end-of-run flush (TransferKind.FLUSH) belongs to no phase (the report's totals hold it).
 * The rule does not depend on timing when, as in an iteration, every access of a handle
 * between two of its transfers belongs to one phase.
 */
import { type Engine, type EngineObserver, TransferKind } from '../core/engine.ts';

/** Bytes moved in one phase, by direction. */
export interface PhaseBytes {
  /** Bytes copied from host memory into device memories. */
  bytesToDevices: number;
  /** Bytes copied from device memories to host memory. */
  bytesFromDevices: number;
  /** Bytes copied directly between device memories. */
  bytesDeviceToDevice: number;
}

const TO = 0;
const FROM = 1;
const PEER = 2;

/** Per-phase transfer bytes: an engine observer, attached by RunStats once a task has a phase. */
export class PhaseTransfers implements EngineObserver {
  /** Per handle, pending transfers as (direction, bytes) pairs. */
  private readonly pending = new Map<number, number[]>();
  /** Bytes by phase: [to, from, peer] at 3 * phase. */
  private bytes: number[] = [];
  private maxPhase = -1;
  private tracking: boolean;

  constructor(private readonly engine: Engine) {
    const phases = engine.graph.taskPhase;
    let any = false;
    for (let t = 0; t < phases.length && !any; t++) any = phases.data[t]! >= 0;
    this.tracking = any;
  }

  /** Held by handle and phase, never by task id: recycled tasks change nothing. */
  rebase(_k: number): void {}

  /** Transfer `id` started: hold its bytes until a task claims them. */
  transferStarted(id: number): void {
    if (!this.tracking) return;
    const e = this.engine;
    if (e.trKind.data[id]! === TransferKind.FLUSH) return;
    const home = e.platform.homeNode;
    const src = e.trSrc.data[id]!;
    const dst = e.trDst.data[id]!;
    const h = e.trHandle.data[id]!;
    const dir = src === home && dst !== home ? TO : src !== home && dst === home ? FROM : PEER;
    let list = this.pending.get(h);
    if (list === undefined) {
      list = [];
      this.pending.set(h, list);
    }
    list.push(dir, e.graph.handleSize.data[h]!);
  }

  /** `task` started: it claims the pending transfers of the handles it accesses. */
  taskStarted(task: number): void {
    const g = this.engine.graph;
    const phase = g.taskPhase.data[task]!;
    if (phase < 0) return;
    // A phased task submitted after the observer was created turns tracking on.
    this.tracking = true;
    if (phase > this.maxPhase) this.maxPhase = phase;
    if (this.pending.size === 0) return;
    const end = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < end; a++) {
      const h = g.accessHandle.data[a]!;
      const list = this.pending.get(h);
      if (list === undefined) continue;
      for (let i = 0; i < list.length; i += 2) this.add(phase, list[i]!, list[i + 1]!);
      this.pending.delete(h);
    }
  }

  private add(phase: number, dir: number, bytes: number): void {
    while (this.bytes.length < 3 * (phase + 1)) this.bytes.push(0);
    this.bytes[3 * phase + dir]! += bytes;
  }

  /**
   * Bytes per phase, 0 .. the highest phase started (unclaimed transfers counted in the last),
   * or null when no task has a phase.
   */
  phases(): PhaseBytes[] | null {
    if (!this.tracking || this.maxPhase < 0) return null;
    const bytes = this.bytes.slice();
    while (bytes.length < 3 * (this.maxPhase + 1)) bytes.push(0);
    for (const list of this.pending.values()) {
      for (let i = 0; i < list.length; i += 2) bytes[3 * this.maxPhase + list[i]!]! += list[i + 1]!;
    }
    const out: PhaseBytes[] = [];
    for (let p = 0; p <= this.maxPhase; p++) {
      out.push({
        bytesToDevices: bytes[3 * p + TO]!,
        bytesFromDevices: bytes[3 * p + FROM]!,
        bytesDeviceToDevice: bytes[3 * p + PEER]!,
      });
    }
    return out;
  }
}
