/**
 * The JSON platform file: its TypeScript shape, its zod schema, and the compiler that validates a
 * file and turns it into the engine's Platform (compile.ts; docs/platform-format.md describes
 * the format).
 * Every error is a LocusError of one line: "file: field.path: what is wrong".
 */
import { basename } from 'node:path';
import { z } from 'zod';
import type { Platform } from '../core/platform.ts';
import { LocusError, type WorkerKind } from '../core/types.ts';
import { compileParsed } from './compile.ts';
import { PLATFORM_LIMITS } from './limits.ts';
import { parseBandwidth, parseDuration, parsePower, parseRate, parseSize } from './units.ts';

export { PLATFORM_LIMITS } from './limits.ts';
export { platformToJson } from './to-json.ts';

/** A quantity in a platform file: an SI number, or a string with a unit ("10.9GB/s"). */
export type Quantity = number | string;

/** A memory node of a platform file. */
export interface MemoryNodeSpec {
  /** Unique node name ("ram", "gpu0"). */
  name: string;
  /**
   * 'host' (exactly one node: main memory, the home of every handle), 'gpu', or 'disk' (at
   * most one: a disk below host memory for runs out of core, src/platform/disk.ts).
   */
  kind: 'host' | 'gpu' | 'disk';
  /** Size ("500MiB", "192GiB", bytes) or "unlimited" (not for a disk). */
  capacity: Quantity;
  /** Disk only (required): bandwidth of reads, disk to host memory ("7.45GB/s"). */
  readBandwidth?: Quantity;
  /** Disk only (required): bandwidth of writes, host memory to disk ("6.9GB/s"). */
  writeBandwidth?: Quantity;
  /** Disk only (optional, default 0): latency of every read or write ("45us"). */
  latency?: Quantity;
  /** Disk only (optional): the directory a real run keeps the disk's file in ("/scratch"). */
  path?: string;
}

/** A worker (or, with `count`, a group of identical workers) of a platform file. */
export interface WorkerSpec {
  /** Worker name; with `count` K, the workers are named name0 .. name{K-1}. */
  name: string;
  /** 'cpu' (on the host node) or 'gpu' (on a gpu node). */
  kind: WorkerKind;
  /** Name of the memory node the worker computes from. */
  memory: string;
  /** Default compute rate ("12.6TFlop/s", flop/s). */
  rate: Quantity;
  /**
   * Per-codelet compute rates, overriding `rate`; or, per codelet, a list of footprint rules
   * (durations or rates by data sizes, tried in order: src/core/footprint.ts).
   */
  codelets?: Record<string, Quantity | FootprintRuleSpec[]>;
  /** Number of identical workers (default 1: one worker named `name`). */
  count?: number;
  /** Watts per state (seed 002's energy model); see WorkerPower. */
  power?: { computing: Quantity; polling: Quantity; blocked: Quantity; controlThread?: Quantity };
}

/**
 * A footprint rule of a platform file: which tasks it matches (`footprint`: the sizes of the
 * task's data in access order; `bytes`: their total; neither: every task) and how long they
 * take (`duration`, or `rate` in flop/s).
 */
export interface FootprintRuleSpec {
  /** Sizes of the task's data, in access order ("14.0625MiB" or bytes). */
  footprint?: Quantity[];
  /** Total size of the task's data. */
  bytes?: Quantity;
  /** Duration of a matching task ("41.2ms", seconds). */
  duration?: Quantity;
  /** Compute rate of a matching task ("10TFlop/s"). */
  rate?: Quantity;
}

/** A shared link that link routes can cross (`via`), such as one PCIe bus for two GPUs. */
export interface BusSpec {
  /** Unique link name ("pcie-a"). */
  name: string;
  /** Bandwidth ("5.7GB/s", bytes/s), shared by every transfer crossing the bus. */
  bandwidth: Quantity;
  /** Latency ("10us", seconds; default 0). */
  latency?: Quantity;
}

