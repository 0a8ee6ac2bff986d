/** Registry of eviction policies by name (`--eviction NAME`). */
import type { EvictionPolicy } from '../core/policy.ts';
import { LocusError } from '../core/types.ts';
import { FifoEviction } from './fifo.ts';
import { LruEviction } from './lru.ts';

/** Eviction policy factories, keyed by command-line name, with a one-line description. */
export const EVICTION_POLICIES: Record<string, { description: string; create(): EvictionPolicy }> = {
  lru: { description: 'least recently used replica first (StarPU default)', create: () => new LruEviction() },
  fifo: { description: 'first loaded replica first', create: () => new FifoEviction() },
};

/** Creates the eviction policy `name`; throws a LocusError listing the known names. */
export function createEviction(name: string): EvictionPolicy {
  const entry = EVICTION_POLICIES[name];
  if (!entry) {
    throw new LocusError(
      `unknown eviction policy '${name}': use one of ${Object.keys(EVICTION_POLICIES).join(', ')}`,
    );
  }
  return entry.create();
}
