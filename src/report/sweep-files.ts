/**
 * runs.csv as a sweep's journal: rows are appended as runs end, so an interrupted sweep keeps
 * the runs it finished, and read back to resume it (`locus sweep --resume`).
 */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { LocusError } from '../core/types.ts';
import { csvField, parseCsv, toCsv } from './csv.ts';
import { RUN_COLUMNS, type SweepRow } from './sweep.ts';

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
  const lines = parseCsv(text);
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
