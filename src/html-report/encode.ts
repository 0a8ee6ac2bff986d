/**
 * Packs runs' columns into the page's payload: every typed array and text column laid end to
 * end (8-byte aligned) in one buffer, gzip-compressed and base64-encoded, beside each run's
 * facts and column offsets as JSON. The viewer inflates it with the browser's own
 * DecompressionStream, so the page needs no decompression code.
 */
import { gzipSync } from 'node:zlib';
import type { ExtractedRun } from './extract.ts';
import {
  type ColumnRef,
  type ColumnType,
  type EncodedRun,
  type ReportPayload,
  type RunColumns,
  TIME_COLUMNS,
  UNKNOWN_TIME,
} from './payload.ts';

/** The payload of a page showing `runs` (side by side when several). */
export function encodePayload(runs: readonly ExtractedRun[], title: string): ReportPayload {
  const parts: Uint8Array[] = [];
  let offset = 0;
  const add = (bytes: Uint8Array, type: ColumnType, length: number): ColumnRef => {
    const ref = { type, offset, length };
    parts.push(bytes);
    offset += bytes.byteLength;
    const pad = (8 - (offset % 8)) % 8;
    if (pad > 0) {
      parts.push(new Uint8Array(pad));
      offset += pad;
    }
    return ref;
  };
  const encoded: EncodedRun[] = runs.map((run) => {
    const columns = {} as Record<keyof RunColumns, ColumnRef>;
    for (const [key, value] of Object.entries(run.columns) as [
      keyof RunColumns,
      RunColumns[keyof RunColumns],
    ][]) {
      if (Array.isArray(value)) {
        const bytes = new TextEncoder().encode(value.join('\n'));
        columns[key] = add(bytes, 'text', bytes.byteLength);
      } else if (TIME_COLUMNS.includes(key)) {
        const [type, deltas] = timeDeltas(value as Float64Array);
        columns[key] = add(new Uint8Array(deltas.buffer), type, deltas.length);
      } else {
        const typed = value as Exclude<typeof value, string[]>;
        columns[key] = add(
          new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength),
          typeOf(typed),
          typed.length,
        );
      }
    }
    return { facts: run.facts, columns };
  });
  const blob = Buffer.concat(parts);
  return { format: 1, title, runs: encoded, blob: gzipSync(blob, { level: 6 }).toString('base64') };
}

/** Times (s) as differences of integer nanoseconds (see ColumnType). */
export function timeDeltas(times: Float64Array): ['dt32', Int32Array] | ['dt64', Float64Array] {
  const out = new Float64Array(times.length);
  let prev = 0;
  let fits = true;
  for (let i = 0; i < times.length; i++) {
    const t = times[i]!;
    const ns = Math.round((Number.isNaN(t) ? UNKNOWN_TIME : t) * 1e9);
    const d = ns - prev;
    prev = ns;
    out[i] = d;
    if (d > 2147483647 || d < -2147483648) fits = false;
  }
  return fits ? ['dt32', Int32Array.from(out)] : ['dt64', out];
}

function typeOf(a: ArrayBufferView): ColumnType {
  if (a instanceof Float64Array) return 'f64';
  if (a instanceof Float32Array) return 'f32';
  if (a instanceof Uint32Array) return 'u32';
  if (a instanceof Uint16Array) return 'u16';
  return 'u8';
}
