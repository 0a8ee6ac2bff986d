/**
 * The registry of partitioning strategies by name (seed 003 section V). A factory builds a
 * fresh strategy for one run: `uniform` (src/partition/fixed.ts), `adaptive` and
 * `adaptive-comm` (the linear programs of section IV, src/partition/lp/). `oracle` is not a
 * factory of its own: the runner replays `adaptive-comm`'s converged ratios
 * through FixedRatiosStrategy (see oracleStrategy).
 */
import { LocusError } from '../core/types.ts';
import { FixedRatiosStrategy, UniformStrategy } from './fixed.ts';
import { adaptiveCommStrategy, adaptiveStrategy } from './lp/index.ts';
import type { PartitionStrategy } from './strategy.ts';

/** Builds a fresh strategy. */
export type StrategyFactory = () => PartitionStrategy;

/** The strategies users can select (`--strategy`), with `oracle` which needs `adaptive-comm`. */
export const STRATEGY_NAMES = ['uniform', 'adaptive', 'adaptive-comm', 'oracle'] as const;

/** Registered factories. */
const FACTORIES = new Map<string, StrategyFactory>([
  ['uniform', () => new UniformStrategy()],
  ['adaptive', () => adaptiveStrategy()],
  ['adaptive-comm', () => adaptiveCommStrategy()],
]);

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
  throw new LocusError(
    'LOCUS_OPTION_INVALID',
    name === 'oracle'
      ? "strategy oracle replays adaptive-comm's converged ratios: build it with oracleStrategy() after an adaptive-comm run"
      : `unknown strategy '${name}': use ${STRATEGY_NAMES.join(', ')}`,
  );
}

/** The oracle: `ratios` (adaptive-comm's last ones) from the first iteration on. */
export function oracleStrategy(ratios: readonly (readonly number[])[]): PartitionStrategy {
  return new FixedRatiosStrategy(ratios, 'oracle');
}
