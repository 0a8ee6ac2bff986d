/**
 * Unpacks the page's payload (src/html-report/encode.ts): base64 to bytes, gunzip with the
 * browser's DecompressionStream, then each column as a typed array over the inflated buffer
 * (text columns split on newlines).
 */
import {
  type ColumnRef,
  type EncodedRun,
  type ReportPayload,
  type RunColumns,
  type RunFacts,
  UNKNOWN_TIME,
} from '../../src/html-report/payload.ts';

const UNKNOWN_NS = UNKNOWN_TIME * 1e9;

/** A run ready to draw: its facts and columns. */
export interface Run {
  facts: RunFacts;
  columns: RunColumns;
}

/** Inflates the payload's blob and returns its runs. */
export async function decodePayload(payload: ReportPayload): Promise<Run[]> {
  const packed = base64Bytes(payload.blob);
  const stream = new Blob([packed as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip'));
  const buffer = await new Response(stream).arrayBuffer();
  return payload.runs.map((run) => decodeRun(run, buffer));
}

function base64Bytes(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function decodeRun(run: EncodedRun, buffer: ArrayBuffer): Run {
  const columns = {} as Record<string, unknown>;
  for (const [key, ref] of Object.entries(run.columns)) columns[key] = column(ref, buffer);
  return { facts: run.facts, columns: columns as unknown as RunColumns };
}

function column(ref: ColumnRef, buffer: ArrayBuffer): unknown {
  switch (ref.type) {
    case 'f64':
      return new Float64Array(buffer, ref.offset, ref.length);
    case 'f32':
      return new Float32Array(buffer, ref.offset, ref.length);
    case 'u32':
      return new Uint32Array(buffer, ref.offset, ref.length);
    case 'u16':
      return new Uint16Array(buffer, ref.offset, ref.length);
    case 'u8':
      return new Uint8Array(buffer, ref.offset, ref.length);
    case 'dt32':
    case 'dt64': {
      const deltas =
        ref.type === 'dt32'
          ? new Int32Array(buffer, ref.offset, ref.length)
          : new Float64Array(buffer, ref.offset, ref.length);
      const out = new Float64Array(ref.length);
      let ns = 0;
      for (let i = 0; i < deltas.length; i++) {
        ns += deltas[i]!;
        out[i] = ns === UNKNOWN_NS ? Number.NaN : ns / 1e9;
      }
      return out;
    }
    case 'text': {
      if (ref.length === 0) return [];
      return new TextDecoder().decode(new Uint8Array(buffer, ref.offset, ref.length)).split('\n');
    }
  }
}
