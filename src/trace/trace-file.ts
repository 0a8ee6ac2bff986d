/**
 * Writes a Chrome trace to a file as it is recorded: the opening of the JSON object first,
 * then the events in buffered chunks, then the closing, so that a trace of millions of events
 * never exists as one string (V8 strings stop at about 512 MiB) or as an array of objects.
 * The text goes to a temporary file in the same folder, renamed to the path once complete:
 * the path holds a whole trace or nothing, never a truncated one.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { LocusError } from '../core/types.ts';
import { temporaryPath } from './atomic-file.ts';

/** Bytes of JSON text buffered before a write. */
const CHUNK = 1 << 20;

/** A trace file being written: `{"traceEvents":[ ... ],"displayTimeUnit":"ms"}`. */
export class TraceFile {
  private fd: number | undefined;
  private pending = '';
  private count = 0;
  private readonly partial: string;

  /** Creates `path`'s temporary file and writes the opening; throws a one-line LocusError. */
  constructor(readonly path: string) {
    this.partial = temporaryPath(path);
    try {
      this.fd = openSync(this.partial, 'w');
    } catch (e) {
      throw this.error(e);
    }
    this.write('{"traceEvents":[\n');
  }

  /** Events written so far. */
  get events(): number {
    return this.count;
  }

  /** Appends one trace event (a Trace Event Format object). */
  event(e: object): void {
    this.json(JSON.stringify(e));
  }

  /** Appends one trace event already written as JSON text (one object). */
  json(text: string): void {
    this.pending += this.count++ === 0 ? text : `,\n${text}`;
    if (this.pending.length >= CHUNK) this.flush();
  }

  /**
   * Writes the closing (with `extra`'s entries as top-level keys after displayTimeUnit),
   * closes the file and renames it to `path`; it then parses as JSON.
   */
  close(displayTimeUnit = 'ms', extra: Record<string, unknown> = {}): void {
    let tail = '';
    for (const [k, v] of Object.entries(extra)) tail += `,${JSON.stringify(k)}:${JSON.stringify(v)}`;
    this.pending += `\n],"displayTimeUnit":${JSON.stringify(displayTimeUnit)}${tail}}\n`;
    this.flush();
    this.closeFd();
    try {
      renameSync(this.partial, this.path);
    } catch (e) {
      rmSync(this.partial, { force: true });
      throw this.error(e);
    }
  }

  /** Drops the unfinished trace (after a failed run): `path` is left as it was. */
  abort(): void {
    this.closeFd();
    rmSync(this.partial, { force: true });
  }

  private closeFd(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    this.pending = '';
    closeSync(fd);
  }

  private flush(): void {
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    this.write(text);
  }

  private write(text: string): void {
    if (this.fd === undefined) throw new Error(`trace file ${this.path} is closed`);
    try {
      writeSync(this.fd, text);
    } catch (e) {
      this.abort();
      throw this.error(e);
    }
  }

  private error(e: unknown): LocusError {
    return new LocusError(
      'LOCUS_FILE_WRITE_FAILED',
      `cannot write the trace file ${this.path}: ${(e as Error).message}`,
    );
  }
}
