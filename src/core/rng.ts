/**
 * The run's seeded random source (pure-rand's xoroshiro128+), shared by every policy that
 * draws, so a run is reproducible from its seed.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { JumpableRandomGenerator } from 'pure-rand/types/JumpableRandomGenerator';

/** A seeded generator of uniform integers. */
export class Rng {
  private readonly gen: JumpableRandomGenerator;

  constructor(seed: number) {
    this.gen = xoroshiro128plus(seed | 0);
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return n <= 1 ? 0 : uniformInt(this.gen, 0, n - 1);
  }
}
