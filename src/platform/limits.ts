/** Bounds on a platform file (schema.ts validates them, compile.ts checks the totals). */

/**
 * Bounds on a platform file's counts and sizes: far beyond any machine Locus models, low enough
 * that compiling, describing and simulating a platform stay fast (routes are nodes^2 tables;
 * each worker is an engine slot and, in real runs, a thread).
 */
export const PLATFORM_LIMITS = {
  /** Memory nodes. */
  memoryNodes: 256,
  /** Workers in all, counts included. */
  workers: 4096,
  /** Links (each bidirectional link counts twice), buses included. */
  links: 65_536,
  /** Buses. */
  buses: 1024,
  /** Per-codelet rates of one worker. */
  codelets: 1024,
  /** Sizes in one footprint rule (a task's accesses). */
  footprintSizes: 1024,
  /** Largest finite memory capacity in bytes: 1 EiB. */
  capacity: 2 ** 60,
  /** Smallest link bandwidth in bytes/s (below it a transfer's time is not meaningful). */
  minBandwidth: 1,
  /** Largest link bandwidth in bytes/s: 1 PB/s, far above any bus or network. */
  maxBandwidth: 1e15,
  /** Largest link latency in seconds. */
  latency: 1000,
  /** Nodes of a cluster. */
  clusterNodes: 1024,
} as const;
