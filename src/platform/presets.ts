/**
 * The preset registry and platform resolution: a name on the command line is a preset
 * (PRESETS) or the path of a JSON platform file.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import type { PresetOptions } from './machine.ts';
import { PRESETS } from './machines.ts';
import { parsePlatformFile } from './schema.ts';

export { describePlatform } from './describe.ts';
export type { Preset, PresetOptions } from './machine.ts';
export { PRESETS } from './machines.ts';

/** The preset names, comma separated ("v100x2, hannibal, ..."). */
function presetList(): string {
  return Object.keys(PRESETS).join(', ');
}

/**
 * The platform named `nameOrFile`: a preset built with `opts` when the name is one (case
 * insensitive), else the parsed file when it is an existing path ending in .json (`opts.gpuMem`
 * then sets every GPU node's capacity; `gpus` and `cpus` apply to presets only). Throws a
 * LocusError for anything else.
 */
export function resolvePlatform(nameOrFile: string, opts: PresetOptions = {}): Platform {
  const key = nameOrFile.toLowerCase();
  if (Object.hasOwn(PRESETS, key)) return PRESETS[key]!.build(opts);
  if (key.endsWith('.json') && existsSync(nameOrFile)) {
    if (opts.gpus !== undefined || opts.cpus !== undefined) {
      throw new LocusError(
        'LOCUS_OPTION_CONFLICT',
        `${nameOrFile}: gpus and cpus apply to presets only; edit the platform file instead`,
      );
    }
    let text: string;
    try {
      text = readFileSync(nameOrFile, 'utf8');
    } catch (e) {
      throw new LocusError(
        'LOCUS_FILE_READ_FAILED',
        `${nameOrFile}: cannot read the platform file: ${(e as Error).message}`,
      );
    }
    const p = parsePlatformFile(text, nameOrFile);
    const gpuMem = opts.gpuMem;
    if (gpuMem === undefined) return p;
    if (!(Number.isFinite(gpuMem) && gpuMem > 0)) {
      throw new LocusError(
        'LOCUS_PLATFORM_INVALID',
        `${nameOrFile}: gpuMem must be a positive number of bytes (got ${gpuMem})`,
      );
    }
    return {
      ...p,
      nodes: p.nodes.map((node) => (node.kind === 'gpu' ? { ...node, capacity: gpuMem } : node)),
    };
  }
  if (key.endsWith('.json')) {
    throw new LocusError(
      'LOCUS_NAME_UNKNOWN',
      `platform file '${nameOrFile}' not found (the presets are ${presetList()})`,
    );
  }
  throw new LocusError(
    'LOCUS_NAME_UNKNOWN',
    `unknown platform '${nameOrFile}': use a preset (${presetList()}) or a path to a .json platform file`,
  );
}

/**
 * The text of `locus platforms`: for each preset, its name, description and one line per
 * figure with its source.
 */
export function describePresets(): string {
  const blocks = Object.entries(PRESETS).map(([name, preset]) =>
    [`${name}`, `  ${preset.description}`, ...preset.figures().map((f) => `    ${f}`)].join('\n'),
  );
  return blocks.join('\n\n');
}
