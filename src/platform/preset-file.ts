/**
 * A preset's platform file, trusted (Locus writes it), parsed without zod: quantities to SI
 * units and defaults applied as platformFileSchema does, so that building a preset does not
 * load the schema (start-up, issue 25). A preset is a bug when this throws; test/platform.test.ts
 * compiles every preset both ways and compares the platforms. O(size of the file).
 */
import { PLATFORM_LIMITS } from './limits.ts';
import type { FootprintRuleSpec, ParsedPlatformFile, PlatformFile, Quantity, WorkerSpec } from './schema.ts';
import { parseBandwidth, parseDuration, parsePower, parseRate, parseSize } from './units.ts';

type Parsed = ParsedPlatformFile;

/** A capacity: a size, or "unlimited" (Infinity). */
function capacity(v: Quantity): number {
  if (typeof v === 'string' && v.trim().toLowerCase() === 'unlimited') return Number.POSITIVE_INFINITY;
  const bytes = parseSize(v);
  if (bytes > PLATFORM_LIMITS.capacity) throw new Error(`preset capacity ${v} is more than 1 EiB`);
  return bytes;
}

/** An optional latency. */
function latency(v: Quantity | undefined): number | undefined {
  return v === undefined ? undefined : parseDuration(v);
}

/** A footprint rule's quantities. */
function rule(r: FootprintRuleSpec): {
  footprint?: number[];
  bytes?: number;
  duration?: number;
  rate?: number;
} {
  return {
    ...(r.footprint !== undefined ? { footprint: r.footprint.map((v) => parseSize(v)) } : {}),
    ...(r.bytes !== undefined ? { bytes: parseSize(r.bytes) } : {}),
    ...(r.duration !== undefined ? { duration: parseDuration(r.duration) } : {}),
    ...(r.rate !== undefined ? { rate: parseRate(r.rate) } : {}),
  };
}

/** A worker's quantities. */
function worker(w: WorkerSpec): Parsed['workers'][number] {
  let codelets: Parsed['workers'][number]['codelets'];
  if (w.codelets !== undefined) {
    codelets = {};
    for (const [name, entry] of Object.entries(w.codelets)) {
      codelets[name] = Array.isArray(entry) ? entry.map(rule) : parseRate(entry);
    }
  }
  const p = w.power;
  return {
    name: w.name,
    kind: w.kind,
    memory: w.memory,
    rate: parseRate(w.rate),
    ...(codelets !== undefined ? { codelets } : {}),
    ...(w.count !== undefined ? { count: w.count } : {}),
    ...(p !== undefined
      ? {
          power: {
            computing: parsePower(p.computing),
            polling: parsePower(p.polling),
            blocked: parsePower(p.blocked),
            ...(p.controlThread !== undefined ? { controlThread: parsePower(p.controlThread) } : {}),
          },
        }
      : {}),
  };
}

/** Parses a preset's file as platformFileSchema would (without its validation). */
export function parsePresetFile(f: PlatformFile): ParsedPlatformFile {
  const c = f.cluster;
  return {
    ...(f.name !== undefined ? { name: f.name } : {}),
    ...(f.description !== undefined ? { description: f.description } : {}),
    memoryNodes: f.memoryNodes.map((n) => ({ name: n.name, kind: n.kind, capacity: capacity(n.capacity) })),
    workers: f.workers.map(worker),
    links: (f.links ?? []).map((l) => ({
      ...(l.name !== undefined ? { name: l.name } : {}),
      from: l.from,
      to: l.to,
      bandwidth: parseBandwidth(l.bandwidth),
      latency: latency(l.latency),
      ...(l.bidirectional !== undefined ? { bidirectional: l.bidirectional } : {}),
      ...(l.via !== undefined ? { via: l.via } : {}),
    })),
    buses: (f.buses ?? []).map((b) => ({
      name: b.name,
      bandwidth: parseBandwidth(b.bandwidth),
      latency: latency(b.latency),
    })),
    ...(f.hostBus !== undefined
      ? { hostBus: { bandwidth: parseBandwidth(f.hostBus.bandwidth), latency: latency(f.hostBus.latency) } }
      : {}),
    peerToPeer: f.peerToPeer ?? true,
    ...(f.staticPower !== undefined ? { staticPower: parsePower(f.staticPower) } : {}),
    ...(c !== undefined
      ? {
          cluster: {
            nodes: c.nodes,
            network: {
              nicBandwidth: parseBandwidth(c.network.nicBandwidth),
              latency: latency(c.network.latency),
              ...(c.network.switchBandwidth !== undefined
                ? { switchBandwidth: parseBandwidth(c.network.switchBandwidth) }
                : {}),
            },
          },
        }
      : {}),
  };
}
