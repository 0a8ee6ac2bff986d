/**
 * Writes a compiled Platform back as a platform file, the inverse of compilePlatform: every
 * route must be one link of its own, then shared buses, then (for routes touching the host)
 * the host bus, which is how the compiler builds them.
 */
import type { FootprintRule } from '../core/footprint.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import type { BusSpec, FootprintRuleSpec, LinkSpec, PlatformFile, Quantity, WorkerSpec } from './schema.ts';
import { exactBandwidth, exactDuration, exactPower, exactRate, exactSize } from './units.ts';

/** A footprint rule as written in a platform file. */
function ruleSpec(r: FootprintRule): FootprintRuleSpec {
  return {
    ...(r.sizes !== undefined ? { footprint: r.sizes.map(exactSize) } : {}),
    ...(r.bytes !== undefined ? { bytes: exactSize(r.bytes) } : {}),
    ...(r.duration !== undefined ? { duration: exactDuration(r.duration) } : { rate: exactRate(r.rate!) }),
  };
}

/**
 * The workers of `p` as file entries; a run of identical workers named x0, x1, ... x{K-1}
 * (K >= 2) becomes one entry with count K, which compiles back to the same workers.
 */
function workerSpecs(p: Platform): WorkerSpec[] {
  const specs: WorkerSpec[] = [];
  const key = (i: number) => {
    const w = p.workers[i]!;
    return JSON.stringify([w.kind, w.node, w.flops, w.codeletFlops, w.codeletModels, w.power]);
  };
  for (let i = 0; i < p.workers.length; ) {
    const w = p.workers[i]!;
    const base = w.name.endsWith('0') ? w.name.slice(0, -1) : undefined;
    let k = 1;
    while (
      base !== undefined &&
      i + k < p.workers.length &&
      p.workers[i + k]!.name === `${base}${k}` &&
      key(i + k) === key(i)
    ) {
      k++;
    }
    const models = w.codeletModels ?? {};
    const codelets: [string, Quantity | FootprintRuleSpec[]][] = Object.entries(w.codeletFlops)
      .filter(([c]) => models[c] === undefined)
      .map(([c, r]) => [c, exactRate(r)]);
    for (const [c, rules] of Object.entries(models)) codelets.push([c, rules.map(ruleSpec)]);
    specs.push({
      name: k > 1 ? base! : w.name,
      kind: w.kind,
      memory: p.nodes[w.node]!.name,
      rate: exactRate(w.flops),
      ...(codelets.length ? { codelets: Object.fromEntries(codelets) } : {}),
      ...(k > 1 ? { count: k } : {}),
      ...(w.power
        ? {
            power: {
              computing: exactPower(w.power.computing),
              polling: exactPower(w.power.polling),
              blocked: exactPower(w.power.blocked),
              controlThread: exactPower(w.power.controlThread),
            },
          }
        : {}),
    });
    i += k;
  }
  return specs;
}

/** JSON on one line with a space after colons and commas: {"name": "ram", "kind": "host"}. */
function oneLine(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(oneLine).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${oneLine(x)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(v);
}

/** Writes a platform file with one top-level field per line and one array entry per line. */
function writeFile(file: PlatformFile): string {
  const fields = Object.entries(file).map(([k, v]) => {
    const value =
      Array.isArray(v) && v.length ? `[\n${v.map((x) => `    ${oneLine(x)}`).join(',\n')}\n  ]` : oneLine(v);
    return `  ${JSON.stringify(k)}: ${value}`;
  });
  return `{\n${fields.join(',\n')}\n}\n`;
}

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
    throw new LocusError(
      'LOCUS_PLATFORM_INVALID',
      `platform '${p.name}' cannot be written as a platform file: ${why}`,
    );
  };
  const attached = p.nodes.find((x) => x.kind === 'disk');
  if (attached !== undefined)
    cannot(`disk '${attached.name}' is attached (write the platform before attachDisk)`);
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
    memoryNodes: [
      ...p.nodes.map((node) => ({
        name: node.name,
        kind: node.kind,
        capacity: node.capacity === Number.POSITIVE_INFINITY ? 'unlimited' : exactSize(node.capacity),
      })),
      ...(p.disks ?? []).map((d) => ({
        name: d.name,
        kind: 'disk' as const,
        capacity: exactSize(d.capacity),
        readBandwidth: exactBandwidth(d.readBandwidth),
        writeBandwidth: exactBandwidth(d.writeBandwidth),
        latency: exactDuration(d.latency),
        ...(d.path !== undefined ? { path: d.path } : {}),
      })),
    ],
    workers: workerSpecs(p),
    links,
    ...(buses.length ? { buses } : {}),
    ...(hostBus >= 0 ? { hostBus: figures(hostBus) } : {}),
    peerToPeer,
    ...(p.staticPower !== undefined ? { staticPower: exactPower(p.staticPower) } : {}),
    ...(p.cluster !== undefined
      ? {
          cluster: {
            nodes: [...p.cluster.nodes],
            network: {
              nicBandwidth: exactBandwidth(p.cluster.nicBandwidth),
              latency: exactDuration(p.cluster.latency),
              ...(Number.isFinite(p.cluster.switchBandwidth)
                ? { switchBandwidth: exactBandwidth(p.cluster.switchBandwidth) }
                : {}),
            },
          },
        }
      : {}),
  };
  return writeFile(file);
}
