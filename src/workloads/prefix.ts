/**
 * Reshapes a generated graph for seed 004's step-by-step tables: keep only the first `count`
 * tasks in submission order (`--stop-after`), and/or run tasks one at a time in submission
 * order (`--serial`, a dependency from each task to the next).
 */
import { type Access, TaskGraph } from '../core/graph.ts';
import { LocusError } from '../core/types.ts';

/** A copy of `g` with its first `count` tasks, chained one after the other when `serial`. */
export function prefixGraph(g: TaskGraph, count: number, serial: boolean): TaskGraph {
  if (!Number.isInteger(count) || count < 1)
    throw new LocusError('LOCUS_OPTION_INVALID', `stopAfter must be a positive integer (got ${count})`, {
      params: ['stopAfter'],
    });
  const n = Math.min(count, g.taskCount);
  const out = new TaskGraph();
  for (const c of g.codelets) out.addCodelet(c);
  for (let h = 0; h < g.handleCount; h++) {
    const row = g.handleBlockRow.data[h]!;
    out.addHandle(g.handleSize.data[h]!, {
      name: g.handleNames[h],
      discard: g.handleDiscard.data[h] === 1,
      ...(row >= 0 ? { block: [row, g.handleBlockCol.data[h]!] as const } : {}),
    });
  }
  for (let t = 0; t < n; t++) {
    const accesses: Access[] = g.accesses(t);
    const affinity = g.taskAffinity.data[t]!;
    const phase = g.taskPhase.data[t]!;
    out.submit(g.taskCodelet.data[t]!, accesses, {
      priority: g.taskPriority.data[t]!,
      flops: g.taskFlops.data[t]!,
      ...(g.taskNames[t] !== undefined ? { name: g.taskNames[t] } : {}),
      ...(affinity >= 0 ? { affinity } : {}),
      ...(phase >= 0 ? { phase } : {}),
    });
  }
  for (let t = 0; t < n; t++) {
    for (const s of g.successors(t)) if (s < n) out.addDependency(t, s);
    if (serial && t > 0) out.addDependency(t - 1, t);
  }
  return out;
}
