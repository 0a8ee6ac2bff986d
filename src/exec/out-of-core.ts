/**
 * A Runtime out of core (issue 30): RuntimeOptions.hostMem and RuntimeOptions.disk turned into
 * the platform the engine runs (host memory capped, a disk node attached below it: the engine
 * then makes the disk every datum's home and evicts host replicas to it exactly as in a
 * simulation, src/platform/disk.ts) and, in real mode, the disk's file (src/exec/disk-files.ts)
 * that the thread backend reads and writes.
 */
import type { DiskSpec, Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { attachDisk, DISK_PRESETS, withHostMemory } from '../platform/disk.ts';
import { parseSize } from '../platform/units.ts';
import { DiskFiles } from './disk-files.ts';
import type { RuntimeOptions } from './runtime-options.ts';

/** The platform a runtime runs, and its disk's file (real mode, out of core). */
export interface OutOfCore {
  platform: Platform;
  /** Real mode with a disk: its file. */
  disk?: DiskFiles;
  /** The host memory cap (bytes), when hostMem was given. */
  hostMem?: number;
}

/**
 * Applies `o.hostMem` and `o.disk` to `platform`. The disk gets the figures of the platform
 * file's disk node when it has one (Platform.disks), else the NVMe figures of
 * DISK_PRESETS.nvme (the schedulers' transfer estimates; real copies go at the disk's own
 * speed). Throws one-line LocusErrors: a bad size, a real disk without a path, a directory
 * that cannot be used (LOCUS_DISK_UNUSABLE), a platform that already has a disk.
 */
export function outOfCore(o: RuntimeOptions, platform: Platform, real: boolean): OutOfCore {
  if (o.hostMem === undefined && o.disk === undefined) {
    if (real && platform.nodes.some((n) => n.kind === 'disk'))
      throw new LocusError(
        'LOCUS_OPTION_CONFLICT',
        `platform ${platform.name} has a disk attached: a real run needs the directory of its file, so give RuntimeOptions.disk { path } and a platform without a disk`,
      );
    return { platform };
  }
  const hostMem = o.hostMem === undefined ? undefined : size(o.hostMem, 'hostMem');
  const capped = hostMem === undefined ? platform : withHostMemory(platform, hostMem);
  if (o.disk === undefined) return { platform: capped, ...(hostMem === undefined ? {} : { hostMem }) };
  if (typeof o.disk !== 'object' || o.disk === null)
    throw new LocusError('LOCUS_OPTION_INVALID', 'RuntimeOptions.disk must be an object { path, capacity }');
  const capacity = o.disk.capacity === undefined ? undefined : size(o.disk.capacity, 'disk.capacity');
  const figures: DiskSpec = platform.disks?.[0] ?? { ...DISK_PRESETS.nvme!, name: 'disk' };
  if (!real) {
    const spec: DiskSpec = { ...figures, capacity: capacity ?? figures.capacity };
    return { platform: attachDisk(capped, spec), ...(hostMem === undefined ? {} : { hostMem }) };
  }
  if (typeof o.disk.path !== 'string' || o.disk.path === '')
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      'RuntimeOptions.disk.path must name a directory for the disk file in real mode (e.g. os.tmpdir())',
    );
  if (platform.nodes.some((n) => n.kind === 'disk'))
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `platform ${platform.name} already has a disk attached: give RuntimeOptions.disk or a platform with a disk, not both`,
    );
  const disk = DiskFiles.open({ path: o.disk.path, capacity });
  try {
    // The engine's figure of the capacity: what the file may take (the free space by default).
    const spec: DiskSpec = { ...figures, capacity: Math.min(disk.capacity, Number.MAX_SAFE_INTEGER) };
    return { platform: attachDisk(capped, spec), disk, ...(hostMem === undefined ? {} : { hostMem }) };
  } catch (e) {
    disk.removeSync();
    throw e;
  }
}

/** A positive size in bytes from a number or a size string; one-line error naming `what`. */
function size(v: number | string, what: string): number {
  const n = typeof v === 'string' ? parseSize(v) : v;
  if (!(typeof n === 'number' && Number.isFinite(n) && n > 0))
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `RuntimeOptions.${what} must be a positive size such as 1048576 or "1MiB" (got ${String(v)})`,
    );
  return n;
}