/** A directed link from one memory node to another (two links with `bidirectional`). */
export interface LinkSpec {
  /** Unique name; default "from->to" (and "to->from" for the reverse of a bidirectional link). */
  name?: string;
  /** Source memory node name. */
  from: string;
  /** Destination memory node name. */
  to: string;
  /** Bandwidth ("10.9GB/s", bytes/s). */
  bandwidth: Quantity;
  /** Latency ("10us", seconds; default 0). */
  latency?: Quantity;
  /** Also create the reverse link, with the same figures (default false). */
  bidirectional?: boolean;
  /** Names of buses that the route over this link also crosses. */
  via?: string[];
}

/** A platform file, as written in JSON (quantities not yet parsed). */
export interface PlatformFile {
  /** Platform name (default: the file name without .json). */
  name?: string;
  /** Free text for readers; ignored by the compiler. */
  description?: string;
  /** Memory nodes: exactly one of kind host, any number of kind gpu. */
  memoryNodes: MemoryNodeSpec[];
  /** Workers, each on one memory node. */
  workers: WorkerSpec[];
  /** Directed links; every GPU node needs one to and one from the host node. */
  links?: LinkSpec[];
  /** Shared links that links name in `via`. */
  buses?: BusSpec[];
  /** One link, named "host-bus", crossed by every route to or from the host node. */
  hostBus?: { bandwidth: Quantity; latency?: Quantity };
  /** Whether GPUs copy to each other directly (default true); false drops GPU-to-GPU links. */
  peerToPeer?: boolean;
  /** Watts the machine draws whatever its workers do ("150W"). */
  staticPower?: Quantity;
  /**
   * Makes the file a cluster: `nodes` nodes, each the machine the rest of the file describes,
   * joined by a network (docs/platform-format.md, "Clusters").
   */
  cluster?: ClusterSpec;
}

/** The `cluster` field of a platform file. */
export interface ClusterSpec {
  /** The number of nodes, or their names (node0 .. node{N-1} by default). */
  nodes: number | string[];
  /** The network joining them. */
  network: {
    /** Bandwidth of each node's network interface, each direction ("3.2GB/s"). */
    nicBandwidth: Quantity;
    /** Latency of one message, NIC to NIC ("1.5us"; default 0). */
    latency?: Quantity;
    /** Bandwidth of the switch's backbone, shared by all messages (default: non-blocking). */
    switchBandwidth?: Quantity;
  };
}

/**
 * A field holding a quantity: parsed by `parse`, whose LocusError message (plus `what`, more
 * examples) becomes the issue's.
 */
function quantity(parse: (v: unknown) => number, what = '') {
  return z.unknown().transform((v, ctx) => {
    try {
      return parse(v);
    } catch (e) {
      const message =
        v === undefined ? `missing; ${(e as Error).message.split('; ')[1]}` : (e as Error).message;
      ctx.issues.push({ code: 'custom', message: message + what, input: v });
      return z.NEVER;
    }
  });
}

/** A capacity: a size up to PLATFORM_LIMITS.capacity or "unlimited" (Infinity). */
const capacity = quantity((v) => {
  if (typeof v === 'string' && v.trim().toLowerCase() === 'unlimited') return Number.POSITIVE_INFINITY;
  const bytes = parseSize(v);
  if (bytes > PLATFORM_LIMITS.capacity) {
    throw new LocusError(
      'LOCUS_PLATFORM_INVALID',
      `${typeof v === 'string' ? `'${v}'` : v} is more than 1 EiB (the limit)`,
    );
  }
  return bytes;
}, ', or unlimited');
const name = z.string().min(1);
const bandwidth = quantity(parseBandwidth);
const latency = quantity((v) => {
  const s = parseDuration(v);
  if (s > PLATFORM_LIMITS.latency) {
    throw new LocusError(
      'LOCUS_PLATFORM_INVALID',
      `${typeof v === 'string' ? `'${v}'` : v} is more than ${PLATFORM_LIMITS.latency} s (the limit)`,
    );
  }
  return s;
}).optional();
const rate = quantity(parseRate);
const power = quantity(parsePower);
const size = quantity(parseSize);
const duration = quantity(parseDuration);

