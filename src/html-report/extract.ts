/**
 * Reads a run from its Chrome trace (src/trace/chrome.ts) into the report's columns: tasks
 * by worker, transfers by link (source -> destination node) in non-overlapping lanes, memory
 * use per node, evictions, and the ready-task count over time (from each task's `ready`
 * instant to its start). Everything the panels draw comes from the trace's events; the
 * summary table from the run report the trace carries (its `locus` block).
 */
import { LocusError } from '../core/types.ts';
import type { TraceRunInfo } from '../trace/chrome.ts';
import type { RunColumns, RunFacts } from './payload.ts';

/** A trace event as the report reads it. */
interface Event {
  name?: string;
  ph?: string;
  ts?: number;
  dur?: number;
  pid?: number;
  tid?: number;
  cat?: string;
  args?: Record<string, unknown>;
}

/** A Chrome trace as parsed JSON. */
export interface TraceJson {
  traceEvents: Event[];
  locus?: TraceRunInfo;
}

const WORKERS_PID = 1;
const TRANSFERS_PID = 2;
const MEMORY_PID = 3;

/** A run read from a trace. */
export interface ExtractedRun {
  facts: RunFacts;
  columns: RunColumns;
}

/**
 * The run `trace` records; `source` names it in errors (its file). Throws a one-line
 * LocusError (LOCUS_FILE_INVALID) when it is not the trace of one machine's run.
 */
export function extractRun(trace: TraceJson, source: string, label?: string): ExtractedRun {
  const events = trace.traceEvents;
  const workersProcess = events.find(
    (e) => e.ph === 'M' && e.name === 'process_name' && e.pid === WORKERS_PID,
  );
  if ((workersProcess?.args as { name?: string } | undefined)?.name !== 'workers') {
    throw new LocusError(
      'LOCUS_FILE_INVALID',
      `${source} is not the trace of one machine's run (no "workers" process): write one with locus run --trace`,
    );
  }
  const platform = trace.locus?.platform ?? platformFromEvents(events);
  const tasks: Event[] = [];
  const transfers: Event[] = [];
  const memory: Event[] = [];
  const evictions: Event[] = [];
  for (const e of events) {
    if (e.ph === 'X' && e.pid === WORKERS_PID) tasks.push(e);
    else if (e.ph === 'X' && e.pid === TRANSFERS_PID) transfers.push(e);
    else if (e.ph === 'C' && e.pid === MEMORY_PID) memory.push(e);
    else if (e.ph === 'i' && e.pid === MEMORY_PID && e.cat === 'evict') evictions.push(e);
  }
  if (tasks.length === 0)
    throw new LocusError('LOCUS_FILE_INVALID', `${source} holds no task: nothing to show`);
  const report = (trace.locus?.report as Record<string, unknown> | undefined) ?? null;
  const t = taskColumns(tasks, platform.workers.length);
  const tr = transferColumns(transfers, platform.nodes);
  const mem = memoryColumns(memory, platform.nodes.length);
  const ev = evictionColumns(evictions);
  const ready = readyCurve(t.columns.taskReady, t.columns.taskStart);
  let t0 = Number.POSITIVE_INFINITY;
  let t1 = 0;
  for (const arr of [t.columns.taskStart, tr.columns.trIssued, mem.columns.memTime])
    for (const v of arr) t0 = Math.min(t0, v);
  for (const arr of [t.columns.taskEnd, tr.columns.trEnd, mem.columns.memTime])
    for (const v of arr) t1 = Math.max(t1, v);
  t0 = Math.min(0, t0);
  let readyPeak = 0;
  for (const c of ready.readyCount) readyPeak = Math.max(readyPeak, c);
  const facts: RunFacts = {
    label: label ?? runLabel(report, source),
    source,
    platform,
    report,
    codelets: t.codelets,
    kinds: tr.kinds,
    links: tr.links,
    workerTaskStart: t.rowStart,
    linkTransferStart: tr.rowStart,
    t0,
    t1,
    peakBytes: mem.peak,
    readyPeak,
  };
  return {
    facts,
    columns: { ...t.columns, ...tr.columns, ...mem.columns, ...ev, ...ready },
  };
}

/** "scheduler+eviction" from the report, else the file's name. */
function runLabel(report: Record<string, unknown> | null, source: string): string {
  if (report && typeof report.scheduler === 'string') {
    return typeof report.eviction === 'string' ? `${report.scheduler}+${report.eviction}` : report.scheduler;
  }
  return source.replace(/^.*[\\/]/, '');
}

