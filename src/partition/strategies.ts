/**
 * The registry of partitioning strategies by name (seed 003 section V). A factory builds a
 * fresh strategy for one run. `adaptive` and `adaptive-comm` (src/partition/lp/) register here
 * with one line each; until then selecting them fails with a line naming what is missing.
 * `oracle` is not a factory of its own: the runner replays `adaptive-comm`'s converged ratios
 * through FixedRatiosStrategy (see oracleStrategy).
 */
import { LocusError } from '../core/types.ts';
import { FixedRatiosStrategy, UniformStrategy } from './fixed.ts';
import type { PartitionStrategy } from './strategy.ts';

/** Builds a fresh strategy. */
export type StrategyFactory = () => PartitionStrategy;

/** The strategies users can select (`--strategy`), with `oracle` which needs `adaptive-comm`. */
export const STRATEGY_NAMES = ['uniform', 'adaptive', 'adaptive-comm', 'oracle'] as const;

/** Registered factories. */
const FACTORIES = new Map<string, StrategyFactory>([['uniform', () => new UniformStrategy()]]);

/** Registers (or replaces) a strategy factory under `name`. */
export function registerStrategy(name: string, factory: StrategyFactory): void {
  FACTORIES.set(name, factory);
}

/** True when `name` can be built now. */
export function hasStrategy(name: string): boolean {
  return FACTORIES.has(name) || (name === 'oracle' && FACTORIES.has('adaptive-comm'));
}

/** A fresh strategy by name; `oracle` is not built here (it needs a first run, see oracleStrategy). */
export function createStrategy(name: string): PartitionStrategy {
  const f = FACTORIES.get(name);
  if (f) return f();
  if ((STRATEGY_NAMES as readonly string[]).includes(name)) {
    const missing = name === 'oracle' ? 'adaptive-comm' : name;
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `strategy ${name} is not available in this build: strategy '${missing}' (src/partition/lp/) is not registered; use uniform`,
    );
  }
  throw new LocusError(
    'LOCUS_OPTION_INVALID',
    `unknown strategy '${name}': use ${STRATEGY_NAMES.join(', ')}`,
  );
}

/** The oracle: `ratios` (adaptive-comm's last ones) from the first iteration on. */
export function oracleStrategy(ratios: readonly (readonly number[])[]): PartitionStrategy {
  return new FixedRatiosStrategy(ratios, 'oracle');
}
