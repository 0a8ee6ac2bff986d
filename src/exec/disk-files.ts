/**
 * A real disk memory node (issue 30, out of core): one file in a folder of its own under the
 * directory the user names, each handle a region of it at a fixed offset. Regions are reserved
 * and written when the handle is registered (its initial content, or zeros), so the run's disk
 * space is taken up front: a disk too small for the data is refused then, in one line
 * (LOCUS_DISK_FULL), before any task runs. During the run the engine's copies to and from the
 * disk (evictions of modified host replicas, loads) are read and written asynchronously by
 * libuv's thread pool (FileHandle.read/write): the main thread never blocks on them. The
 * operations on one handle run in the order they were asked for.
 *
 * The folder is removed by `remove()` (the runtime's close, after a failure too), and, as a
 * last resort, when the process exits (Ctrl-C included: the CLI's interrupt closes the runtime,
 * and an exit handler removes what is left).
 */
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { type FileHandle, open, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LocusError } from '../core/types.ts';
import { formatBytes } from '../platform/units.ts';

/** What DiskFiles.open needs. */
export interface DiskFilesOptions {
  /** The directory the run's folder is made in. */
  path: string;
  /** Bytes the run may take there (default: the file system's free space). */
  capacity?: number | undefined;
}

/** The file of a real disk node and its handles' regions. */
export class DiskFiles {
  /** The run's folder (under the directory given), removed at the end. */
  readonly folder: string;
  /** The directory given. */
  readonly path: string;
  /** Bytes the regions may take in all. */
  readonly capacity: number;
  /** Bytes reserved so far (the file's size). */
  reserved = 0;
  /** Bytes read and written during the run (registration excluded). */
  bytesRead = 0;
  bytesWritten = 0;
  private readonly file: string;
  private readonly fd: number;
  private handle: Promise<FileHandle> | undefined;
  private readonly offset: number[] = [];
  private readonly size: number[] = [];
  /** The last operation asked for on each handle (the next one waits for it). */
  private readonly last: (Promise<void> | undefined)[] = [];
  private removed = false;

  private constructor(path: string, folder: string, capacity: number) {
    this.path = path;
    this.folder = folder;
    this.capacity = capacity;
    this.file = join(folder, 'data');
    try {
      this.fd = openSync(this.file, 'w+', 0o600);
    } catch (e) {
      this.removeSync();
      throw unusable(path, e);
    }
    if (OPEN.size === 0) process.on('exit', removeAll);
    OPEN.add(this);
  }

  /**
   * Makes the run's folder under `o.path` (a fresh `locus-XXXXXX`) and its file. Throws
   * LOCUS_DISK_UNUSABLE in one line when the directory does not exist or cannot be written.
   */
  static open(o: DiskFilesOptions): DiskFiles {
    const path = resolve(o.path);
    let folder: string;
    try {
      folder = mkdtempSync(join(path, 'locus-'));
    } catch (e) {
      throw unusable(path, e);
    }
    let capacity = o.capacity;
    if (capacity === undefined) {
      try {
        const s = statfsSync(folder);
        capacity = s.bavail * s.bsize;
      } catch {
        capacity = Number.POSITIVE_INFINITY;
      }
    }
    return new DiskFiles(path, folder, capacity);
  }

