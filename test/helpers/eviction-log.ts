/** An engine observer for hand-built memory tests: node 1's evictions, transfers started, task ends. */
import type { EngineObserver } from '../../src/core/engine.ts';

/** Records the evictions of node 1 (frees with reason 'evict'), the transfer starts and task ends. */
export class EvictionLog implements EngineObserver {
  readonly evicted: number[] = [];
  /** Transfer ids and start times (kinds and handles read from the engine after the run). */
  readonly started: { id: number; at: number }[] = [];
  readonly ended = new Map<number, number>();
  replicaFreed(h: number, n: number, reason: string): void {
    if (n === 1 && reason === 'evict') this.evicted.push(h);
  }
  transferStarted(id: number, now: number): void {
    this.started.push({ id, at: now });
  }
  taskFinished(task: number, _w: number, now: number): void {
    this.ended.set(task, now);
  }
}
