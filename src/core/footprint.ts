/**
 * Per-footprint performance rules: how long a codelet takes on a worker as a function of the
 * sizes of the task's data, as StarPU's per-footprint history models key durations (seed 001
 * section III.B: a model per codelet, architecture and data footprint). A platform file gives
 * them per worker and codelet, so one file describes a machine for every workload: a 960 x 3840
 * block product and a 960 tile product are both `gemm`, but take different times.
 *
 * Rules are tried in order and the first that matches applies: a rule with `sizes` matches a
 * task whose data sizes, in access order, are exactly those; a rule with `bytes` matches a task
 * whose data total exactly that; a rule with neither matches every task. A rule gives the
 * duration itself (`duration`, seconds) or a compute rate (`rate`, flop/s: the task's flops over
 * it). No match: the worker's rate for the codelet applies, as without rules.
 *
 * Matching reads the graph's access arrays and allocates nothing, so duration models can call
 * it per task and worker.
 */
import type { TaskGraph } from './graph.ts';

/** One rule of a per-footprint model (see the file comment). */
export interface FootprintRule {
  /** Matches tasks whose data sizes in bytes, in access order, are exactly these. */
  readonly sizes?: readonly number[];
  /** Matches tasks whose data total exactly this many bytes. */
  readonly bytes?: number;
  /** Duration of a matching task, in seconds. */
  readonly duration?: number;
  /** Compute rate of a matching task, in flop/s. */
  readonly rate?: number;
}

/** Whether `rule` matches `task` of `graph`. */
export function ruleMatches(graph: TaskGraph, task: number, rule: FootprintRule): boolean {
  const start = graph.accessStart.data[task]!;
  const end = graph.accessStart.data[task + 1]!;
  const sizes = rule.sizes;
  if (sizes !== undefined) {
    if (sizes.length !== end - start) return false;
    for (let a = start; a < end; a++) {
      if (graph.handleSize.data[graph.accessHandle.data[a]!]! !== sizes[a - start]) return false;
    }
    return true;
  }
  if (rule.bytes !== undefined) {
    let total = 0;
    for (let a = start; a < end; a++) total += graph.handleSize.data[graph.accessHandle.data[a]!]!;
    return total === rule.bytes;
  }
  return true;
}

/**
 * The duration of `task` under the first of `rules` that matches it, in seconds, or NaN when
 * none does (the caller then uses the worker's rate).
 */
export function footprintDuration(graph: TaskGraph, task: number, rules: readonly FootprintRule[]): number {
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r]!;
    if (!ruleMatches(graph, task, rule)) continue;
    return rule.duration ?? graph.taskFlops.data[task]! / rule.rate!;
  }
  return Number.NaN;
}
