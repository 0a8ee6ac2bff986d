/**
 * CSV with RFC 4180 quoting: a field that holds a comma, a double quote, CR or LF is quoted,
 * its quotes doubled. Records end with `eol` (RFC 4180 says CRLF; the default here is LF,
 * which every CSV reader accepts and diffs better). Numbers are written in full precision.
 */
import { writeFileSync } from 'node:fs';
import { LocusError } from '../core/types.ts';

/** A value a CSV cell can hold; null, undefined and non-finite numbers become an empty cell. */
export type CsvValue = string | number | boolean | null | undefined;

/** One field, quoted when needed. */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/**
 * The CSV text of `rows`: a header line with `columns` (default: the keys of the first row),
 * then one record per row in that column order.
 */
export function toCsv<T extends object>(
  rows: readonly T[],
  columns?: readonly (keyof T & string)[],
  eol = '\n',
): string {
  const cols = columns ?? ((rows.length > 0 ? Object.keys(rows[0]!) : []) as (keyof T & string)[]);
  const lines = [cols.map(csvField).join(',')];
  for (const row of rows) {
    lines.push(cols.map((c) => csvField(row[c] as CsvValue)).join(','));
  }
  return lines.join(eol) + eol;
}

/** Writes `toCsv(rows, columns)` to `file`; a LocusError names the file when it fails. */
export function writeCsv<T extends object>(
  file: string,
  rows: readonly T[],
  columns?: readonly (keyof T & string)[],
): void {
  try {
    writeFileSync(file, toCsv(rows, columns));
  } catch (e) {
    throw new LocusError('LOCUS_FILE_WRITE_FAILED', `cannot write ${file}: ${(e as Error).message}`);
  }
}

/** Parses RFC 4180 CSV (LF or CRLF records) into rows of strings; the inverse of toCsv. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      if (c === '\r' && text[i + 1] === '\n') i++;
    } else field += c;
    i++;
  }
  if (quoted) throw new LocusError('LOCUS_FILE_INVALID', 'CSV text ends inside a quoted field');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
