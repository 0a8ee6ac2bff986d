/** Settings of the seeded fuzz tests: how many cases (LOCUS_FUZZ, default `byDefault`) and the seed. */

/** Cases to run: LOCUS_FUZZ when set (e.g. LOCUS_FUZZ=5000), else `byDefault`. */
export function fuzzRuns(byDefault: number): number {
  const n = Number(process.env.LOCUS_FUZZ ?? byDefault);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`LOCUS_FUZZ must be a positive integer (got ${process.env.LOCUS_FUZZ})`);
  return n;
}

/** The fuzz seed: LOCUS_FUZZ_SEED when set, else a fixed one (runs are reproducible). */
export function fuzzSeed(): number {
  return Number(process.env.LOCUS_FUZZ_SEED ?? 27);
}
