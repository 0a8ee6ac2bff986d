/** The LP strategies of seed 003 section IV: `adaptive` and `adaptive-comm`, and their pieces. */
export {
  type AdaptiveOptions,
  adaptiveStrategy,
  fastestOf,
  SOLVE_REPEATS,
  type SolveInfo,
  uniformRatios,
} from './adaptive.ts';
export { adaptiveCommStrategy, TransferCoefficients } from './adaptive-comm.ts';
export { TimePerGroup } from './measure.ts';
export { type LinearProgram, type LpSolution, solveProgram, toLpFormat } from './program.ts';
export { CoefficientSamples, fitLine, type LinearFit } from './regression.ts';
export {
  buildSystem,
  NEGLIGIBLE_PAIR,
  type PairCoefficients,
  type PartitionSystem,
  transferVolume,
} from './system.ts';
