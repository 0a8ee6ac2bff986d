/**
 * The Runtime's per-task tables under recycling (Engine.compact, issue 25): when the engine
 * drops the records of tasks [0, k), the tables the Runtime keeps by task id shift down by k
 * with them, so a long session runs in bounded memory. Each helper costs O(what is left), so
 * a compaction, which the engine makes only once the dropped part is at least half of what it
 * held, stays amortised O(1) per task.
 */
import type { TaskPayloads } from './thread-backend.ts';

/** Drops tasks [0, k) of `p` (kernel, arguments, time limit): task t becomes t - k. */
export function dropPayloads(p: TaskPayloads, k: number): void {
  const n = p.kernel.length;
  p.kernel.data.copyWithin(0, k, n);
  p.kernel.length = n - k;
  if (p.timeLimit !== undefined) {
    p.timeLimit.data.copyWithin(0, k, n);
    p.timeLimit.length = n - k;
  }
  const starts = p.argStart.data;
  const first = starts[k]!;
  for (let t = 0; t <= n - k; t++) starts[t] = starts[t + k]! - first;
  p.argStart.length = n - k + 1;
  p.args.data.copyWithin(0, first, p.args.length);
  p.args.length -= first;
}

/** Drops entries [0, k) of a (possibly sparse) array indexed by task id. */
export function dropFront<T>(list: T[], k: number): void {
  if (list.length <= k) list.length = 0;
  else list.splice(0, k);
}

/** Drops entries [0, k) of a per-task state table of `n` tasks; the freed tail reads 0 again. */
export function dropStates(states: Uint8Array, k: number, n: number): void {
  states.copyWithin(0, k, n);
  states.fill(0, n - k, n);
}