/** The platform as an old trace (without its `locus` block) tells it: names only. */
function platformFromEvents(events: Event[]): RunFacts['platform'] {
  const workers: RunFacts['platform']['workers'] = [];
  const nodes: RunFacts['platform']['nodes'] = [];
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name' && e.pid === WORKERS_PID) {
      const name = String((e.args as { name?: unknown }).name);
      workers[e.tid ?? 0] = { name, kind: name.startsWith('gpu') ? 'gpu' : 'cpu', node: 0 };
    }
    if (e.ph === 'C' && e.pid === MEMORY_PID && nodes[e.tid ?? 0] === undefined) {
      const name = (e.name ?? '').replace(/^memory /, '');
      nodes[e.tid ?? 0] = { name, kind: e.tid === 0 ? 'host' : 'gpu', capacityBytes: null };
    }
  }
  for (let i = 0; i < workers.length; i++) workers[i] ??= { name: `worker ${i}`, kind: 'cpu', node: 0 };
  for (let i = 0; i < nodes.length; i++) nodes[i] ??= { name: `node ${i}`, kind: 'gpu', capacityBytes: null };
  return { name: 'unknown', nodes, workers };
}

const us = (v: unknown) => (typeof v === 'number' ? v / 1e6 : Number.NaN);

/** Tasks sorted by worker, then start. */
function taskColumns(tasks: Event[], workerCount: number) {
  const n = tasks.length;
  const order = Array.from({ length: n }, (_, i) => i);
  let workers = workerCount;
  for (const e of tasks) workers = Math.max(workers, (e.tid ?? 0) + 1);
  order.sort((a, b) => tasks[a]!.tid! - tasks[b]!.tid! || tasks[a]!.ts! - tasks[b]!.ts!);
  const codelets: string[] = [];
  const codeletIndex = new Map<string, number>();
  const c = {
    taskStart: new Float64Array(n),
    taskEnd: new Float64Array(n),
    taskReady: new Float64Array(n),
    taskPopped: new Float64Array(n),
    taskWorker: new Uint16Array(n),
    taskCodelet: new Uint16Array(n),
    taskName: new Array<string>(n),
    taskData: new Array<string>(n),
  };
  const rowStart = new Array<number>(workers + 1).fill(n);
  for (let i = n - 1; i >= 0; i--) {
    const e = tasks[order[i]!]!;
    const cat = e.cat ?? e.name ?? '?';
    let k = codeletIndex.get(cat);
    if (k === undefined) {
      k = codelets.push(cat) - 1;
      codeletIndex.set(cat, k);
    }
    const args = e.args ?? {};
    c.taskStart[i] = us(e.ts);
    c.taskEnd[i] = us((e.ts ?? 0) + (e.dur ?? 0));
    c.taskReady[i] = us(args.ready);
    c.taskPopped[i] = us(args.popped);
    c.taskWorker[i] = e.tid ?? 0;
    c.taskCodelet[i] = k;
    c.taskName[i] = oneLine(e.name ?? '');
    c.taskData[i] = oneLine(typeof args.data === 'string' ? args.data : '');
    rowStart[e.tid ?? 0] = i;
  }
  for (let w = workers - 1; w >= 0; w--) rowStart[w] = Math.min(rowStart[w]!, rowStart[w + 1]!);
  return { columns: c, codelets, rowStart };
}

const oneLine = (s: string) => s.replace(/\n/g, ' ');

