/**
 * The performance models on disk (seed 001 section III.B: StarPU keeps one model file per
 * codelet, plus one bus file per machine). Layout under the store's folder:
 *
 *   codelets/<codelet>.json  {"format": "locus-perfmodel", "version": 1, "codelet", "entries"}
 *   bus/<machine>.json       {"format": "locus-bus", "version": 1, "machine", "pairs"}
 *
 * Names are written with characters outside [A-Za-z0-9._+-] replaced by '_'. Files are
 * pretty-printed JSON, meant to be readable. Saving merges into the file under a lock file and
 * replaces it atomically (write a temporary file, then rename it over the target), so several
 * processes can save at once without losing samples or leaving a torn file. A file this
 * version cannot read (not JSON, another format or version, a bad field) is reported as a
 * LocusError naming it and is never overwritten.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { LocusError } from '../core/types.ts';
import { formatPath } from '../platform/schema.ts';
import { entryStd, type HistoryEntry, HistoryModel, type Sample } from './history.ts';
import type { BusPair } from './model.ts';

/** The calibrated bus of one machine, as stored. */
export interface BusModel {
  machine: string;
  /** Bandwidth (bytes/s; Infinity when unbounded) and latency (s) per ordered pair of nodes. */
  pairs: BusPair[];
}

const CODELET_FORMAT = 'locus-perfmodel';
const BUS_FORMAT = 'locus-bus';
const VERSION = 1;
/** How long saving waits for another process's lock, and the age at which a lock is stale. */
const LOCK_WAIT_MS = 10_000;
const LOCK_STALE_MS = 30_000;
/** Age at which a lock file without a token is stale. */
const LOCK_EMPTY_MS = 1000;
const REMEDY = 'fix or remove it, or set LOCUS_PERFMODEL_DIR to another folder';

/**
 * One model entry, as read and as written (the same schema both ways, so the writer cannot
 * produce a file the reader refuses): finite numbers only (zod refuses NaN and Infinity,
 * which JSON.stringify would write as null), a positive mean duration in seconds.
 */
const entrySchema = z.object({
  kind: z.enum(['cpu', 'gpu']),
  footprint: z.string(),
  size: z.number().nonnegative(),
  count: z.number().int().positive(),
  mean: z.number().positive(),
  m2: z.number().nonnegative(),
  std: z.number().nonnegative().optional(),
});

const codeletSchema = z.object({
  format: z.literal(CODELET_FORMAT),
  version: z.literal(VERSION),
  codelet: z.string(),
  entries: z.array(entrySchema),
});

const pairSchema = z.object({
  src: z.string(),
  dst: z.string(),
  /** null stands for an unbounded bandwidth (JSON has no Infinity). */
  bandwidth: z.number().positive().nullable(),
  latency: z.number().nonnegative(),
  samples: z.number().int().nonnegative(),
});

const busSchema = z.object({
  format: z.literal(BUS_FORMAT),
  version: z.literal(VERSION),
  machine: z.string(),
  pairs: z.array(pairSchema),
});

/**
 * The folder of one machine's models under a model folder: models are per machine (StarPU
 * keys its sampling files by host), so a simulated preset never reads this machine's timings.
 */
export function machineDir(base: string, machine: string): string {
  return join(base, sanitizeName(machine));
}

/** A file name for a codelet or machine name: characters outside [A-Za-z0-9._+-] become '_'. */
export function sanitizeName(name: string): string {
  const s = name.replace(/[^A-Za-z0-9._+-]/g, '_');
  return s === '' || /^\.+$/.test(s) ? `_${s}` : s;
}

/** The error code of a Node fs error, if any. */
const codeOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

/** One line from an error's message. */
const oneLine = (e: unknown) => String((e as Error)?.message ?? e).replace(/\s+/g, ' ');

/** The LocusError of a folder the store cannot write to. */
function writeError(folder: string, e: unknown): Error {
  if (e instanceof LocusError || codeOf(e) === undefined) return e as Error;
  return new LocusError(
    'LOCUS_FILE_WRITE_FAILED',
    `cannot write perf models in folder ${folder} (${oneLine(e)}): make it writable or set LOCUS_PERFMODEL_DIR to another folder`,
  );
}

/** Sleeps synchronously (saving is synchronous: it runs between task batches and at exit). */
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

