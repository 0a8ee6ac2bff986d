/**
 * The strategies that never adapt: `uniform` (seed 003 section V: ratio 1/n for every
 * sub-kernel) and fixed ratios given up front (the `oracle`, which replays the ratios
 * `adaptive-comm` converged to from the first iteration).
 */
import { LocusError } from '../core/types.ts';
import type { IterationObservation, PartitionStrategy, RatioDecision, SequenceShape } from './strategy.ts';

/** Ratio 1/n for every kernel on every device. */
export class UniformStrategy implements PartitionStrategy {
  readonly name = 'uniform';
  initial(shape: SequenceShape): number[][] {
    return Array.from({ length: shape.kernels }, () =>
      Array.from({ length: shape.devices }, () => 1 / shape.devices),
    );
  }
  next(shape: SequenceShape, _observation: IterationObservation): RatioDecision {
    return { ratios: this.initial(shape), solveSeconds: 0 };
  }
}

/** The same given ratios every iteration. */
export class FixedRatiosStrategy implements PartitionStrategy {
  /** `ratios[k][d]`, each row summing to 1; `name` for reports (e.g. "oracle"). */
  constructor(
    private readonly ratios: readonly (readonly number[])[],
    readonly name = 'fixed',
  ) {}
  initial(shape: SequenceShape): number[][] {
    if (this.ratios.length !== shape.kernels || this.ratios.some((r) => r.length !== shape.devices))
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `${this.name}: fixed ratios are ${this.ratios.length} x ${this.ratios[0]?.length ?? 0}, the sequence needs ${shape.kernels} kernels x ${shape.devices} devices`,
      );
    return this.ratios.map((r) => [...r]);
  }
  next(shape: SequenceShape, _observation: IterationObservation): RatioDecision {
    return { ratios: this.initial(shape), solveSeconds: 0 };
  }
}
