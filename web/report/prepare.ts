/**
 * What the panels need beyond the decoded columns, computed once on load: each run's
 * codelet colours, memory steps per node, write-back instants per source node, and the first
 * transfer of each lane of each link (for hovering).
 */
import { codeletColors, WRITEBACK_KINDS } from './colors.ts';
import type { Run } from './decode.ts';

/** A run with its derived indices. */
export interface Prepared extends Run {
  /** Colour of each codelet index. */
  codeletColor: string[];
  /** Per node: indices into the memory columns, in time order. */
  memIndex: Uint32Array[];
  /** Per node: eviction indices, in time order. */
  evIndex: Uint32Array[];
  /** Per node: instants (s) of the write-backs leaving it, in time order. */
  writebacks: Float64Array[];
  /** Per link: index of each lane's first transfer, then the link's end. */
  laneStart: number[][];
}

/** Prepares `runs` (colours shared across them). */
export function prepareRuns(runs: Run[]): Prepared[] {
  const colors = codeletColors(runs.flatMap((r) => r.facts.codelets));
  return runs.map((run) => prepare(run, colors));
}

function prepare(run: Run, colors: Map<string, string>): Prepared {
  const { facts, columns: c } = run;
  const nodes = facts.platform.nodes.length;
  const byNode = (node: Uint8Array): Uint32Array[] => {
    const lists: number[][] = Array.from({ length: nodes }, () => []);
    for (let i = 0; i < node.length; i++) lists[node[i]!]?.push(i);
    return lists.map((l) => Uint32Array.from(l));
  };
  const wb: number[][] = Array.from({ length: nodes }, () => []);
  for (let i = 0; i < c.trStart.length; i++) {
    if (!WRITEBACK_KINDS.has(facts.kinds[c.trKind[i]!]!)) continue;
    const src = facts.links[c.trLink[i]!]!.src;
    wb[src]?.push(c.trStart[i]!);
  }
  const laneStart = facts.links.map((link, l) => {
    const from = facts.linkTransferStart[l]!;
    const to = facts.linkTransferStart[l + 1]!;
    const starts = new Array<number>(link.lanes + 1).fill(to);
    for (let i = to - 1; i >= from; i--) starts[c.trLane[i]!] = i;
    for (let k = link.lanes - 1; k >= 0; k--) starts[k] = Math.min(starts[k]!, starts[k + 1]!);
    return starts;
  });
  return {
    ...run,
    codeletColor: facts.codelets.map((n) => colors.get(n)!),
    memIndex: byNode(c.memNode),
    evIndex: byNode(c.evNode),
    writebacks: wb.map((l) => Float64Array.from(l).sort()),
    laneStart,
  };
}

/** First index in [lo, hi) with a[i] >= v (a sorted ascending there). */
export function lowerBound(a: ArrayLike<number>, v: number, lo = 0, hi = a.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** lowerBound over a[index[i]] for i in [0, index.length). */
export function lowerBoundIndexed(a: ArrayLike<number>, index: Uint32Array, v: number): number {
  let lo = 0;
  let hi = index.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[index[mid]!]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
