/**
 * Human-readable summaries of a compiled platform, for `locus platforms` and run reports.
 */
import type { Platform } from '../core/platform.ts';
import { formatBandwidth, formatBytes, formatDuration, formatRate } from './units.ts';

/** Writes names compactly: "cpu0..cpu3" for a numbered run, else "a, b, c" (long lists cut). */
function names(list: readonly string[]): string {
  const m = list.map((s) => /^(.*?)(\d+)$/.exec(s));
  const first = m[0];
  if (
    list.length > 2 &&
    first &&
    m.every(
      (x, i) =>
        x && x[1] === first[1] && Number(x[2]) === Number(first[2]) + i && String(Number(x[2])) === x[2],
    )
  ) {
    return `${list[0]}..${list[list.length - 1]}`;
  }
  return list.length > 6 ? `${list.slice(0, 4).join(', ')} and ${list.length - 4} more` : list.join(', ');
}

/** Groups items by a key, keeping first-seen order. */
function groupBy<T>(items: readonly T[], key: (t: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const g = groups.get(k);
    if (g) g.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.values()];
}

/**
 * A few lines describing a platform: memory nodes and capacities, workers grouped by kind and
 * rates, links grouped by bandwidth and latency (shared ones marked), and peer-to-peer copies.
 */
export function describePlatform(p: Platform): string {
  const n = p.nodes.length;
  const home = p.nodes[p.homeNode]!.name;
  const lines = [
    `${p.name}: ${n} memory nodes, ${p.workers.length} workers, ${p.links.length} links; home node ${home}`,
  ];

  const nodeGroups = groupBy(p.nodes, (x) => `${x.kind} ${x.capacity}`);
  const nodeText = nodeGroups.map(
    (g) => `${names(g.map((x) => x.name))} ${formatBytes(g[0]!.capacity)} (${g[0]!.kind})`,
  );
  lines.push(`  memory: ${nodeText.join('; ')}`);

  const workerGroups = groupBy(
    p.workers,
    (w) => `${w.kind} ${w.flops} ${JSON.stringify(w.codeletFlops)} ${JSON.stringify(w.codeletModels)}`,
  );
  for (const g of workerGroups) {
    const w = g[0]!;
    const models = w.codeletModels ?? {};
    const codelets = Object.entries(w.codeletFlops)
      .filter(([c]) => models[c] === undefined)
      .map(([c, r]) => `${c} ${formatRate(r)}`);
    for (const [c, rules] of Object.entries(models)) {
      codelets.push(`${c} by footprint (${rules.length} rule${rules.length === 1 ? '' : 's'})`);
    }
    const rates = `${formatRate(w.flops)}${codelets.length ? ` (${codelets.join(', ')})` : ''}`;
    lines.push(`  ${w.kind} workers (${g.length}): ${names(g.map((x) => x.name))} at ${rates}`);
  }
  if (p.workers.length === 0) lines.push('  no workers');

  const uses = p.links.map(() => 0);
  p.routes.forEach((route, k) => {
    if (route && Math.floor(k / n) !== k % n) for (const l of route) uses[l]!++;
  });
  const linkGroups = groupBy(
    p.links.map((l, i) => ({ ...l, uses: uses[i]! })),
    (l) => `${l.bandwidth} ${l.latency} ${l.uses}`,
  );
  for (const g of linkGroups) {
    const l = g[0]!;
    const note =
      l.uses > 1 ? `, ${g.length > 1 ? 'each ' : ''}shared by ${l.uses} routes` : l.uses ? '' : ', unused';
    lines.push(
      `  link${g.length > 1 ? 's' : ''} ${names(g.map((x) => x.name))}: ${formatBandwidth(l.bandwidth)}, ${formatDuration(l.latency)}${note}`,
    );
  }

  const gpus = p.nodes.map((x, i) => (x.kind === 'gpu' ? i : -1)).filter((i) => i >= 0);
  let peer = 0;
  for (const a of gpus) for (const b of gpus) if (a !== b && p.routes[a * n + b]) peer++;
  if (gpus.length > 1) {
    const total = gpus.length * (gpus.length - 1);
    lines.push(
      peer === 0
        ? `  peer-to-peer: none, GPU-to-GPU copies go through ${home}`
        : `  peer-to-peer: ${peer} of ${total} GPU-to-GPU routes direct${peer < total ? `, the others through ${home}` : ''}`,
    );
  }
  for (const d of p.disks ?? []) {
    lines.push(
      `  disk ${d.name}: ${formatBytes(d.capacity)}, read ${formatBandwidth(d.readBandwidth)}, write ${formatBandwidth(d.writeBandwidth)}, ${formatDuration(d.latency)} (out of core: attached by --disk ${d.name} when the data exceed ${home})`,
    );
  }
  const c = p.cluster;
  if (c) {
    const sw = Number.isFinite(c.switchBandwidth) ? formatBandwidth(c.switchBandwidth) : 'non-blocking';
    lines.push(
      `  cluster: ${c.nodes.length} node${c.nodes.length > 1 ? 's' : ''} (${names(c.nodes)}), each the machine above; NIC ${formatBandwidth(c.nicBandwidth)} each way, latency ${formatDuration(c.latency)}, switch ${sw}`,
    );
  }
  return lines.join('\n');
}