/** Transfers by link (source -> destination), in lanes where no two overlap, then by start. */
function transferColumns(transfers: Event[], nodes: RunFacts['platform']['nodes']) {
  const kinds: string[] = [];
  const kindIndex = new Map<string, number>();
  const linkIndex = new Map<string, number>();
  const links: RunFacts['links'] = [];
  const nodeIndex = new Map(nodes.map((node, i) => [node.name, i]));
  const rows = transfers.map((e) => {
    const args = e.args ?? {};
    let src = typeof args.src === 'number' ? args.src : -1;
    let dst = typeof args.dst === 'number' ? args.dst : -1;
    if (src < 0 || dst < 0) {
      // An old trace: the nodes are in the name ("A[0,1] ram->gpu0").
      const m = /(\S+)->(\S+)$/.exec(e.name ?? '');
      src = nodeIndex.get(m?.[1] ?? '') ?? 0;
      dst = nodeIndex.get(m?.[2] ?? '') ?? 0;
    }
    const key = `${src}>${dst}`;
    let link = linkIndex.get(key);
    if (link === undefined) {
      link =
        links.push({
          src,
          dst,
          name: `${nodes[src]?.name ?? src} → ${nodes[dst]?.name ?? dst}`,
          lanes: 0,
        }) - 1;
      linkIndex.set(key, link);
    }
    const kindName = typeof args.kind === 'string' ? args.kind : (e.cat ?? 'copy');
    let kind = kindIndex.get(kindName);
    if (kind === undefined) {
      kind = kinds.push(kindName) - 1;
      kindIndex.set(kindName, kind);
    }
    const start = us(e.ts);
    const queued = typeof args.queuedUs === 'number' ? args.queuedUs / 1e6 : 0;
    return {
      e,
      link,
      kind,
      start,
      end: us((e.ts ?? 0) + (e.dur ?? 0)),
      issued: start - queued,
      bytes: typeof args.bytes === 'number' ? args.bytes : 0,
      lane: 0,
    };
  });
  // Links in a stable order: by source node, then destination.
  const linkOrder = links
    .map((_, i) => i)
    .sort((a, b) => links[a]!.src - links[b]!.src || links[a]!.dst - links[b]!.dst);
  const rank = new Array<number>(links.length);
  linkOrder.forEach((l, r) => {
    rank[l] = r;
  });
  const sortedLinks = linkOrder.map((l) => links[l]!);
  for (const r of rows) r.link = rank[r.link]!;
  rows.sort((a, b) => a.link - b.link || a.start - b.start);
  const laneEnds: number[][] = sortedLinks.map(() => []);
  for (const r of rows) {
    const ends = laneEnds[r.link]!;
    let lane = ends.findIndex((end) => end <= r.start);
    if (lane < 0) lane = ends.push(r.end) - 1;
    ends[lane] = r.end;
    r.lane = Math.min(lane, 255);
  }
  sortedLinks.forEach((l, i) => {
    l.lanes = Math.max(1, Math.min(256, laneEnds[i]!.length));
  });
  rows.sort((a, b) => a.link - b.link || a.lane - b.lane || a.start - b.start);
  const n = rows.length;
  const c = {
    trStart: Float64Array.from(rows, (r) => r.start),
    trEnd: Float64Array.from(rows, (r) => r.end),
    trIssued: Float64Array.from(rows, (r) => r.issued),
    trLink: Uint16Array.from(rows, (r) => r.link),
    trLane: Uint8Array.from(rows, (r) => r.lane),
    trKind: Uint8Array.from(rows, (r) => r.kind),
    trBytes: Float64Array.from(rows, (r) => r.bytes),
    // The data's name: the nodes are the link's.
    trName: rows.map((r) => oneLine((r.e.name ?? '').replace(/ \S+->\S+$/, ''))),
  };
  const rowStart = new Array<number>(sortedLinks.length + 1).fill(n);
  for (let i = n - 1; i >= 0; i--) rowStart[c.trLink[i]!] = i;
  for (let l = sortedLinks.length - 1; l >= 0; l--) rowStart[l] = Math.min(rowStart[l]!, rowStart[l + 1]!);
  return { columns: c, kinds, links: sortedLinks, rowStart };
}

/** Memory use per node as steps (the trace's counters, MiB), in time order. */
function memoryColumns(memory: Event[], nodeCount: number) {
  const rows = memory
    .map((e) => ({
      t: us(e.ts),
      node: e.tid ?? 0,
      bytes: Number((e.args as { MiB?: unknown } | undefined)?.MiB ?? 0) * 2 ** 20,
    }))
    .filter((r) => Number.isFinite(r.t) && Number.isFinite(r.bytes));
  rows.sort((a, b) => a.t - b.t);
  const peak = new Array<number>(nodeCount).fill(0);
  for (const r of rows) if (r.node < nodeCount) peak[r.node] = Math.max(peak[r.node]!, r.bytes);
  return {
    columns: {
      memTime: Float64Array.from(rows, (r) => r.t),
      memNode: Uint8Array.from(rows, (r) => r.node),
      memBytes: Float64Array.from(rows, (r) => r.bytes),
    },
    peak,
  };
}

/** Evictions in time order. */
function evictionColumns(evictions: Event[]) {
  const rows = [...evictions].sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0));
  return {
    evTime: Float64Array.from(rows, (e) => us(e.ts)),
    evNode: Uint8Array.from(rows, (e) => e.tid ?? 0),
    evBytes: Float64Array.from(rows, (e) => Number((e.args as { bytes?: unknown } | undefined)?.bytes ?? 0)),
    evName: rows.map((e) => oneLine((e.name ?? '').replace(/^evict /, ''))),
  };
}

/**
 * The number of ready tasks over time, as steps: a task counts from the instant it became
 * ready (its predecessors all ended) to its start. Tasks whose ready instant the trace lacks
 * count nothing.
 */
export function readyCurve(
  ready: Float64Array,
  start: Float64Array,
): { readyTime: Float64Array; readyCount: Uint32Array } {
  const changes: [number, number][] = [];
  for (let i = 0; i < ready.length; i++) {
    if (Number.isNaN(ready[i]!)) continue;
    changes.push([ready[i]!, 1], [start[i]!, -1]);
  }
  // At one instant, starts before arrivals: a task ready and started at once never counts.
  changes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const time: number[] = [];
  const count: number[] = [];
  let c = 0;
  for (let i = 0; i < changes.length; i++) {
    c += changes[i]![1];
    if (i + 1 < changes.length && changes[i + 1]![0] === changes[i]![0]) continue;
    if (count.length > 0 && count[count.length - 1] === c) continue;
    time.push(changes[i]![0]);
    count.push(c);
  }
  return { readyTime: Float64Array.from(time), readyCount: Uint32Array.from(count) };
}
