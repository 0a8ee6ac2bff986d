/**
 * Out of core (issue 30): a disk memory node below host memory. A disk is attached to a
 * compiled platform as one more memory node of kind 'disk', joined to host memory by two links
 * (`ram->nvme` at the write bandwidth, `nvme->ram` at the read bandwidth, each with the
 * disk's latency). Copies between the disk and a GPU cross the disk's link and the GPU's own
 * route to or from host memory (host bus included) as one copy: the bytes go at the slower
 * bandwidth and never occupy host memory on the way (what GPUDirect Storage does; StarPU
 * instead stages them in RAM).
 *
 * With a disk attached, the engine makes it every handle's home (src/core/engine.ts): the data
 * start there, and host memory holds replicas under its capacity like a GPU memory, so the
 * memory manager's eviction (src/core/data/memory.ts) evicts from host memory too: a clean
 * replica (valid on the disk) is dropped, a modified one is written to the disk first.
 */
import type { DiskSpec, Link, MemoryNode, Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { parseBandwidth, parseDuration, parseSize } from './units.ts';

/**
 * Disk presets for `--disk NAME`. `nvme`: a Samsung 990 PRO 2 TB (Samsung, "990 PRO NVMe
 * SSD" data sheet, 2022): sequential read up to 7,450 MB/s and sequential write up to
 * 6,900 MB/s; its random 4 KiB read at queue depth 1, up to 22,000 IOPS, gives the latency of
 * one access, 1 / 22,000 s ~ 45 us.
 */
export const DISK_PRESETS: Readonly<Record<string, DiskSpec>> = {
  nvme: {
    name: 'nvme',
    capacity: parseSize('2TB'),
    readBandwidth: parseBandwidth('7.45GB/s'),
    writeBandwidth: parseBandwidth('6.9GB/s'),
    latency: parseDuration('45us'),
  },
};

/**
 * The disk `name` names: one of the platform file's disk nodes (Platform.disks), else a preset
 * of DISK_PRESETS. Throws LOCUS_NAME_UNKNOWN for anything else.
 */
export function resolveDisk(p: Platform, name: string): DiskSpec {
  const own = p.disks?.find((d) => d.name === name);
  if (own !== undefined) return own;
  const preset = DISK_PRESETS[name.toLowerCase()];
  if (preset !== undefined) return preset;
  const known = [...(p.disks ?? []).map((d) => d.name), ...Object.keys(DISK_PRESETS)].join(', ');
  throw new LocusError(
    'LOCUS_NAME_UNKNOWN',
    `--disk ${name}: no such disk (a disk node of platform ${p.name} or a preset: ${known})`,
  );
}

/** The platform with host memory capped at `bytes` (`--host-mem`). */
export function withHostMemory(p: Platform, bytes: number): Platform {
  if (!(Number.isFinite(bytes) && bytes > 0)) {
    throw new LocusError('LOCUS_OPTION_INVALID', `--host-mem must be a positive size (got ${bytes})`);
  }
  return {
    ...p,
    nodes: p.nodes.map((n, i) => (i === p.homeNode ? { ...n, capacity: bytes } : n)),
  };
}

/**
 * The platform with `disk` attached as its last memory node: two links to and from host
 * memory, and routes from the disk to every node and back (through host memory's routes, see
 * the file's comment). The node indices of the platform are unchanged. O(nodes^2).
 */
export function attachDisk(p: Platform, disk: DiskSpec): Platform {
  if (p.nodes.some((n) => n.kind === 'disk')) {
    throw new LocusError('LOCUS_OPTION_CONFLICT', `platform ${p.name} already has a disk attached`);
  }
  if (p.cluster !== undefined) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `platform ${p.name} is a cluster: a disk applies to one machine (no --cluster sim)`,
    );
  }
  const n = p.nodes.length;
  const d = n;
  const host = p.homeNode;
  const hostName = p.nodes[host]!.name;
  const nodes: MemoryNode[] = [...p.nodes, { name: disk.name, kind: 'disk', capacity: disk.capacity }];
  const links: Link[] = [...p.links];
  const write =
    links.push({
      name: `${hostName}->${disk.name}`,
      bandwidth: disk.writeBandwidth,
      latency: disk.latency,
    }) - 1;
  const read =
    links.push({
      name: `${disk.name}->${hostName}`,
      bandwidth: disk.readBandwidth,
      latency: disk.latency,
    }) - 1;
  const m = n + 1;
  const routes: (readonly number[] | null)[] = new Array(m * m).fill(null);
  for (let s = 0; s < n; s++) for (let t = 0; t < n; t++) routes[s * m + t] = p.routes[s * n + t] ?? null;
  routes[d * m + d] = [];
  for (let x = 0; x < n; x++) {
    if (x === host) {
      routes[d * m + x] = [read];
      routes[x * m + d] = [write];
      continue;
    }
    const from = p.routes[host * n + x];
    const to = p.routes[x * n + host];
    routes[d * m + x] = from ? [read, ...from] : null;
    routes[x * m + d] = to ? [...to, write] : null;
  }
  return { ...p, nodes, links, routes };
}

/** The index of the platform's disk node, -1 when none is attached. O(nodes). */
export function diskNodeOf(p: Platform): number {
  return p.nodes.findIndex((n) => n.kind === 'disk');
}
