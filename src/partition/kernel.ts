/**
 * Partition-ready kernels (seed 003 section III.a): a data-parallel kernel over `ng`
 * work-groups whose read and write regions, per buffer, are functions of a contiguous
 * sub-range `[lo, hi)` of its work-groups. A region is a union of
 * - affine intervals `[a*lo + b, a*hi + c)` (stencils with halos: a row of `w` elements
 *   read with a one-row halo is `[w*lo - w, w*hi + w)`; a scan's prefix `[0, hi)`), and
 * - monotone indirections through an index array: `[s*idx[p(lo)], s*idx[q(hi)])` with `p`, `q`
 *   affine and clamped to the index array (a CSR row pointer: the non-zeros of rows
 *   `[lo, hi)` are `[rowptr[lo], rowptr[hi])`; the start offsets of spatial bins), and
 * - the whole buffer (reads through an arbitrary gather, as the `x` of a sparse product).
 * Instantiated regions are clipped to the buffer. The kernel itself runs on typed arrays for
 * any sub-range, and says how much work a sub-range holds (the simulator's time for it).
 */
import { IntervalSet } from './intervals.ts';

/** The typed arrays a benchmark's buffers are. */
export type BufferData = Float64Array | Int32Array;

/** A buffer of a sequence: name and initial content (whose length and element size it keeps). */
export interface BufferSpec {
  /** Unique name. */
  readonly name: string;
  /** Initial content. */
  readonly init: BufferData;
}

/** `[a*lo + b, a*hi + c)`, or `[aLo*lo + b, a*hi + c)` when `aLo` is given (a prefix `[0, hi)` has `aLo = 0`). */
export interface AffineRegion {
  readonly kind: 'affine';
  readonly a: number;
  readonly aLo?: number;
  readonly b: number;
  readonly c: number;
}

/** `[s*idx[a*lo + b], s*idx[a*hi + c])` with the positions clamped to the index array. */
export interface IndirectRegion {
  readonly kind: 'indirect';
  /** The index array (monotone non-decreasing), a buffer of the sequence. */
  readonly index: string;
  readonly a: number;
  readonly b: number;
  readonly c: number;
  /** Elements per index unit (2 for particles stored as x, y pairs). */
  readonly scale: number;
}

/** The whole buffer. */
export interface WholeRegion {
  readonly kind: 'whole';
}

/** One piece of a parametric region. */
export type Region = AffineRegion | IndirectRegion | WholeRegion;

/** What a kernel reads and writes of one buffer, each a union of regions. */
export interface BufferAccess {
  readonly buffer: string;
  readonly read?: readonly Region[];
  readonly write?: readonly Region[];
}

/** A device's memory as the kernel sees it: every buffer by name. */
export type Memory = Readonly<Record<string, BufferData>>;

/** A partition-ready kernel. */
export interface PartitionKernel {
  /** Name in reports. */
  readonly name: string;
  /** Codelet name: the key of per-device rates in platform files. */
  readonly codelet: string;
  /** `ng`: work-groups. */
  readonly workGroups: number;
  /** Regions per buffer. */
  readonly accesses: readonly BufferAccess[];
  /** Runs work-groups `[lo, hi)` on `mem` (reads and writes only inside the instantiated regions). */
  run(mem: Memory, lo: number, hi: number): void;
  /** Work units (flops or memory operations, the unit of the codelet's rate) of `[lo, hi)` given `mem`'s current content. */
  work(mem: Memory, lo: number, hi: number): number;
}

/** An iterated sequence of kernels over named buffers. */
export interface KernelSequence {
  /** Benchmark name. */
  readonly name: string;
  /** Buffers with their initial content. */
  readonly buffers: readonly BufferSpec[];
  /** Kernels, run in this order every iteration. */
  readonly kernels: readonly PartitionKernel[];
  /**
   * Where a worker thread gets the same kernels (threaded real mode): the URL of a module, the
   * name of a function it exports, and the (structured-clonable) arguments that make this
   * sequence; absent: the sequence runs only on the main thread.
   */
  readonly source?: SequenceSource;
}

/** A module, an exported factory and its arguments that rebuild a kernel sequence in a worker. */
export interface SequenceSource {
  /** Module URL (import.meta.url of the module that exports the factory). */
  readonly module: string;
  /** Name of the exported function returning the KernelSequence. */
  readonly export: string;
  /** Its arguments. */
  readonly args: readonly unknown[];
}

/** Reads entries of an index array (the runner reads them where they are valid). */
export type IndexReader = (buffer: string, position: number) => number;

/** An affine region. */
export function affine(a: number, b: number, c: number): AffineRegion {
  return { kind: 'affine', a, b, c };
}

/** The prefix `[0, a*hi + c)` (a scan reads every element before its sub-range's end). */
export function prefix(a: number, c: number): AffineRegion {
  return { kind: 'affine', a, aLo: 0, b: 0, c };
}

/** A monotone indirection through `index`. */
export function indirect(index: string, a: number, b: number, c: number, scale = 1): IndirectRegion {
  return { kind: 'indirect', index, a, b, c, scale };
}

/** The whole buffer. */
export const WHOLE: WholeRegion = { kind: 'whole' };

/**
 * Instantiates `regions` for work-groups `[lo, hi)` on a buffer of `length` elements; indirections
 * read their index array through `read` (`indexLength` gives each index array's length).
 * An empty sub-range has an empty region.
 */
export function instantiate(
  regions: readonly Region[],
  lo: number,
  hi: number,
  length: number,
  read: IndexReader,
  indexLength: (buffer: string) => number,
): IntervalSet {
  if (hi <= lo) return IntervalSet.EMPTY;
  const pairs: [number, number][] = [];
  for (const r of regions) {
    if (r.kind === 'whole') pairs.push([0, length]);
    else if (r.kind === 'affine') pairs.push([(r.aLo ?? r.a) * lo + r.b, r.a * hi + r.c]);
    else {
      const last = indexLength(r.index) - 1;
      const p = Math.min(last, Math.max(0, r.a * lo + r.b));
      const q = Math.min(last, Math.max(0, r.a * hi + r.c));
      pairs.push([r.scale * read(r.index, p), r.scale * read(r.index, q)]);
    }
  }
  return IntervalSet.fromPairs(pairs.map(([x, y]) => [Math.max(0, x), Math.min(length, y)]));
}
