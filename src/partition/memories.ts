/**
 * Emulated memories of a split run: the host's copy of every buffer and one full-size copy per
 * device (as libsplit allocates each buffer on every device), with copies of interval sets
 * between them. Kernels run on a device's copy; only the intervals the bookkeeping moves are
 * ever copied, so a wrong region shows up as a wrong result. Device memories can live on
 * SharedArrayBuffers, so that a device's worker thread computes in place (device-threads.ts).
 */
import type { IntervalSet } from './intervals.ts';
import type { BufferData, BufferSpec, Memory } from './kernel.ts';

/** A fresh array of the same type and length, zero-filled (or filled with `from`); on a SharedArrayBuffer when `shared`. */
function like(a: BufferData, from?: BufferData, shared = false): BufferData {
  const bytes = a.length * a.BYTES_PER_ELEMENT;
  const store = shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
  const out = a instanceof Int32Array ? new Int32Array(store) : new Float64Array(store);
  if (from) out.set(from);
  return out;
}

/** The host's and every device's copy of every buffer. */
export class Memories {
  /** The host's buffers. */
  readonly host: Record<string, BufferData> = {};
  /** Each device's buffers. */
  readonly devices: Record<string, BufferData>[];

  /** Host buffers start with the initial content, device buffers with garbage (NaN / -1) so that a read of data never copied is visible. */
  constructor(buffers: readonly BufferSpec[], deviceCount: number, shared = false) {
    for (const b of buffers) this.host[b.name] = like(b.init, b.init);
    this.devices = Array.from({ length: deviceCount }, () => {
      const m: Record<string, BufferData> = {};
      for (const b of buffers) {
        const a = like(b.init, undefined, shared);
        a.fill(a instanceof Int32Array ? -1 : Number.NaN);
        m[b.name] = a;
      }
      return m;
    });
  }

  /** The memory of device `d`, or the host's for -1. */
  of(d: number): Memory {
    return d < 0 ? this.host : this.devices[d]!;
  }

  /** Copies `set` of `buffer` from memory `from` to memory `to` (-1: host); returns the bytes copied. */
  copy(buffer: string, set: IntervalSet, from: number, to: number): number {
    const src = this.of(from)[buffer]!;
    const dst = this.of(to)[buffer]!;
    const b = set.bounds;
    for (let i = 0; i < b.length; i += 2) dst.set(src.subarray(b[i]!, b[i + 1]!), b[i]!);
    return set.size * src.BYTES_PER_ELEMENT;
  }
}