/** Rules per codelet and worker, at most (a calibrated export writes one per measured footprint). */
const MAX_FOOTPRINT_RULES = 4096;

/** A footprint rule: at most one of footprint/bytes, exactly one of duration/rate. */
const footprintRule = z
  .strictObject({
    footprint: z.array(size).min(1).max(PLATFORM_LIMITS.footprintSizes).optional(),
    bytes: size.optional(),
    duration: duration.optional(),
    rate: rate.optional(),
  })
  .superRefine((r, ctx) => {
    if (r.footprint !== undefined && r.bytes !== undefined) {
      ctx.addIssue({ code: 'custom', message: "give 'footprint' or 'bytes', not both" });
    }
    if ((r.duration === undefined) === (r.rate === undefined)) {
      ctx.addIssue({ code: 'custom', message: "give exactly one of 'duration' and 'rate'" });
    }
    if (r.duration !== undefined && !(r.duration > 0)) {
      ctx.addIssue({ code: 'custom', message: 'duration must be positive', path: ['duration'] });
    }
  });

const footprintRules = z.array(footprintRule).min(1).max(MAX_FOOTPRINT_RULES);

/**
 * A codelet's entry: a rate, or a list of footprint rules. Dispatched on the value's shape (not
 * a zod union) so that an error names the field that is wrong rather than "invalid input".
 */
const codeletEntry = z.unknown().transform((v, ctx): number | z.output<typeof footprintRules> => {
  const result = Array.isArray(v) ? footprintRules.safeParse(v, { error: issueMessage }) : rate.safeParse(v);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    ctx.issues.push({ code: 'custom', message: issue.message, input: v, path: issue.path });
  }
  return z.NEVER;
});

/**
 * A cluster's `nodes`: a count or a list of names, dispatched on the value's shape (not a zod
 * union) so that the error says what is expected.
 */
const clusterNodes = z.unknown().transform((v, ctx): number | string[] => {
  const max = PLATFORM_LIMITS.clusterNodes;
  const bad = (message: string) => {
    ctx.issues.push({ code: 'custom', message, input: v });
    return z.NEVER;
  };
  if (Array.isArray(v)) {
    if (v.length === 0) return bad('needs at least 1 node name');
    if (v.length > max) return bad(`has ${v.length} nodes, more than ${max} (the limit)`);
    const i = v.findIndex((x) => typeof x !== 'string' || x.length === 0);
    if (i >= 0) return bad(`entry ${i} is ${JSON.stringify(v[i])}, not a node name (a non-empty string)`);
    return v as string[];
  }
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max) return v;
  return bad(
    `${v === undefined ? 'missing' : `${JSON.stringify(v)} is not a node count`}; give a count from 1 to ${max} (e.g. 4) or a list of node names (["n0", "n1"])`,
  );
});

/** The zod schema of a platform file; unknown fields are errors (they are usually typos). */
export const platformFileSchema = z.strictObject({
  name: name.optional(),
  description: z.string().optional(),
  memoryNodes: z
    .array(
      z.strictObject({
        name,
        kind: z.enum(['host', 'gpu', 'disk']),
        capacity,
        readBandwidth: bandwidth.optional(),
        path: z.string().min(1).optional(),
        writeBandwidth: bandwidth.optional(),
        latency,
      }),
    )
    .min(1)
    .max(PLATFORM_LIMITS.memoryNodes),
  workers: z
    .array(
      z.strictObject({
        name,
        kind: z.enum(['cpu', 'gpu']),
        memory: name,
        rate,
        codelets: z
          .record(name, codeletEntry)
          .refine((c) => Object.keys(c).length <= PLATFORM_LIMITS.codelets, {
            message: `at most ${PLATFORM_LIMITS.codelets} codelets`,
          })
          .optional(),
        count: z.int().min(1).max(PLATFORM_LIMITS.workers).optional(),
        power: z
          .strictObject({ computing: power, polling: power, blocked: power, controlThread: power.optional() })
          .optional(),
      }),
    )
    .min(1)
    .max(PLATFORM_LIMITS.workers),
  links: z
    .array(
      z.strictObject({
        name: name.optional(),
        from: name,
        to: name,
        bandwidth,
        latency,
        bidirectional: z.boolean().optional(),
        via: z.array(name).max(PLATFORM_LIMITS.buses).optional(),
      }),
    )
    .max(PLATFORM_LIMITS.links)
    .default([]),
  buses: z.array(z.strictObject({ name, bandwidth, latency })).max(PLATFORM_LIMITS.buses).default([]),
  hostBus: z.strictObject({ bandwidth, latency }).optional(),
  peerToPeer: z.boolean().default(true),
  staticPower: power.optional(),
  cluster: z
    .strictObject({
      nodes: clusterNodes,
      network: z.strictObject({ nicBandwidth: bandwidth, latency, switchBandwidth: bandwidth.optional() }),
    })
    .optional(),
});

