/**
 * The pieces shared by the presets: a figure with its source, the preset options and their
 * checks, and a builder that writes the platform file of a host plus GPUs machine.
 */
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { compileParsed } from './compile.ts';
import { parsePresetFile } from './preset-file.ts';
import type { LinkSpec, PlatformFile, Quantity } from './schema.ts';
import { formatBytes } from './units.ts';

/** One number of a preset, with where it comes from (the seed, a vendor spec, or "assumed: why"). */
export interface Figure {
  /** What the number is ("RAM -> GPU bandwidth"). */
  readonly what: string;
  /** The value as written in a platform file ("10.9GB/s"). */
  readonly value: Quantity;
  /** Its source. */
  readonly source: string;
}

/** Shorthand for a Figure. */
export function fig(what: string, value: Quantity, source: string): Figure {
  return { what, value, source };
}

/** Prints a figure as one line of `locus platforms`. */
export function figureLine(f: Figure): string {
  return `${f.what}: ${f.value} (${f.source})`;
}

/** Options every preset honours. */
export interface PresetOptions {
  /** GPUs used, the first ones of the machine (default: the preset's default, usually all). */
  gpus?: number;
  /** CPU workers (default: the preset's, usually the cores not driving a GPU). */
  cpus?: number;
  /** Capacity of every GPU memory in bytes (default: the preset's). Not checked against the physical memory. */
  gpuMem?: number;
}

/** A preset: a described machine that builds a Platform from options. */
export interface Preset {
  /** One paragraph: the machine, where it comes from, and the defaults. */
  readonly description: string;
  /** Builds the platform for these options; throws a LocusError on invalid options. */
  build(opts?: PresetOptions): Platform;
  /** One line per figure: "what: value (source)". */
  figures(): string[];
}

/** A link's figures. */
export interface LinkFigures {
  /** Bandwidth ("10.9GB/s"). */
  readonly bandwidth: Quantity;
  /** Latency ("10us"). */
  readonly latency: Quantity;
}

/** What gpuMachine needs to write the platform file of a host with GPUs. */
export interface MachineSpec {
  /** Preset name. */
  name: string;
  /** Host RAM capacity. */
  ram: Quantity;
  /** Capacity of each GPU memory. */
  gpuMem: Quantity;
  /** GPUs used (the first `gpus` of the machine). */
  gpus: number;
  /** CPU workers on the host node. */
  cpus: number;
  /** CPU default rate. */
  cpuRate: Quantity;
  /** GPU default rate. */
  gpuRate: Quantity;
  /** GPU per-codelet rates. */
  gpuCodelets?: Record<string, Quantity>;
  /** RAM to GPU link of every GPU. */
  toGpu: LinkFigures;
  /** GPU to RAM link of every GPU. */
  toRam: LinkFigures;
  /** A bus crossed by every host transfer (all GPUs, both directions). */
  hostBus?: LinkFigures;
  /** A bus per pair of GPUs (0-1, 2-3, ...), crossed by their host transfers in both directions. */
  pairBus?: LinkFigures;
  /** Peer-to-peer link between GPUs i and j, undefined for none. */
  peer?: (i: number, j: number) => LinkFigures | undefined;
  /** Watts per state of a CPU worker and of a GPU worker (with its control thread's core). */
  power?: { cpu: PowerFigures; gpu: PowerFigures; static: Quantity };
}

/** Watts per state of one worker (WorkerPower), as written in a platform file. */
export interface PowerFigures {
  computing: Quantity;
  polling: Quantity;
  blocked: Quantity;
  controlThread?: Quantity;
}