/**
 * Runs `fn` holding `<file>.lock`, created with O_EXCL ('wx') so only one process holds it;
 * retried every few milliseconds for up to 10 s. A stale lock (see isStale) is removed. The
 * lock holds a token, so releasing never removes another's lock; a lock whose token could not
 * be written (a full disk) is removed at once.
 */
function withLock<T>(file: string, folder: string, fn: () => T): T {
  const lock = `${file}.lock`;
  const token = `${process.pid} ${randomBytes(8).toString('hex')}\n`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      try {
        writeFileSync(fd, token);
      } catch (e) {
        try {
          unlinkSync(lock);
        } catch {
          // nothing more to do: isStale clears an empty lock later
        }
        throw e;
      } finally {
        closeSync(fd);
      }
      break;
    } catch (e) {
      if (codeOf(e) !== 'EEXIST') throw writeError(folder, e);
      if (removeIfStale(lock)) continue;
      if (Date.now() > deadline) {
        throw new LocusError(
          'LOCUS_FILE_WRITE_FAILED',
          `perf model file ${file} stayed locked for ${LOCK_WAIT_MS / 1000} s by another process (${lock}): retry, or remove the lock file if no Locus process is running`,
        );
      }
      sleepMs(Math.min(1 + attempt, 20) * (0.5 + Math.random()));
    }
  }
  try {
    return fn();
  } finally {
    try {
      if (readFileSync(lock, 'utf8') === token) unlinkSync(lock);
    } catch {
      // already removed as stale by another process
    }
  }
}

/** Whether process `pid` is alive on this machine (signal 0 probes without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return codeOf(e) === 'EPERM';
  }
}

/**
 * Whether a lock file is stale: older than LOCK_STALE_MS; or held by a process of this
 * machine that no longer runs (its token starts with the pid); or without a token for longer
 * than LOCK_EMPTY_MS (a holder writes its token right after creating the file, so an empty
 * lock was left by a process that could not, on a full disk for instance).
 */
function isStale(lock: string): boolean {
  const age = Date.now() - statSync(lock).mtimeMs;
  if (age > LOCK_STALE_MS) return true;
  const pid = /^(\d+) [0-9a-f]+\n$/.exec(readFileSync(lock, 'utf8'));
  if (pid === null) return age > LOCK_EMPTY_MS;
  return Number(pid[1]) !== process.pid && !alive(Number(pid[1]));
}

/** Removes a stale lock file; true if it is gone (removed or vanished). */
function removeIfStale(lock: string): boolean {
  try {
    if (!isStale(lock)) return false;
    unlinkSync(lock);
    return true;
  } catch (e) {
    return codeOf(e) === 'ENOENT';
  }
}

/** Writes `text` to `file` atomically: a temporary file in the same folder, renamed over it. */
function writeAtomic(file: string, folder: string, text: string): void {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(tmp, 'wx');
    try {
      writeFileSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already renamed
    }
    throw writeError(folder, e);
  }
}

/**
 * Reads and validates a store file: undefined when it does not exist; a LocusError naming it
 * when it is not JSON, not of `format` version 1, or has a bad field.
 */
function readStoreFile<T>(file: string, format: string, schema: z.ZodType<T>): T | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (codeOf(e) === 'ENOENT' || codeOf(e) === 'ENOTDIR') return undefined;
    throw new LocusError(
      'LOCUS_FILE_READ_FAILED',
      `cannot read perf model file ${file} (${oneLine(e)}): ${REMEDY}`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new LocusError(
      'LOCUS_FILE_INVALID',
      `perf model file ${file} is not valid JSON (${oneLine(e)}): ${REMEDY}`,
    );
  }
  const obj = (data !== null && typeof data === 'object' && !Array.isArray(data) ? data : {}) as Record<
    string,
    unknown
  >;
  if (obj.format !== format || obj.version !== VERSION) {
    const f = typeof obj.format === 'string' ? `format '${obj.format}'` : 'no format';
    const v = obj.version === undefined ? 'no version' : `version ${JSON.stringify(obj.version)}`;
    throw new LocusError(
      'LOCUS_FILE_INVALID',
      `perf model file ${file} has ${f} ${v}; this Locus reads ${format} version ${VERSION}: move it away or set LOCUS_PERFMODEL_DIR to another folder`,
    );
  }
  const result = schema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new LocusError(
      'LOCUS_FILE_INVALID',
      `perf model file ${file} has a bad field ${formatPath(issue.path) || '(top level)'} (${oneLine(issue.message)}): ${REMEDY}`,
    );
  }
  return result.data;
}

