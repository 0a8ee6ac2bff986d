/**
 * Seed 004's coherence policies, on top of MSI with write-invalidate (a writer invalidates
 * every other copy): the memory of a GPU is a cache of host memory.
 */
export interface CoherenceOptions {
  /** Copy a block home as soon as a task on a device has written it (write-through). */
  writeThrough?: boolean;
  /**
   * After each task on a device, free its operands: 'all' (runtime version 1), 'aliens' (the
   * blocks the device does not own, version 2), or 'none' (keep them, the default).
   */
  freeAfterTask?: 'none' | 'aliens' | 'all';
  /**
   * Software cache of alien blocks: at most this many alien replicas per device, the least
   * recently used one evicted first (version 3's cache lines; default unlimited).
   */
  alienCacheLines?: number;
  /** Owner memory node of each handle (owner-computes mapping), -1 for none. */
  owners?: Int32Array;
}

/** True when the options change anything from plain write-back with replicas kept. */
export function coherenceActive(c: CoherenceOptions | undefined): c is CoherenceOptions {
  return (
    c !== undefined &&
    (c.writeThrough === true || (c.freeAfterTask ?? 'none') !== 'none' || c.alienCacheLines !== undefined)
  );
}