/** Writes the platform file of a host ("ram") plus GPUs gpu0..gpu{K-1} machine. */
export function gpuMachine(m: MachineSpec): PlatformFile {
  const gpuIds = Array.from({ length: m.gpus }, (_, i) => i);
  const pairBus = (i: number) => `pcie-${String.fromCharCode(97 + Math.floor(i / 2))}`;
  const links: LinkSpec[] = [];
  for (const i of gpuIds) {
    const via = m.pairBus ? { via: [pairBus(i)] } : {};
    links.push({ from: 'ram', to: `gpu${i}`, ...m.toGpu, ...via });
    links.push({ from: `gpu${i}`, to: 'ram', ...m.toRam, ...via });
  }
  for (const i of gpuIds) {
    for (const j of gpuIds) {
      const peer = i === j ? undefined : m.peer?.(i, j);
      if (peer) links.push({ from: `gpu${i}`, to: `gpu${j}`, ...peer });
    }
  }
  const pairs = m.pairBus ? [...new Set(gpuIds.map(pairBus))] : [];
  return {
    name: m.name,
    memoryNodes: [
      { name: 'ram', kind: 'host', capacity: m.ram },
      ...gpuIds.map((i) => ({ name: `gpu${i}`, kind: 'gpu' as const, capacity: m.gpuMem })),
    ],
    workers: [
      ...gpuIds.map((i) => ({
        name: `gpu${i}`,
        kind: 'gpu' as const,
        memory: `gpu${i}`,
        rate: m.gpuRate,
        ...(m.gpuCodelets ? { codelets: { ...m.gpuCodelets } } : {}),
        ...(m.power ? { power: { ...m.power.gpu } } : {}),
      })),
      ...(m.cpus > 0
        ? [
            {
              name: 'cpu',
              kind: 'cpu' as const,
              memory: 'ram',
              rate: m.cpuRate,
              count: m.cpus,
              ...(m.power ? { power: { ...m.power.cpu } } : {}),
            },
          ]
        : []),
    ],
    links,
    ...(pairs.length ? { buses: pairs.map((name) => ({ name, ...m.pairBus! })) } : {}),
    ...(m.hostBus ? { hostBus: { ...m.hostBus } } : {}),
    peerToPeer: m.peer !== undefined,
    ...(m.power ? { staticPower: m.power.static } : {}),
  };
}

/** The machine limits and defaults that checkOptions validates options against. */
export interface Limits {
  /** GPUs in the machine. */
  gpus: number;
  /** Default GPUs used. */
  defaultGpus: number;
  /** CPU cores in the machine. */
  cores: number;
  /** Default CPU workers for a number of GPUs used. */
  defaultCpus: (gpus: number) => number;
}

/** Options after checking, with defaults applied (gpuMem stays undefined when not given). */
export interface CheckedOptions {
  /** GPUs used. */
  gpus: number;
  /** CPU workers. */
  cpus: number;
  /** GPU memory cap in bytes, if given. */
  gpuMem: number | undefined;
}

/** Checks preset options against the machine; throws a one-line LocusError. */
export function checkOptions(name: string, limits: Limits, opts: PresetOptions = {}): CheckedOptions {
  const count = (what: string, v: number, max: number) => {
    if (!Number.isInteger(v) || v < 0) {
      const shown = typeof v === 'string' ? `'${v}'` : String(v);
      throw new LocusError(
        'LOCUS_PLATFORM_INVALID',
        `preset ${name}: ${what} = ${shown} is not a count; use an integer from 0 to ${max}`,
      );
    }
    if (v > max) {
      throw new LocusError(
        'LOCUS_PLATFORM_INVALID',
        `preset ${name}: ${what} = ${v}, but the machine has ${max} ${what === 'gpus' ? 'GPUs' : 'cores'} (use 0 to ${max})`,
      );
    }
    return v;
  };
  const gpus = count('gpus', opts.gpus ?? limits.defaultGpus, limits.gpus);
  const cpus = count('cpus', opts.cpus ?? limits.defaultCpus(gpus), limits.cores);
  if (gpus === 0 && cpus === 0)
    throw new LocusError('LOCUS_PLATFORM_INVALID', `preset ${name}: no workers (gpus = 0 needs cpus > 0)`);
  const gpuMem = opts.gpuMem;
  if (gpuMem !== undefined && !(Number.isFinite(gpuMem) && gpuMem > 0)) {
    throw new LocusError(
      'LOCUS_PLATFORM_INVALID',
      `preset ${name}: gpuMem must be a positive number of bytes (got ${gpuMem})`,
    );
  }
  return { gpus, cpus, gpuMem };
}

/**
 * Compiles a preset's platform file (an error here is a bug in the preset, not the user's),
 * trusted: parsed without the zod schema (preset-file.ts), which a preset run never loads.
 */
export function compilePreset(file: PlatformFile): Platform {
  const source = `preset ${file.name}`;
  const platform = compileParsed(parsePresetFile(file), source, file.name ?? source);
  presetWatcher?.(file, platform);
  return platform;
}

let presetWatcher: ((file: PlatformFile, platform: Platform) => void) | undefined;

/** Tests: `fn` sees every preset file compiled and its platform (undefined: none). */
export function watchPresets(fn: ((file: PlatformFile, platform: Platform) => void) | undefined): void {
  presetWatcher = fn;
}

/** The note that every preset description ends with. */
export function gpuMemNote(physical: number): string {
  return `gpuMem sets every GPU's capacity; it is not checked against the physical ${formatBytes(physical)}.`;
}
