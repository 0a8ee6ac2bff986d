/**
 * The run's seeded random source (pure-rand's xoroshiro128+), shared by every policy that
 * draws, so a run is reproducible from its seed. The seed is hashed first (mixSeed): pure-rand
 * puts a raw seed straight into the generator's state, and the first draws of xoroshiro128+
 * from states that differ by a small integer are linear in it (seeds 1, 2, 3... give first
 * draws 646, 645, 644... out of 1000), so the repetitions of a sweep (seeds s, s + 1, ...)
 * would start with the same random decisions.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { JumpableRandomGenerator } from 'pure-rand/types/JumpableRandomGenerator';
import { LocusError } from './types.ts';

/**
 * The seed as it enters a generator: MurmurHash3's 32-bit finaliser (fmix32), a bijection on
 * 32-bit integers (distinct seeds stay distinct; 0 stays 0) that flips about half the output
 * bits for any one input bit, so consecutive seeds start unrelated streams. O(1).
 */
export function mixSeed(seed: number): number {
  let h = seed | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** A seeded generator of uniform integers. */
export class Rng {
  private readonly gen: JumpableRandomGenerator;

  /** Throws a LocusError unless `seed` is an integer (the CLI takes 0 to 2^31 - 1). */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) {
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `seed ${typeof seed === 'string' ? `'${seed}'` : String(seed)} is not a seed; use an integer from 0 to 2147483647`,
      );
    }
    this.gen = xoroshiro128plus(mixSeed(seed));
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return n <= 1 ? 0 : uniformInt(this.gen, 0, n - 1);
  }
}
