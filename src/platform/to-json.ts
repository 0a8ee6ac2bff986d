/**
 * Writes a compiled Platform back as a platform file, the inverse of compilePlatform: every
 * route must be one link of its own, then shared buses, then (for routes touching the host)
 * the host bus, which is how the compiler builds them.
 */
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import type { BusSpec, LinkSpec, PlatformFile } from './schema.ts';
import { exactBandwidth, exactDuration, exactRate, exactSize } from './units.ts';

/** Whether link `bus` is a host bus: the last hop of every route to or from the host, of no other. */
function isHostBus(p: Platform, bus: number): boolean {
  const n = p.nodes.length;
  for (let k = 0; k < n * n; k++) {
    const src = Math.floor(k / n);
    const dst = k % n;
    const route = p.routes[k];
    if (!route || src === dst) continue;
    const touchesHost = src === p.homeNode || dst === p.homeNode;
    const ends = route.length > 1 && route[route.length - 1] === bus;
    if (touchesHost !== ends || route.indexOf(bus) !== route.lastIndexOf(bus)) return false;
    if (!touchesHost && route.includes(bus)) return false;
  }
  return true;
}

/**
 * A platform file (JSON text, 2-space indented) describing `p`: parsePlatformFile reads it back
 * to an equal Platform (same nodes, workers, links and routes, in the same order when `p` was
 * itself compiled from a file or a preset). Throws a LocusError when a route cannot be written
 * as a link of its own plus shared buses.
 */
export function platformToJson(p: Platform): string {
  const n = p.nodes.length;
  const cannot = (why: string): never => {
    throw new LocusError(`platform '${p.name}' cannot be written as a platform file: ${why}`);
  };
  const hostBusIndex = p.links.findIndex((l) => l.name === 'host-bus');
  const hostBus = hostBusIndex >= 0 && isHostBus(p, hostBusIndex) ? hostBusIndex : -1;

  const ownerOf = new Map<number, number>(); // own link -> route key
  for (let k = 0; k < n * n; k++) {
    const route = p.routes[k];
    if (!route || Math.floor(k / n) === k % n) continue;
    if (route.length === 0) cannot(`the route from ${p.nodes[Math.floor(k / n)]!.name} crosses no link`);
    const own = route[0]!;
    if (own === hostBus || ownerOf.has(own)) cannot(`link '${p.links[own]!.name}' starts several routes`);
    ownerOf.set(own, k);
  }
  for (const [own, k] of ownerOf) {
    for (let j = 0; j < n * n; j++) {
      if (j !== k && p.routes[j]?.includes(own))
        cannot(`link '${p.links[own]!.name}' is shared by several routes`);
    }
  }

  const figures = (l: number) => {
    const link = p.links[l]!;
    return { bandwidth: exactBandwidth(link.bandwidth), latency: exactDuration(link.latency) };
  };
  const buses: BusSpec[] = [];
  const links: LinkSpec[] = [];
  p.links.forEach((link, l) => {
    if (l === hostBus) return;
    const k = ownerOf.get(l);
    if (k === undefined) {
      buses.push({ name: link.name, ...figures(l) });
      return;
    }
    const src = Math.floor(k / n);
    const dst = k % n;
    const route = p.routes[k]!;
    const via = route.slice(1, route[route.length - 1] === hostBus ? -1 : undefined);
    if (via.some((b) => ownerOf.has(b) || b === hostBus))
      cannot(`the route over '${link.name}' crosses another route's link`);
    links.push({
      name: link.name,
      from: p.nodes[src]!.name,
      to: p.nodes[dst]!.name,
      ...figures(l),
      ...(via.length ? { via: via.map((b) => p.links[b]!.name) } : {}),
    });
  });

  const isGpu = (i: number) => p.nodes[i]!.kind === 'gpu';
  let peerToPeer = false;
  for (let k = 0; k < n * n; k++) {
    if (p.routes[k] && Math.floor(k / n) !== k % n && isGpu(Math.floor(k / n)) && isGpu(k % n))
      peerToPeer = true;
  }

  const file: PlatformFile = {
    name: p.name,
    memoryNodes: p.nodes.map((node) => ({
      name: node.name,
      kind: node.kind,
      capacity: node.capacity === Number.POSITIVE_INFINITY ? 'unlimited' : exactSize(node.capacity),
    })),
    workers: p.workers.map((w) => {
      const codelets = Object.entries(w.codeletFlops);
      return {
        name: w.name,
        kind: w.kind,
        memory: p.nodes[w.node]!.name,
        rate: exactRate(w.flops),
        ...(codelets.length
          ? { codelets: Object.fromEntries(codelets.map(([c, r]) => [c, exactRate(r)])) }
          : {}),
      };
    }),
    links,
    ...(buses.length ? { buses } : {}),
    ...(hostBus >= 0 ? { hostBus: figures(hostBus) } : {}),
    peerToPeer,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}
