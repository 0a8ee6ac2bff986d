/** Performance models: history statistics, regressions, and their files on disk. */
export { entryStd, type HistoryEntry, HistoryModel, mergeEntry, type Sample } from './history.ts';
export type { BusPair } from './model.ts';
export {
  evalLinear,
  evalPower,
  fitFromHistory,
  fitLinear,
  fitPowerLaw,
  type HistoryWeighting,
  type LinearFit,
  type PowerFit,
} from './regression.ts';
export { type BusModel, ModelStore, sanitizeName } from './store.ts';
