/** The viewer's colours: codelets (Tableau 10, then repeats), transfer kinds, states. */

const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#b07aa1',
  '#edc948',
  '#76b7b2',
  '#ff9da7',
  '#9c755f',
  '#e15759',
  '#bab0ac',
];

/** One colour per codelet name (in name order: the same in every page with those codelets). */
export function codeletColors(names: readonly string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const n of [...new Set(names)].sort()) m.set(n, PALETTE[m.size % PALETTE.length]!);
  return m;
}

/**
 * Transfer kinds (src/core/protocol.ts TRANSFER_KIND_NAMES): hues outside the codelet palette,
 * so that the shared legend never gives a copy kind and a codelet one colour.
 */
export const KIND_COLORS: Record<string, string> = {
  fetch: '#08306b',
  prefetch: '#41b6c4',
  stage: '#6a51a3',
  writeback: '#a6611a',
  flush: '#67000d',
  'write-through': '#dfc27d',
  'early-writeback': '#c51b7d',
};

/** Kinds that write data home (marked on their source node's memory). */
export const WRITEBACK_KINDS = new Set(['writeback', 'flush', 'write-through', 'early-writeback']);

/** A worker's row where it is idle. */
export const IDLE = '#f3f3f3';
/** A worker holding a task that waits for its data. */
export const WAITING = '#f4a6a6';
/** Eviction ticks. */
export const EVICT = '#d62728';
/** Write-back ticks. */
export const WRITEBACK = '#1f77b4';
/** Memory in use. */
export const MEMORY = '#8cb3d9';
/** The ready-task count. */
export const READY = '#59a14f';
