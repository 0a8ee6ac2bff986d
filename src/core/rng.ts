/**
 * The run's seeded random source (pure-rand's xoroshiro128+), shared by every policy that
 * draws, so a run is reproducible from its seed.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { JumpableRandomGenerator } from 'pure-rand/types/JumpableRandomGenerator';
import { LocusError } from './types.ts';

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
    this.gen = xoroshiro128plus(seed | 0);
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return n <= 1 ? 0 : uniformInt(this.gen, 0, n - 1);
  }
}
