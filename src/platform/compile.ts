/**
 * The platform compiler's second half: a validated platform file (schema.ts, or a preset's
 * trusted file, preset-file.ts) turned into the engine's Platform, checking names, references
 * and routes. Free of zod, so that building a preset does not load it.
 */
import type { FootprintRule } from '../core/footprint.ts';
import type { ClusterNetwork, DiskSpec, Link, MemoryNode, Platform, Worker } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { PLATFORM_LIMITS } from './limits.ts';
import type { ParsedPlatformFile } from './schema.ts';

/** Turns a validated file into a Platform, checking names, references and routes. */
export function compileParsed(spec: ParsedPlatformFile, source: string, defaultName: string): Platform {
  const fail = (path: string, message: string): never => {
    throw new LocusError('LOCUS_PLATFORM_INVALID', `${source}: ${path}: ${message}`);
  };

  const nodes: MemoryNode[] = [];
  const nodeIndex = new Map<string, number>();
  // Disk nodes are kept apart (Platform.disks): a run attaches one only when it is needed.
  const disks: DiskSpec[] = [];
  const diskNames = new Map<string, number>();
  spec.memoryNodes.forEach((n, i) => {
    const prev = nodeIndex.get(n.name) ?? diskNames.get(n.name);
    if (prev !== undefined)
      fail(`memoryNodes[${i}].name`, `duplicate name '${n.name}' (also memoryNodes[${prev}])`);
    if (n.capacity <= 0) fail(`memoryNodes[${i}].capacity`, 'must be positive');
    if (n.kind === 'disk') {
      if (disks.length > 0) fail(`memoryNodes[${i}]`, 'a platform has at most one disk node');
      if (!Number.isFinite(n.capacity)) fail(`memoryNodes[${i}].capacity`, 'a disk has a finite capacity');
      for (const f of ['readBandwidth', 'writeBandwidth'] as const) {
        const v = n[f];
        if (v === undefined) fail(`memoryNodes[${i}].${f}`, `a disk node needs its ${f} (e.g. "7GB/s")`);
        else if (!(v > 0)) fail(`memoryNodes[${i}].${f}`, 'must be positive');
      }
      diskNames.set(n.name, i);
      disks.push({
        name: n.name,
        capacity: n.capacity,
        readBandwidth: n.readBandwidth!,
        writeBandwidth: n.writeBandwidth!,
        latency: n.latency ?? 0,
        ...(n.path !== undefined ? { path: n.path } : {}),
      });
      return;
    }
    for (const f of ['readBandwidth', 'writeBandwidth', 'latency', 'path'] as const) {
      if (n[f] !== undefined) fail(`memoryNodes[${i}].${f}`, `only a disk node has a ${f}`);
    }
    nodeIndex.set(n.name, nodes.length);
    nodes.push({ name: n.name, kind: n.kind, capacity: n.capacity });
  });
  const hosts = nodes.filter((n) => n.kind === 'host').map((n) => `'${n.name}'`);
  if (hosts.length !== 1) {
    fail(
      'memoryNodes',
      `exactly one node must be of kind 'host' (found ${hosts.length}${hosts.length ? `: ${hosts.join(', ')}` : ''})`,
    );
  }
  const homeNode = nodes.findIndex((n) => n.kind === 'host');
  const home = nodes[homeNode]!.name;
  const known = [...nodeIndex.keys()].join(', ');
  const lookup = (path: string, nodeName: string): number =>
    nodeIndex.get(nodeName) ??
    (diskNames.has(nodeName)
      ? fail(
          path,
          `'${nodeName}' is a disk node: its links come from its readBandwidth and writeBandwidth, and no worker computes from it`,
        )
      : fail(path, `no memory node named '${nodeName}' (known: ${known})`));

  const workers: Worker[] = [];
  const workerIndex = new Map<string, string>();
  spec.workers.forEach((w, i) => {
    const node = lookup(`workers[${i}].memory`, w.memory);
    const nodeKind = nodes[node]!.kind;
    if (w.kind === 'cpu' && nodeKind !== 'host') {
      fail(
        `workers[${i}].memory`,
        `a cpu worker computes from the host node '${home}', not from gpu node '${w.memory}'`,
      );
    }
    if (w.kind === 'gpu' && nodeKind !== 'gpu') {
      fail(
        `workers[${i}].memory`,
        `a gpu worker computes from a gpu node, not from the host node '${w.memory}'`,
      );
    }
    if (workers.length + (w.count ?? 1) > PLATFORM_LIMITS.workers) {
      fail(
        `workers[${i}].count`,
        `the platform would have more than ${PLATFORM_LIMITS.workers} workers (the limit); group fewer cores`,
      );
    }
    const rates: Record<string, number> = {};
    const models: Record<string, FootprintRule[]> = {};
    for (const [codelet, entry] of Object.entries(w.codelets ?? {})) {
      if (typeof entry === 'number') {
        rates[codelet] = entry;
        continue;
      }
      models[codelet] = entry.map((r) => ({
        ...(r.footprint !== undefined ? { sizes: r.footprint } : {}),
        ...(r.bytes !== undefined ? { bytes: r.bytes } : {}),
        ...(r.duration !== undefined ? { duration: r.duration } : { rate: r.rate! }),
      }));
      // A catch-all rule's rate is also the codelet's rate, for what reads rates only.
      const fallback = entry.find((r) => r.footprint === undefined && r.bytes === undefined);
      if (fallback?.rate !== undefined) rates[codelet] = fallback.rate;
    }
    const names =
      w.count === undefined ? [w.name] : Array.from({ length: w.count }, (_, k) => `${w.name}${k}`);
    for (const workerName of names) {
      const prev = workerIndex.get(workerName);
      if (prev !== undefined)
        fail(`workers[${i}].name`, `duplicate worker name '${workerName}' (also ${prev})`);
      workerIndex.set(workerName, `workers[${i}]`);
      workers.push({
        name: workerName,
        kind: w.kind,
        node,
        flops: w.rate,
        codeletFlops: rates,
        ...(Object.keys(models).length ? { codeletModels: models } : {}),
        ...(w.power ? { power: { ...w.power, controlThread: w.power.controlThread ?? 0 } } : {}),
      });
    }
  });

  const links: Link[] = [];
  const linkIndex = new Map<string, string>();
  const addLink = (path: string, link: Link): number => {
    const prev = linkIndex.get(link.name);
    if (prev !== undefined) fail(path, `duplicate link name '${link.name}' (also ${prev})`);
    linkIndex.set(link.name, path);
    if (links.length >= PLATFORM_LIMITS.links)
      fail(path, `more than ${PLATFORM_LIMITS.links} links (the limit)`);
    links.push(link);
    return links.length - 1;
  };
  const hostBus = spec.hostBus
    ? addLink('hostBus', {
        name: 'host-bus',
        bandwidth: spec.hostBus.bandwidth,
        latency: spec.hostBus.latency ?? 0,
      })
    : undefined;
  const busIndex = new Map<string, number>();
  spec.buses.forEach((b, i) => {
    busIndex.set(
      b.name,
      addLink(`buses[${i}].name`, { name: b.name, bandwidth: b.bandwidth, latency: b.latency ?? 0 }),
    );
  });

  const n = nodes.length;
  const routes: (number[] | null)[] = Array.from({ length: n * n }, (_, k) =>
    Math.floor(k / n) === k % n ? [] : null,
  );
  const routeSource: string[] = [];
  spec.links.forEach((l, i) => {
    const from = lookup(`links[${i}].from`, l.from);
    const to = lookup(`links[${i}].to`, l.to);
    if (from === to)
      fail(`links[${i}].to`, `a link joins two different nodes (from and to are both '${l.to}')`);
    const via = (l.via ?? []).map((b, j, all) =>
      all.indexOf(b) < j
        ? fail(
            `links[${i}].via[${j}]`,
            `bus '${b}' is listed twice (also via[${all.indexOf(b)}]); a route crosses a bus once`,
          )
        : (busIndex.get(b) ??
          fail(
            `links[${i}].via[${j}]`,
            `no bus named '${b}' (${busIndex.size ? `known: ${[...busIndex.keys()].join(', ')}` : 'no buses are defined'})`,
          )),
    );
    if (!spec.peerToPeer && nodes[from]!.kind === 'gpu' && nodes[to]!.kind === 'gpu') return;
    const directions: [number, number, string][] = [[from, to, l.name ?? `${l.from}->${l.to}`]];
    if (l.bidirectional) directions.push([to, from, l.name ? `${l.name}:reverse` : `${l.to}->${l.from}`]);
    for (const [src, dst, linkName] of directions) {
      const key = src * n + dst;
      if (routes[key]) {
        fail(
          `links[${i}]`,
          `a second link from '${nodes[src]!.name}' to '${nodes[dst]!.name}' (the first is ${routeSource[key]})`,
        );
      }
      const own = addLink(`links[${i}]`, { name: linkName, bandwidth: l.bandwidth, latency: l.latency ?? 0 });
      const viaHost = hostBus !== undefined && (src === homeNode || dst === homeNode) ? [hostBus] : [];
      routes[key] = [own, ...via, ...viaHost];
      routeSource[key] = `links[${i}]`;
    }
  });

  nodes.forEach((node, g) => {
    if (node.kind !== 'gpu') return;
    for (const [src, dst] of [
      [homeNode, g],
      [g, homeNode],
    ] as const) {
      if (!routes[src * n + dst]) {
        fail(
          'links',
          `no link from '${nodes[src]!.name}' to '${nodes[dst]!.name}' (every gpu node needs links to and from the host node '${home}')`,
        );
      }
    }
  });

  return {
    name: spec.name ?? defaultName,
    nodes,
    homeNode,
    workers,
    links,
    routes,
    ...(disks.length ? { disks } : {}),
    ...(spec.staticPower !== undefined ? { staticPower: spec.staticPower } : {}),
    ...(spec.cluster !== undefined ? { cluster: compileCluster(spec.cluster, fail) } : {}),
  };
}

/** The cluster part of a validated file: node names (unique), the network's figures. */
function compileCluster(
  c: NonNullable<ParsedPlatformFile['cluster']>,
  fail: (path: string, message: string) => never,
): ClusterNetwork {
  const names = typeof c.nodes === 'number' ? Array.from({ length: c.nodes }, (_, i) => `node${i}`) : c.nodes;
  const seen = new Map<string, number>();
  names.forEach((n, i) => {
    const prev = seen.get(n);
    if (prev !== undefined)
      fail(`cluster.nodes[${i}]`, `duplicate node name '${n}' (also cluster.nodes[${prev}])`);
    seen.set(n, i);
  });
  const net = c.network;
  if (!(net.nicBandwidth > 0)) fail('cluster.network.nicBandwidth', 'must be positive');
  if (net.switchBandwidth !== undefined && !(net.switchBandwidth > 0))
    fail('cluster.network.switchBandwidth', 'must be positive (leave it out for a non-blocking switch)');
  return {
    nodes: names,
    nicBandwidth: net.nicBandwidth,
    latency: net.latency ?? 0,
    switchBandwidth: net.switchBandwidth ?? Number.POSITIVE_INFINITY,
  };
}
