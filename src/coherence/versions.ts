/**
 * Seed 004's four runtime versions for multi-GPU dense linear algebra, as presets of the
 * engine's coherence policies under the static owner-computes scheduler:
 *
 * - v1, basic: every operand loaded before a task and freed after it; outputs written back at
 *   once (write-through).
 * - v2, data affinity + write-through: owned blocks stay on their GPU, alien blocks are freed
 *   after the task, every update is written through to host memory.
 * - v3, + software cache of alien blocks (LRU, `cacheLines` per GPU) with write-invalidate:
 *   a block's update invalidates the copies in the other GPUs.
 * - v4, + write-back: a modified block goes home only when another GPU needs it (the requester
 *   waits for the owner's flush) or at the end.
 *
 * Seed 004's version 1 dispatches tasks to any GPU as they become ready; under `static` they
 * follow the mapping, which changes nothing to its counts (every operand moves every time).
 */

import { LocusError } from '../core/types.ts';
import type { CoherenceOptions } from './options.ts';

/** The runtime versions by name. */
export const RUNTIME_VERSIONS = ['v1', 'v2', 'v3', 'v4'] as const;

/** One of RUNTIME_VERSIONS. */
export type RuntimeVersion = (typeof RUNTIME_VERSIONS)[number];

/** The coherence options of a runtime version; `owners` maps handles to their owner's node. */
export function runtimeVersion(v: string, owners: Int32Array, cacheLines?: number): CoherenceOptions {
  switch (v) {
    case 'v1':
      return { writeThrough: true, freeAfterTask: 'all', owners };
    case 'v2':
      return { writeThrough: true, freeAfterTask: 'aliens', owners };
    case 'v3':
      return {
        writeThrough: true,
        owners,
        ...(cacheLines !== undefined ? { alienCacheLines: cacheLines } : {}),
      };
    case 'v4':
      return { owners, ...(cacheLines !== undefined ? { alienCacheLines: cacheLines } : {}) };
    default:
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `runtime version must be one of ${RUNTIME_VERSIONS.join(', ')} (got '${v}')`,
      );
  }
}

/**
 * Coherence options from `--coherence`, for combinations the four versions do not name: a
 * comma-separated list of `write-through` or `write-back` (the default), `free=none|aliens|all`
 * (operands freed after each task), `cache=N` (alien cache lines, LRU). Write-invalidate is
 * always on: a writer invalidates every other copy (MSI).
 */
export function parseCoherence(spec: string, owners: Int32Array): CoherenceOptions {
  const out: { writeThrough?: boolean; freeAfterTask?: 'none' | 'aliens' | 'all'; alienCacheLines?: number } =
    {};
  for (const part of spec.split(',').map((p) => p.trim())) {
    const cache = /^cache=(\d+)$/.exec(part);
    const free = /^free=(none|aliens|all)$/.exec(part);
    if (part === 'write-through') out.writeThrough = true;
    else if (part === 'write-back') out.writeThrough = false;
    else if (free) out.freeAfterTask = free[1] as 'none' | 'aliens' | 'all';
    else if (cache) out.alienCacheLines = Number(cache[1]);
    else {
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `unknown part '${part}'; use write-through or write-back, free=none|aliens|all, cache=N (comma-separated)`,
      );
    }
  }
  if (out.freeAfterTask !== undefined && out.freeAfterTask !== 'none' && !out.writeThrough) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      'free=aliens or free=all needs write-through (a freed block must be home first)',
    );
  }
  return { ...out, owners };
}