/**
 * The JSON text of a codelet file; "std" is written for readers and recomputed on load. Every
 * entry is validated as the reader will validate it; a LocusError names the first that fails
 * (statistics that overflowed, say), and nothing is written.
 */
function codeletText(file: string, codelet: string, entries: readonly HistoryEntry[]): string {
  const out = entries
    .filter((e) => e.count > 0)
    .map((e) => ({
      kind: e.kind,
      footprint: e.footprint,
      size: e.size,
      count: e.count,
      mean: e.mean,
      std: entryStd(e),
      m2: e.m2,
    }));
  const data = { format: CODELET_FORMAT, version: VERSION, codelet, entries: out };
  const result = codeletSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const at = issue.path[0] === 'entries' ? out[issue.path[1] as number] : undefined;
    const which = at ? ` (${at.kind}, footprint ${at.footprint})` : '';
    throw new LocusError(
      'LOCUS_FILE_WRITE_FAILED',
      `perf model file ${file} not updated: the merged statistics have a bad field ${formatPath(issue.path)}${which} (${oneLine(issue.message)}, got ${String(issue.path.reduce<unknown>((o, k) => (o as Record<PropertyKey, unknown>)?.[k], data))}); the file is kept as it was`,
    );
  }
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** Checks a bus pair before it is saved (a programming error, so a RangeError). */
function checkPair(p: BusPair): void {
  const ok =
    typeof p.src === 'string' &&
    typeof p.dst === 'string' &&
    p.bandwidth > 0 &&
    Number.isFinite(p.latency) &&
    p.latency >= 0 &&
    Number.isInteger(p.samples) &&
    p.samples >= 0;
  if (!ok) throw new RangeError(`bad bus pair ${JSON.stringify(p)}`);
}

/** Performance models in a folder: history per codelet, bus per machine (see the file comment). */
export class ModelStore {
  /**
   * The default folder: $LOCUS_PERFMODEL_DIR when set, else ~/.locus/perfmodels.
   */
  static defaultDir(): string {
    const env = process.env.LOCUS_PERFMODEL_DIR;
    return env !== undefined && env !== '' ? env : join(homedir(), '.locus', 'perfmodels');
  }

  /** Codelet files that a tolerant loadHistory skipped: saveSamples leaves them alone. */
  private readonly unreadable = new Set<string>();

  /** @param dir the store's folder, created on first save. */
  constructor(readonly dir: string) {}

  /** The file of a codelet's history model. */
  codeletFile(codelet: string): string {
    return join(this.dir, 'codelets', `${sanitizeName(codelet)}.json`);
  }

  /** The file of a machine's bus model. */
  busFile(machine: string): string {
    return join(this.dir, 'bus', `${sanitizeName(machine)}.json`);
  }

  /**
   * Every codelet file's entries; a missing folder is an empty model. A file this Locus cannot
   * read throws a LocusError naming it, unless `onBadFile` is given: then that codelet's file is
   * skipped (and never written by saveSamples of this store), and `onBadFile` gets the error's
   * one-line message.
   */
  loadHistory(onBadFile?: (message: string) => void): HistoryModel {
    const model = new HistoryModel();
    const folder = join(this.dir, 'codelets');
    let names: string[];
    try {
      names = readdirSync(folder).filter((n) => n.endsWith('.json'));
    } catch (e) {
      // Missing (or a file in its place, which saving reports): no models yet.
      if (codeOf(e) === 'ENOENT' || codeOf(e) === 'ENOTDIR') return model;
      const error = new LocusError(
        'LOCUS_FILE_READ_FAILED',
        `cannot read perf model folder ${folder} (${oneLine(e)}): ${REMEDY}`,
      );
      if (onBadFile === undefined) throw error;
      onBadFile(error.message);
      return model;
    }
    for (const name of names.sort()) {
      const path = join(folder, name);
      let file: z.output<typeof codeletSchema> | undefined;
      try {
        file = readStoreFile(path, CODELET_FORMAT, codeletSchema);
      } catch (e) {
        if (onBadFile === undefined || !(e instanceof LocusError)) throw e;
        this.unreadable.add(path);
        onBadFile(e.message);
        continue;
      }
      if (file !== undefined) model.merge(file.codelet, file.entries);
    }
    return model;
  }

