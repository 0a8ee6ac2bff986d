/**
 * The worker's side of RuntimeOptions.checkAccesses: before a kernel, W-only data are filled
 * with a poison pattern and R data are copied; after it, an R datum that changed or a W datum
 * with poisoned elements left fails the task, naming the access ("access #i"), which the
 * runtime turns into the datum's name (accessNames). Runs in the worker threads only, and only
 * for checked task records: the unchecked path costs nothing.
 */
import { AccessMode } from '../core/types.ts';
import type { DataView_ } from './protocol.ts';

/** The bytes of a view. */
function bytes(v: DataView_): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/**
 * The poison pattern of one element, by element size (little-endian bytes): a NaN with an
 * unusual payload for floats (0x7FF4DEADBEEFCAFE, 0x7FA5BEEF), 0xDEADBEEF for int32, 0xA5 for
 * bytes (a kernel writing exactly that value is reported as not writing: a false report, never
 * a missed one).
 */
const PATTERNS: Readonly<Record<number, Uint8Array>> = {
  8: Uint8Array.of(0xfe, 0xca, 0xef, 0xbe, 0xad, 0xde, 0xf4, 0x7f),
  4: Uint8Array.of(0xef, 0xbe, 0xa5, 0x7f),
  1: Uint8Array.of(0xa5),
};

/** The pattern of `v`'s elements (float32 and int32 share theirs). */
function pattern(size: number): Uint8Array {
  return PATTERNS[size]!;
}

/** Fills every element of `v` with the poison pattern. */
function poison(v: DataView_): void {
  const b = bytes(v);
  const p = pattern(v.BYTES_PER_ELEMENT);
  for (let i = 0; i < b.length; i += p.length) b.set(p, i);
}

/** Number of elements of `v` still holding the poison pattern. */
function poisoned(v: DataView_): number {
  const b = bytes(v);
  const p = pattern(v.BYTES_PER_ELEMENT);
  let n = 0;
  for (let i = 0; i < b.length; i += p.length) {
    let same = true;
    for (let k = 0; k < p.length && same; k++) same = b[i + k] === p[k];
    if (same) n++;
  }
  return n;
}

/** Copies of the R data of one checked task, taken before its kernel. */
export type AccessSnapshot = (Uint8Array | undefined)[];

/** Before the kernel: poisons W-only data, copies R data (modes: the accesses' AccessMode bits). */
export function beforeKernel(data: readonly DataView_[], modes: readonly number[]): AccessSnapshot {
  const saved: AccessSnapshot = [];
  for (let i = 0; i < data.length; i++) {
    const m = modes[i]!;
    if (m === AccessMode.W) poison(data[i]!);
    saved[i] = m === AccessMode.R ? bytes(data[i]!).slice() : undefined;
  }
  return saved;
}

/** After the kernel: the message of the first broken access rule, or undefined. */
export function afterKernel(
  data: readonly DataView_[],
  modes: readonly number[],
  saved: AccessSnapshot,
): string | undefined {
  for (let i = 0; i < data.length; i++) {
    const m = modes[i]!;
    const before = saved[i];
    if (before !== undefined) {
      const now = bytes(data[i]!);
      let k = 0;
      while (k < now.length && now[k] === before[k]) k++;
      if (k < now.length)
        return `its kernel wrote access #${i}, declared R (element ${Math.floor(k / data[i]!.BYTES_PER_ELEMENT)} changed): declare it RW, or do not write it`;
    }
    if (m === AccessMode.W) {
      const left = poisoned(data[i]!);
      if (left > 0)
        return `its kernel left ${left} of the ${data[i]!.length} elements of access #${i}, declared W, unwritten: write all of it, or declare it RW`;
    }
  }
  return undefined;
}