/** A validated platform file with its quantities in SI units. */
export type ParsedPlatformFile = z.output<typeof platformFileSchema>;

/** Writes a zod issue path as "workers[1].memory". */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(key))) out += (out ? '.' : '') + String(key);
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** Clearer messages than zod's defaults for missing and unknown fields. */
function issueMessage(iss: {
  code?: string;
  input?: unknown;
  expected?: unknown;
  keys?: string[];
  origin?: string;
  minimum?: unknown;
  maximum?: unknown;
}) {
  if (iss.code === 'too_small' && iss.origin === 'array') return `needs at least ${iss.minimum} entry`;
  if (iss.code === 'too_big' && iss.origin === 'array')
    return `has more than ${iss.maximum} entries (the limit)`;
  if (iss.code === 'too_big') return `${String(iss.input)} is more than ${iss.maximum} (the limit)`;
  if (iss.code === 'invalid_type' && iss.input === undefined) return `missing (expected ${iss.expected})`;
  if (iss.code === 'unrecognized_keys' && iss.keys) {
    return `unknown field${iss.keys.length > 1 ? 's' : ''} ${iss.keys.map((k) => `'${k}'`).join(', ')}`;
  }
  return undefined;
}

/**
 * Validates a platform file's content (already parsed from JSON, or written by a preset) and
 * compiles it. `source` names it in error messages; `defaultName` is the platform name used when
 * the file has none. Throws a one-line LocusError.
 */
export function compilePlatform(data: unknown, source: string, defaultName = source): Platform {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new LocusError(
      'LOCUS_PLATFORM_INVALID',
      `${source}: a platform file holds one JSON object ({"memoryNodes": [...], ...})`,
    );
  }
  const result = platformFileSchema.safeParse(data, { error: issueMessage });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = formatPath(issue.path);
    const others = result.error.issues.length - 1;
    const more = others > 0 ? ` (and ${others} more error${others > 1 ? 's' : ''})` : '';
    throw new LocusError(
      'LOCUS_PLATFORM_INVALID',
      `${source}: ${where ? `${where}: ` : ''}${issue.message}${more}`,
    );
  }
  return compileParsed(result.data, source, defaultName);
}

/**
 * Parses and compiles the text of a JSON platform file. `fileName` names the file in error
 * messages and, without .json, is the platform name when the file has no "name".
 */
export function parsePlatformFile(text: string, fileName: string): Platform {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    let message = (e as Error).message.replace(/\s+/g, ' ');
    const pos = /at position (\d+)/.exec(message);
    if (pos && !/line \d+/.test(message)) {
      const before = text.slice(0, Number(pos[1])).split('\n');
      message += ` (line ${before.length} column ${before[before.length - 1]!.length + 1})`;
    }
    throw new LocusError('LOCUS_PLATFORM_INVALID', `${fileName}: invalid JSON: ${message}`);
  }
  return compilePlatform(data, fileName, basename(fileName).replace(/\.json$/i, ''));
}
