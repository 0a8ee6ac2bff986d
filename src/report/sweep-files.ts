/**
 * runs.csv as a sweep's journal: rows are appended as runs end, so an interrupted sweep keeps
 * the runs it finished, and read back to resume it (`locus sweep --resume`); settings.json
 * beside it holds the options that shape every run but are not columns of runs.csv, so that a
 * resumed sweep cannot mix runs made with other options.
 */
import { closeSync, existsSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { LocusError } from '../core/types.ts';
import { csvField, parseCsv, toCsv } from './csv.ts';
import { type ResolvedSweep, RUN_COLUMNS, runSettings, type SweepRow } from './sweep.ts';

/** The columns of runs.csv that hold text; every other one holds a number. */
const TEXT_COLUMNS = new Set<keyof SweepRow>(['workload', 'platform', 'policy', 'scheduler', 'eviction']);

/** Columns whose empty cell means null (no value), not an error. */
const NULLABLE_COLUMNS = new Set<keyof SweepRow>(['energyJ']);

/**
 * Reads a runs.csv written by `locus sweep`; [] when the file does not exist. A file with other
 * columns or a malformed cell is a one-line LocusError naming the file and the line.
 */
export function readRunsCsv(file: string): SweepRow[] {
  if (!existsSync(file)) return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new LocusError('LOCUS_FILE_READ_FAILED', `cannot read ${file}: ${(e as Error).message}`);
  }
  let lines: string[][];
  try {
    lines = parseCsv(text);
  } catch (e) {
    if (!(e instanceof LocusError)) throw e;
    throw new LocusError(e.code, `${file}: ${e.message}: move it away or write to another output folder`);
  }
  if (lines.length === 0) return [];
  const header = lines[0]!;
  if (header.join(',') !== RUN_COLUMNS.join(',')) {
    throw new LocusError(
      'LOCUS_FILE_INVALID',
      `${file} was not written by this version of locus sweep (its columns differ): move it away or write to another output folder`,
    );
  }
  const rows: SweepRow[] = [];
  for (let i = 1; i < lines.length; i++) {
    const cells = lines[i]!;
    // A run cut off while its line was written leaves a short last line: that run is redone.
    if (cells.length !== RUN_COLUMNS.length) {
      if (i === lines.length - 1) break;
      throw new LocusError(
        'LOCUS_FILE_INVALID',
        `${file}, line ${i + 1}: ${cells.length} cells, expected ${RUN_COLUMNS.length}`,
      );
    }
    const row: Record<string, string | number | null> = {};
    RUN_COLUMNS.forEach((c, j) => {
      const cell = cells[j]!;
      if (TEXT_COLUMNS.has(c)) row[c] = cell;
      else if (cell === '' && NULLABLE_COLUMNS.has(c)) row[c] = null;
      else {
        const n = Number(cell);
        if (cell.trim() === '' || !Number.isFinite(n)) {
          throw new LocusError(
            'LOCUS_FILE_INVALID',
            `${file}, line ${i + 1}: column ${c} holds '${cell}', not a number`,
          );
        }
        row[c] = n;
      }
    });
    rows.push(row as unknown as SweepRow);
  }
  return rows;
}

/** runs.csv opened for appending: the header and `rows` first, then one line per finished run. */
export class RunsCsvWriter {
  private fd: number;

  /** Creates (or truncates) `file` and writes the header and `rows`. */
  constructor(
    readonly file: string,
    rows: readonly SweepRow[] = [],
  ) {
    try {
      this.fd = openSync(file, 'w');
      writeSync(this.fd, toCsv(rows, RUN_COLUMNS));
    } catch (e) {
      throw new LocusError('LOCUS_FILE_WRITE_FAILED', `cannot write ${file}: ${(e as Error).message}`);
    }
  }

  /** Appends one row. */
  append(row: SweepRow): void {
    try {
      writeSync(this.fd, `${RUN_COLUMNS.map((c) => csvField(row[c])).join(',')}\n`);
    } catch (e) {
      throw new LocusError('LOCUS_FILE_WRITE_FAILED', `cannot write ${this.file}: ${(e as Error).message}`);
    }
  }

  /** Closes the file (idempotent). */
  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}

/**
 * The settings of a sweep that change its runs and that runs.csv has no column for (workload
 * parameters, noise, scheduler and memory options, pipeline, ...): undefined entries dropped,
 * so that the object compares equal across JSON round trips.
 */
export function sweepSettings(s: ResolvedSweep): Record<string, unknown> {
  const settings = {
    params: s.params,
    noise: s.noise,
    chargeScheduling: s.chargeScheduling,
    priorities: s.priorities,
    cpus: s.cpus,
    gpus: s.gpus,
    hostMem: s.hostMem,
    disk: s.disk,
    ...runSettings(s),
  };
  return JSON.parse(JSON.stringify(settings)) as Record<string, unknown>;
}

/** Stable text of a JSON value (object keys sorted), for comparisons. */
function stable(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stable(o[k])}`)
    .join(',')}}`;
}

/**
 * On --resume, checks `settings` against the settings.json of the interrupted sweep; a
 * difference is a one-line LocusError naming the settings that differ, and so is a missing or
 * unreadable settings.json beside runs already made (`hasRuns`: their settings are unknown,
 * and resuming would mix runs of two settings). Then (re)writes the file with `settings`.
 */
export function checkAndWriteSettings(
  file: string,
  settings: Record<string, unknown>,
  resume: boolean,
  hasRuns = false,
): void {
  if (resume && hasRuns && !existsSync(file))
    throw new LocusError(
      'LOCUS_FILE_INVALID',
      `${file} is missing: the settings of the runs in runs.csv beside it are unknown, so they cannot be resumed; start over with --force (which discards them) or write to another output folder`,
    );
  if (resume && existsSync(file)) {
    let old: Record<string, unknown>;
    try {
      old = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      throw new LocusError(
        'LOCUS_FILE_INVALID',
        `cannot read ${file}: ${(e as Error).message}; restore it, or start over with --force (which discards the earlier runs) or in another output folder`,
      );
    }
    const keys = [...new Set([...Object.keys(old), ...Object.keys(settings)])].sort();
    const differ = keys.filter((k) => stable(old[k]) !== stable(settings[k]));
    if (differ.length > 0) {
      const show = (v: unknown) => (v === undefined ? 'default' : stable(v));
      throw new LocusError(
        'LOCUS_OPTION_CONFLICT',
        `the interrupted sweep ran with other settings (${differ.map((k) => `${k}: ${show(old[k])}, now ${show(settings[k])}`).join('; ')}): resume with its options, or write to another output folder`,
      );
    }
  }
  try {
    writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
  } catch (e) {
    throw new LocusError('LOCUS_FILE_WRITE_FAILED', `cannot write ${file}: ${(e as Error).message}`);
  }
}
