/** Registry of eviction policies by name (`--eviction NAME`). */
import type { EvictionPolicy } from '../core/policy.ts';
import { LocusError } from '../core/types.ts';
import { BeladyEviction } from './belady.ts';
import { FifoEviction } from './fifo.ts';
import { LruEviction } from './lru.ts';
import { LufEviction } from './luf.ts';

/** Eviction policy factories, keyed by command-line name, with a one-line description. */
export const EVICTION_POLICIES: Record<string, { description: string; create(): EvictionPolicy }> = {
  lru: { description: 'least recently used replica first (StarPU default)', create: () => new LruEviction() },
  fifo: { description: 'first loaded replica first', create: () => new FifoEviction() },
  luf: {
    description: "least used in the future by the scheduler's planned tasks, then Belady (seed 000 Alg. 3)",
    create: () => new LufEviction(),
  },
  belady: {
    description: 'furthest next use in the known future first (Belady MIN)',
    create: () => new BeladyEviction(),
  },
};

/** Creates the eviction policy `name`; throws a LocusError listing the known names. */
export function createEviction(name: string): EvictionPolicy {
  const entry = EVICTION_POLICIES[name];
  if (!entry) {
    throw new LocusError(
      'LOCUS_NAME_UNKNOWN',
      `unknown eviction policy '${name}': use one of ${Object.keys(EVICTION_POLICIES).join(', ')}`,
    );
  }
  return entry.create();
}
