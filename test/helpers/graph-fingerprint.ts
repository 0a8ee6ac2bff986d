/**
 * A fingerprint of a task graph: every table a simulation reads (codelets with their kinds
 * and flop counts at a probe size, handles with sizes, names, discard flags and blocks,
 * tasks with codelets, priorities, flops, names, affinities, phases and accesses in order,
 * and the dependency edges in creation order), hashed with SHA-256. Two graphs with the
 * same fingerprint simulate the same way.
 */
import { createHash } from 'node:crypto';
import type { TaskGraph } from '../../src/core/graph.ts';

/** Counts and the SHA-256 of the graph's tables (see the file comment). */
export interface GraphFingerprint {
  tasks: number;
  handles: number;
  edges: number;
  accesses: number;
  bytes: number;
  flops: number;
  sha256: string;
}

/** Fingerprints `g`. */
export function graphFingerprint(g: TaskGraph): GraphFingerprint {
  const h = createHash('sha256');
  const line = (...xs: unknown[]) => h.update(`${xs.map(String).join(',')}\n`);
  for (const c of g.codelets) line('c', c.name, c.kinds.join('+'), c.flops ? c.flops(7, 5, 3) : 'none');
  let bytes = 0;
  for (let d = 0; d < g.handleCount; d++) {
    bytes += g.handleSize.data[d]!;
    line(
      'h',
      g.handleSize.data[d],
      g.handleNames[d],
      g.handleDiscard.data[d],
      g.handleBlockRow.data[d],
      g.handleBlockCol.data[d],
    );
  }
  let flops = 0;
  for (let t = 0; t < g.taskCount; t++) {
    flops += g.taskFlops.data[t]!;
    const acc = g.accesses(t).map(([d, m]) => `${d}:${m}`);
    line(
      't',
      g.taskCodelet.data[t],
      g.taskPriority.data[t],
      g.taskFlops.data[t],
      g.taskNames[t],
      g.taskAffinity.data[t],
      g.taskPhase.data[t],
      g.taskApp.data[t],
      g.predCount.data[t],
      acc.join(' '),
    );
  }
  for (let e = 0; e < g.edgeCount; e++) line('e', g.edgeSource.data[e], g.edgeTarget.data[e]);
  return {
    tasks: g.taskCount,
    handles: g.handleCount,
    edges: g.edgeCount,
    accesses: g.accessHandle.length,
    bytes,
    flops,
    sha256: h.digest('hex'),
  };
}
