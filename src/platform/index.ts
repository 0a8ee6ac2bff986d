/**
 * Platforms: the JSON platform file format, its compiler, the seed machines as presets, and the
 * unit parsers and formatters they use.
 */
export { describePlatform } from './describe.ts';
export { attachDisk, DISK_PRESETS, diskNodeOf, resolveDisk, withHostMemory } from './disk.ts';
export type { Figure, Preset, PresetOptions } from './machine.ts';
export { DGX1V_NVLINK, PRESETS } from './machines.ts';
export { describePresets, resolvePlatform } from './presets.ts';
export {
  type BusSpec,
  compilePlatform,
  formatPath,
  type LinkSpec,
  type MemoryNodeSpec,
  type ParsedPlatformFile,
  type PlatformFile,
  parsePlatformFile,
  platformFileSchema,
  platformToJson,
  type Quantity,
  type WorkerSpec,
} from './schema.ts';
export {
  formatBandwidth,
  formatBytes,
  formatDuration,
  formatRate,
  parseBandwidth,
  parseDuration,
  parseRate,
  parseSize,
} from './units.ts';
