/**
 * Platform resolution for commands: a preset name needs only the preset table; a platform
 * file loads the file parser (and zod, its validator) on demand, so that a run on a preset
 * never loads them.
 */
import type { Platform } from '../core/platform.ts';
import type { PresetOptions } from './machine.ts';
import { PRESETS } from './machines.ts';

/** resolvePlatform (presets.ts), loading the platform-file schema only for a file. */
export async function loadPlatform(nameOrFile: string, opts: PresetOptions = {}): Promise<Platform> {
  const key = nameOrFile.toLowerCase();
  if (Object.hasOwn(PRESETS, key)) return PRESETS[key]!.build(opts);
  return (await import('./presets.ts')).resolvePlatform(nameOrFile, opts);
}