  /**
   * Reserves handle h's region (`bytes` long) and writes its initial content (zeros without
   * `init`), synchronously: registration is not the run's hot path, and the application's
   * array may change as soon as it returns. Throws LOCUS_DISK_FULL when the disk's capacity
   * (or the file system) has no room, naming `what`.
   */
  add(h: number, bytes: number, init: Uint8Array | undefined, what: string): void {
    if (this.reserved + bytes > this.capacity) throw this.full(what, bytes);
    const at = this.reserved;
    try {
      if (init !== undefined) {
        for (let done = 0; done < bytes; ) done += writeSync(this.fd, init, done, bytes - done, at + done);
      } else {
        // A sparse region reads as zeros; its last byte makes the file that long.
        writeSync(this.fd, new Uint8Array(1), 0, 1, at + bytes - 1);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOSPC') throw this.full(what, bytes);
      throw unusable(this.path, e);
    }
    this.offset[h] = at;
    this.size[h] = bytes;
    this.reserved += bytes;
  }

  /** Whether handle h has a region. */
  has(h: number): boolean {
    return this.offset[h] !== undefined;
  }

  /** Reads handle h's region into `into` (its whole length), after the operations asked for before. */
  read(h: number, into: Uint8Array): Promise<void> {
    return this.chain(h, async (fh, at) => {
      for (let done = 0; done < into.byteLength; ) {
        const { bytesRead } = await fh.read(into, done, into.byteLength - done, at + done);
        if (bytesRead === 0) throw new Error(`unexpected end of ${this.file}`);
        done += bytesRead;
      }
      this.bytesRead += into.byteLength;
    });
  }

  /** Writes `from` into handle h's region, after the operations asked for before. */
  write(h: number, from: Uint8Array): Promise<void> {
    return this.chain(h, async (fh, at) => {
      for (let done = 0; done < from.byteLength; ) {
        const { bytesWritten } = await fh.write(from, done, from.byteLength - done, at + done);
        done += bytesWritten;
      }
      this.bytesWritten += from.byteLength;
    });
  }

  /** Runs `op` on h's region once h's earlier operations are done; errors become one-line LocusErrors. */
  private chain(h: number, op: (fh: FileHandle, at: number) => Promise<void>): Promise<void> {
    const at = this.offset[h];
    if (at === undefined) return Promise.reject(new Error(`handle ${h} has no region on the disk`));
    const before = this.last[h] ?? Promise.resolve();
    const next = before
      .catch(() => undefined)
      .then(async () => {
        if (this.removed) throw new LocusError('LOCUS_STATE_INVALID', `disk ${this.path} was closed`);
        this.handle ??= open(this.file, 'r+');
        await op(await this.handle, at);
      })
      .catch((e: unknown) => {
        if (e instanceof LocusError) throw e;
        if ((e as NodeJS.ErrnoException).code === 'ENOSPC') throw this.full(`handle ${h}`, this.size[h]!);
        throw unusable(this.path, e);
      });
    this.last[h] = next;
    return next;
  }

  /** Waits for every operation asked for so far. */
  async settle(): Promise<void> {
    await Promise.allSettled(this.last.filter((p) => p !== undefined));
  }

  /** Removes the run's folder (after the operations in flight); idempotent. */
  async remove(): Promise<void> {
    if (this.removed) return;
    await this.settle();
    const fh = this.handle;
    this.handle = undefined;
    if (fh !== undefined) await (await fh.catch(() => undefined))?.close();
    if (this.removed) return;
    this.removed = true;
    forget(this);
    try {
      closeSync(this.fd);
    } catch {
      // Already closed.
    }
    await rm(this.folder, { recursive: true, force: true });
  }

  /** Removes the run's folder at once (the process exits). */
  removeSync(): void {
    if (this.removed) return;
    this.removed = true;
    forget(this);
    try {
      if (this.fd !== undefined) closeSync(this.fd);
    } catch {
      // Already closed.
    }
    rmSync(this.folder, { recursive: true, force: true });
  }

  private full(what: string, bytes: number): LocusError {
    const cap = Number.isFinite(this.capacity) ? formatBytes(this.capacity) : 'the free space';
    return new LocusError(
      'LOCUS_DISK_FULL',
      `disk ${this.path} is full: ${what} needs ${formatBytes(bytes)} more, ${formatBytes(this.reserved)} of ${cap} are taken; give a larger disk capacity or a directory on a disk with more free space (the data in memory are kept)`,
    );
  }
}

/** The disks whose folders are still there: removed when the process exits (one listener). */
const OPEN = new Set<DiskFiles>();

/** Removes every open disk's folder (the process exits). */
function removeAll(): void {
  for (const d of [...OPEN]) d.removeSync();
}

/** `d`'s folder is gone: no exit listener is needed for it. */
function forget(d: DiskFiles): void {
  OPEN.delete(d);
  if (OPEN.size === 0) process.off('exit', removeAll);
}

/** The one-line error for a directory the run cannot use. */
function unusable(path: string, e: unknown): LocusError {
  const err = e as NodeJS.ErrnoException;
  const why =
    err.code === 'ENOENT'
      ? 'it does not exist'
      : err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS'
        ? 'it cannot be written'
        : err.code === 'ENOTDIR'
          ? 'it is not a directory'
          : (err.message ?? String(e));
  return new LocusError(
    'LOCUS_DISK_UNUSABLE',
    `disk ${path}: ${why} (${err.code ?? 'error'}); give a directory this process can write to (the data in memory are kept)`,
    { cause: e },
  );
}