  /** A codelet's entries from its file ([] when it has none). */
  loadCodelet(codelet: string): HistoryEntry[] {
    const file = readStoreFile(this.codeletFile(codelet), CODELET_FORMAT, codeletSchema);
    if (file === undefined || file.codelet !== codelet) return [];
    const model = new HistoryModel();
    model.merge(codelet, file.entries);
    return model.entries(codelet);
  }

  /**
   * Merges samples into the codelets' files (Chan et al.'s exact merge of the statistics),
   * each file under its lock and replaced atomically. A codelet whose file cannot be read or
   * whose merged statistics would not validate keeps its file as it was (such a file is never
   * replaced); the other codelets are saved, then a LocusError names the first failure and how
   * many codelets were not saved. Codelets whose files a tolerant loadHistory skipped are left
   * out without an error (they were reported then).
   */
  saveSamples(samples: readonly Sample[]): void {
    if (samples.length === 0) return;
    const fresh = new HistoryModel();
    for (const s of samples) fresh.record(s);
    const codelets = fresh.codelets().filter((c) => !this.unreadable.has(this.codeletFile(c)));
    if (codelets.length === 0) return;
    const folder = this.ensureFolder('codelets');
    const failed: string[] = [];
    let first: LocusError | undefined;
    for (const codelet of codelets) {
      const path = this.codeletFile(codelet);
      try {
        this.checkOwner(codelet);
        withLock(path, folder, () => {
          const merged = new HistoryModel();
          const current = this.checkOwner(codelet);
          if (current !== undefined) merged.merge(codelet, current.entries);
          merged.merge(codelet, fresh.entries(codelet));
          writeAtomic(path, folder, codeletText(path, codelet, merged.entries(codelet)));
        });
      } catch (e) {
        if (!(e instanceof LocusError)) throw e;
        failed.push(codelet);
        first ??= e;
      }
    }
    if (failed.length === 0) return;
    const others =
      failed.length > 1 ? ` (and ${failed.length - 1} more codelets: ${failed.slice(1).join(', ')})` : '';
    throw new LocusError(first!.code, `${first!.message}${others}`, { cause: first });
  }

  /** A machine's calibrated bus, or undefined when it has none. */
  loadBus(machine: string): BusModel | undefined {
    const file = readStoreFile(this.busFile(machine), BUS_FORMAT, busSchema);
    if (file === undefined || file.machine !== machine) return undefined;
    return {
      machine,
      pairs: file.pairs.map((p) => ({ ...p, bandwidth: p.bandwidth ?? Number.POSITIVE_INFINITY })),
    };
  }

  /**
   * Replaces a machine's bus file (atomically, under its lock). An existing file this Locus
   * cannot read is reported and kept.
   */
  saveBus(machine: string, pairs: readonly BusPair[]): void {
    for (const p of pairs) checkPair(p);
    const path = this.busFile(machine);
    readStoreFile(path, BUS_FORMAT, busSchema);
    const folder = this.ensureFolder('bus');
    const out = pairs.map((p) => ({
      src: p.src,
      dst: p.dst,
      bandwidth: Number.isFinite(p.bandwidth) ? p.bandwidth : null,
      latency: p.latency,
      samples: p.samples,
    }));
    const text = `${JSON.stringify({ format: BUS_FORMAT, version: VERSION, machine, pairs: out }, null, 2)}\n`;
    withLock(path, folder, () => {
      readStoreFile(path, BUS_FORMAT, busSchema);
      writeAtomic(path, folder, text);
    });
  }

  /**
   * The current content of a codelet's file, validated; a LocusError when the file belongs to
   * another codelet whose name maps to the same file name.
   */
  private checkOwner(codelet: string) {
    const path = this.codeletFile(codelet);
    const current = readStoreFile(path, CODELET_FORMAT, codeletSchema);
    if (current !== undefined && current.codelet !== codelet) {
      throw new LocusError(
        'LOCUS_FILE_INVALID',
        `perf model file ${path} holds codelet '${current.codelet}', not '${codelet}' (both names map to this file): rename one of the codelets`,
      );
    }
    return current;
  }

  /** Creates a subfolder of the store; a LocusError naming it when that fails. */
  private ensureFolder(sub: string): string {
    const folder = join(this.dir, sub);
    try {
      mkdirSync(folder, { recursive: true });
    } catch (e) {
      throw writeError(folder, e);
    }
    return folder;
  }
}
