/**
 * The data an HTML report carries, shared by the builder (Node) and the viewer (browser):
 * per run, its small facts as JSON and its columns (one entry per task, transfer, memory
 * change, ...) as typed arrays. The columns travel packed into one gzip-compressed,
 * base64-encoded blob (see encode.ts and the viewer's decode.ts): a 100,000-task run is a
 * few megabytes, where the same events as JSON objects would be a hundred.
 */

/**
 * The element types a column can have. Times (seconds) travel as `dt32`: integer
 * nanoseconds, each the difference to the previous element (Int32; `dt64` in Float64 when
 * one difference does not fit), which compresses about four times better than the doubles;
 * NaN (unknown) is written as -1 s, which no trace time is.
 */
export type ColumnType = 'f64' | 'f32' | 'u32' | 'u16' | 'u8' | 'text' | 'dt32' | 'dt64';

/** The columns that hold times (encoded as dt32 or dt64). */
export const TIME_COLUMNS: readonly string[] = [
  'taskStart',
  'taskEnd',
  'taskReady',
  'taskPopped',
  'trStart',
  'trEnd',
  'trIssued',
  'memTime',
  'evTime',
  'readyTime',
];

/** The value that stands for NaN in a time column (seconds). */
export const UNKNOWN_TIME = -1;

/** Where one column lies in the unpacked blob. */
export interface ColumnRef {
  type: ColumnType;
  /** Byte offset in the blob (a multiple of 8). */
  offset: number;
  /** Elements (for text: UTF-8 bytes; the strings are separated by newlines). */
  length: number;
}

/** A run's columns as typed arrays (the builder's form, and the viewer's once decoded). */
export interface RunColumns {
  /** Tasks sorted by worker then start: start and end (s), ready and popped (s, NaN: unknown). */
  taskStart: Float64Array;
  taskEnd: Float64Array;
  taskReady: Float64Array;
  taskPopped: Float64Array;
  taskWorker: Uint16Array;
  taskCodelet: Uint16Array;
  /** Task names and data ("A[0,1]:R B[1,1]:RW"), one string per task. */
  taskName: string[];
  taskData: string[];
  /** Transfers sorted by link, lane, then start: start, end and when issued (s). */
  trStart: Float64Array;
  trEnd: Float64Array;
  trIssued: Float64Array;
  trLink: Uint16Array;
  trLane: Uint8Array;
  trKind: Uint8Array;
  trBytes: Float64Array;
  trName: string[];
  /** Memory use per node, as steps: time (s), node and bytes in use from then. */
  memTime: Float64Array;
  memNode: Uint8Array;
  memBytes: Float64Array;
  /** Evictions: time (s), node, bytes, and the data's name. */
  evTime: Float64Array;
  evNode: Uint8Array;
  evBytes: Float64Array;
  evName: string[];
  /** Ready tasks (ready, not started yet) as steps: time (s) and count from then. */
  readyTime: Float64Array;
  readyCount: Uint32Array;
}

/** The small facts of a run. */
export interface RunFacts {
  /** What the run is called in the report (its policy, or its file's name). */
  label: string;
  /** The trace file it came from, if any. */
  source: string | null;
  platform: {
    name: string;
    nodes: { name: string; kind: string; capacityBytes: number | null }[];
    workers: { name: string; kind: string; node: number }[];
  };
  /** The run report (`locus run --json`), when the trace carries it. */
  report: Record<string, unknown> | null;
  codelets: string[];
  /** Transfer kinds, indexed by trKind. */
  kinds: string[];
  /** Links (source node -> destination node), indexed by trLink, with their lanes. */
  links: { src: number; dst: number; name: string; lanes: number }[];
  /** Index of each worker's first task in the task columns (workers + 1 entries). */
  workerTaskStart: number[];
  /** Index of each link's first transfer (links + 1 entries). */
  linkTransferStart: number[];
  /** First and last instants of the run (s). */
  t0: number;
  t1: number;
  /** Peak bytes in use per node, as the events show. */
  peakBytes: number[];
  /** Peak of the ready-task count. */
  readyPeak: number;
}

/** One run as the page carries it: facts, and where each column lies in the blob. */
export interface EncodedRun {
  facts: RunFacts;
  columns: Record<keyof RunColumns, ColumnRef>;
}

/** The page's data: the runs (one, or several side by side) and the packed blob. */
export interface ReportPayload {
  format: 1;
  /** Title of the page. */
  title: string;
  runs: EncodedRun[];
  /** The gzip-compressed blob, base64. */
  blob: string;
}
