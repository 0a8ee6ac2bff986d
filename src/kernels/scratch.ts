/**
 * Float64 scratch buffers for the single-precision paths. Every dense kernel has one float64
 * core; a float32 tile is widened into a module-level Float64Array, factored or updated
 * there and rounded back. This keeps the hot loops monomorphic (V8 shares type feedback
 * between closures made from one function literal, so a factory of two copies does not
 * specialise; feeding both array types to one loop costs about 30% on gemm), makes float32
 * run at the float64 speed, and accumulates in double before one final rounding. The
 * buffers are per thread (per module instance), grown on demand to the largest tile seen
 * and never shrunk: up to 4 n^2 doubles (3 for most kernels) for float32 tiles of edge n.
 */
import type { Tile } from './types.ts';

/** Scratch slot numbers: one per operand of a kernel call, so operands never share a buffer. */
export const SLOT_A = 0;
/** Scratch slot of a kernel's second operand. */
export const SLOT_B = 1;
/** Scratch slot of a kernel's output operand. */
export const SLOT_C = 2;
/** Scratch slot of a transposed operand (gemm with transA). */
export const SLOT_T = 3;

const pool: Float64Array[] = [];

/** Scratch buffer `slot` with at least `length` elements; its contents are unspecified. */
export function scratch(slot: number, length: number): Float64Array {
  let s = pool[slot];
  if (s === undefined || s.length < length) {
    s = new Float64Array(length);
    pool[slot] = s;
  }
  return s;
}

/**
 * The first `length` elements of `t` as a Float64Array: `t` itself when it is one,
 * otherwise a widened copy in scratch slot `slot`.
 */
export function widen(t: Tile, length: number, slot: number): Float64Array {
  if (t instanceof Float64Array) return t;
  const s = scratch(slot, length);
  s.set(length === t.length ? t : t.subarray(0, length));
  return s;
}

/** Writes a result computed in `work` back into `t` (rounding to float32) unless they are the same array. */
export function narrow(work: Float64Array, t: Tile, length: number): void {
  if (work !== t) t.set(length === work.length ? work : work.subarray(0, length));
}
