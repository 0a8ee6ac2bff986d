/**
 * A Chrome trace (the Trace Event Format that Perfetto and chrome://tracing open) recorded as
 * an engine observer: one track per worker with its tasks, one set of lanes per destination
 * memory node with the transfers into it, and a memory-use counter per node. Kept in memory
 * (toJSON) or, given a file, streamed to it as the run goes (finish() completes the file).
 *
 * A transfer's slice spans the copy itself: from when its backend started moving it (the
 * driver tells, as a CopyStartObserver) to its end. The time it waited before that, from the
 * moment the engine issued it (queued behind other copies on its link or stream), is a slice
 * of its own, category `queued`, in the lanes of the "transfer queues" process.
 */
import type { FreeReason } from '../core/data/replicas.ts';
import { type Engine, type EngineObserver, TRANSFER_KIND_NAMES } from '../core/engine.ts';
import type { CopyStartObserver } from '../drive/backend.ts';
import type { RunReport } from './report.ts';
import { TraceFile } from './trace-file.ts';

/**
 * What a trace says of its run beyond the events, under the top-level key `locus` (viewers
 * ignore keys they do not know): the platform's nodes and workers, and the run's report once
 * it ended. `locus report` reads it.
 */
export interface TraceRunInfo {
  /** Version of this block (1). */
  format: 1;
  platform: {
    name: string;
    nodes: { name: string; kind: string; capacityBytes: number | null }[];
    workers: { name: string; kind: string; node: number }[];
  };
  /** The run's report (what `locus run --json` prints), when the run ended. */
  report?: RunReport;
}

const MODE_NAMES = ['', 'R', 'W', 'RW'];

interface TraceEvent {
  name: string;
  ph: string;
  /** Scope of an instant event ('t': its track). */
  s?: string;
  ts: number;
  pid: number;
  tid: number;
  dur?: number;
  cat?: string;
  args?: Record<string, unknown>;
}

const WORKERS_PID = 1;
const TRANSFERS_PID = 2;
const MEMORY_PID = 3;
const POWER_PID = 4;
const QUEUES_PID = 5;

/** Records a run and serialises it as Chrome trace JSON. */
export class ChromeTrace implements EngineObserver, CopyStartObserver {
  private readonly events: TraceEvent[] = [];
  private readonly file: TraceFile | undefined;
  private readonly taskStart = new Map<number, number>();
  // When each task not finished yet became ready and was given to a worker, in us.
  private readonly taskReadyAt = new Map<number, number>();
  private readonly taskPoppedAt = new Map<number, number>();
  private report: RunReport | undefined;
  // When each transfer in flight was issued, and when its copy started (-1: not told), in us.
  private readonly transferStart = new Map<number, { issued: number; moved: number }>();
  // lanes[node] = end time (us) of the last transfer in each lane into that node; queueLanes
  // the same for the waits before the copies.
  private readonly lanes: number[][];
  private readonly queueLanes: number[][];

  /**
   * Records `engine`'s run; with `file`, streams the events to that path (created or
   * truncated now; a LocusError if it cannot be written) instead of keeping them.
   */
  constructor(
    private readonly engine: Engine,
    file?: string,
  ) {
    this.lanes = engine.platform.nodes.map(() => []);
    this.queueLanes = engine.platform.nodes.map(() => []);
    this.file = file === undefined ? undefined : new TraceFile(file);
  }

  /** The file the trace streams to, if any. */
  get path(): string | undefined {
    return this.file?.path;
  }

  private emit(e: TraceEvent): void {
    if (this.file) this.file.event(e);
    else this.events.push(e);
  }

  /** Streamed trace: writes the track names and the closing; the file then parses as JSON. */
  finish(): void {
    if (!this.file) return;
    for (const m of this.metadata()) this.file.event(m);
    this.file.close('ms', { locus: this.runInfo() });
  }

  /** Adds the run's report to the trace (call before finish()). */
  setReport(report: RunReport): void {
    this.report = report;
  }

  /** The `locus` block: the platform, and the report if set. */
  runInfo(): TraceRunInfo {
    const p = this.engine.platform;
    return {
      format: 1,
      platform: {
        name: p.name,
        nodes: p.nodes.map((n) => ({
          name: n.name,
          kind: n.kind,
          capacityBytes: Number.isFinite(n.capacity) ? n.capacity : null,
        })),
        workers: p.workers.map((w) => ({ name: w.name, kind: w.kind, node: w.node })),
      },
      ...(this.report ? { report: this.report } : {}),
    };
  }

  taskReady(task: number, now: number): void {
    this.taskReadyAt.set(task, now * 1e6);
  }

  taskPopped(task: number, _worker: number, now: number): void {
    this.taskPoppedAt.set(task, now * 1e6);
  }

  /** Streamed trace: closes the file as it is (after a failed run). */
  abort(): void {
    this.file?.abort();
  }

  taskStarted(task: number, _worker: number, now: number): void {
    this.taskStart.set(task, now * 1e6);
  }

  /** The engine recycled tasks [0, k): the running tasks' ids shift down. */
  rebase(k: number): void {
    for (const map of [this.taskStart, this.taskReadyAt, this.taskPoppedAt]) {
      const live = [...map];
      map.clear();
      for (const [task, ts] of live) if (task >= k) map.set(task - k, ts);
    }
  }

  taskFinished(task: number, worker: number, now: number): void {
    const g = this.engine.graph;
    const ts = this.taskStart.get(task) ?? now * 1e6;
    this.taskStart.delete(task);
    const ready = this.taskReadyAt.get(task);
    const popped = this.taskPoppedAt.get(task);
    this.taskReadyAt.delete(task);
    this.taskPoppedAt.delete(task);
    let data = '';
    for (let a = g.accessStart.data[task]!; a < g.accessStart.data[task + 1]!; a++) {
      if (data !== '') data += ' ';
      data += `${g.handleLabel(g.accessHandle.data[a]!)}:${MODE_NAMES[g.accessMode.data[a]!]}`;
    }
    this.emit({
      name: g.taskNames[task] ?? g.codelets[g.taskCodelet.data[task]!]!.name,
      cat: g.codelets[g.taskCodelet.data[task]!]!.name,
      ph: 'X',
      ts,
      dur: now * 1e6 - ts,
      pid: WORKERS_PID,
      tid: worker,
      args: {
        task: task + g.retired,
        flops: g.taskFlops.data[task],
        priority: g.taskPriority.data[task],
        data,
        // When it became ready and when a worker took it (us), as the engine told.
        ...(ready !== undefined ? { ready } : {}),
        ...(popped !== undefined ? { popped } : {}),
      },
    });
  }

  /** The engine issued transfer `id` (its copy may wait before it starts). */
  transferStarted(id: number, now: number): void {
    this.transferStart.set(id, { issued: now * 1e6, moved: -1 });
  }

  /** The backend started copying transfer `id` at `startS` (told before it finishes). */
  transferMoved(id: number, startS: number): void {
    const t = this.transferStart.get(id);
    if (t) t.moved = startS * 1e6;
  }

  transferFinished(id: number, now: number, applied: boolean): void {
    const e = this.engine;
    const t = this.transferStart.get(id);
    if (!t) return;
    this.transferStart.delete(id);
    const dst = e.trDst.data[id]!;
    const end = now * 1e6;
    // The copy's start as its backend said (issued .. end); untold: when it was issued.
    const start = t.moved < 0 ? t.issued : Math.min(end, Math.max(t.issued, t.moved));
    const h = e.trHandle.data[id]!;
    const nodes = e.platform.nodes;
    const name = `${e.graph.handleLabel(h)} ${nodes[e.trSrc.data[id]!]!.name}->${nodes[dst]!.name}`;
    const kind = TRANSFER_KIND_NAMES[e.trKind.data[id]!]!;
    if (start > t.issued) {
      this.emit({
        name,
        cat: 'queued',
        ph: 'X',
        ts: t.issued,
        dur: start - t.issued,
        pid: QUEUES_PID,
        tid: dst * 1000 + takeLane(this.queueLanes[dst]!, t.issued, start),
        args: { handle: h, kind, transfer: id, src: e.trSrc.data[id]!, dst },
      });
    }
    this.emit({
      name,
      cat: kind,
      ph: 'X',
      ts: start,
      dur: end - start,
      pid: TRANSFERS_PID,
      tid: dst * 1000 + takeLane(this.lanes[dst]!, start, end),
      args: {
        handle: h,
        bytes: e.graph.handleSize.data[h],
        kind,
        applied,
        transfer: id,
        src: e.trSrc.data[id]!,
        dst,
        queuedUs: start - t.issued,
      },
    });
  }

  replicaAllocated(_handle: number, node: number, now: number): void {
    this.memory(node, now);
  }

  replicaFreed(handle: number, node: number, reason: FreeReason, now: number): void {
    this.memory(node, now);
    if (reason !== 'evict') return;
    // An instant on the node's memory track: what was evicted (its write-back, if it was
    // modified, is a transfer of kind writeback before it).
    const g = this.engine.graph;
    this.emit({
      name: `evict ${g.handleLabel(handle)}`,
      cat: 'evict',
      ph: 'i',
      ts: now * 1e6,
      pid: MEMORY_PID,
      tid: node,
      args: { handle, bytes: g.handleSize.data[handle] },
    });
  }

  private memory(node: number, now: number): void {
    const name = this.engine.platform.nodes[node]!.name;
    const mib = this.engine.memoryUsed(node) / 2 ** 20;
    if (this.file && Number.isFinite(now) && Number.isFinite(mib)) {
      // The most frequent event, written without building an object (what JSON.stringify gives).
      this.file.json(
        `{"name":${JSON.stringify(`memory ${name}`)},"ph":"C","ts":${now * 1e6},"pid":${MEMORY_PID},"tid":${node},"args":{"MiB":${mib}}}`,
      );
      return;
    }
    this.emit({
      name: `memory ${name}`,
      ph: 'C',
      ts: now * 1e6,
      pid: MEMORY_PID,
      tid: node,
      args: { MiB: this.engine.memoryUsed(node) / 2 ** 20 },
    });
  }

  /**
   * Adds one counter track per worker with its power state in watts (the energy meter's
   * changes: [time s, worker, watts]).
   */
  addPowerStates(changes: readonly (readonly [number, number, number])[]): void {
    const workers = this.engine.platform.workers;
    for (const [t, w, watts] of changes) {
      this.emit({
        name: `power ${workers[w]!.name}`,
        ph: 'C',
        ts: t * 1e6,
        pid: POWER_PID,
        tid: w,
        args: { W: watts },
      });
    }
  }

  /** The trace as a JSON object ({ traceEvents, displayTimeUnit }); not for a streamed trace. */
  toJSON(): { traceEvents: TraceEvent[]; displayTimeUnit: string; locus: TraceRunInfo } {
    if (this.file) throw new Error(`this trace streams to ${this.file.path}: read the file`);
    return {
      traceEvents: [...this.metadata(), ...this.events],
      displayTimeUnit: 'ms',
      locus: this.runInfo(),
    };
  }

  /** Process and thread names of the tracks. */
  private metadata(): TraceEvent[] {
    const p = this.engine.platform;
    const meta: TraceEvent[] = [
      { name: 'process_name', ph: 'M', ts: 0, pid: WORKERS_PID, tid: 0, args: { name: 'workers' } },
      {
        name: 'process_name',
        ph: 'M',
        ts: 0,
        pid: TRANSFERS_PID,
        tid: 0,
        args: { name: 'transfers (by destination)' },
      },
      {
        name: 'process_name',
        ph: 'M',
        ts: 0,
        pid: QUEUES_PID,
        tid: 0,
        args: { name: 'transfer queues (waits before a copy starts, by destination)' },
      },
      { name: 'process_name', ph: 'M', ts: 0, pid: MEMORY_PID, tid: 0, args: { name: 'memory' } },
      { name: 'process_name', ph: 'M', ts: 0, pid: POWER_PID, tid: 0, args: { name: 'power (W)' } },
    ];
    p.workers.forEach((w, i) => {
      meta.push({ name: 'thread_name', ph: 'M', ts: 0, pid: WORKERS_PID, tid: i, args: { name: w.name } });
    });
    this.lanes.forEach((lanes, node) => {
      lanes.forEach((_, lane) => {
        meta.push({
          name: 'thread_name',
          ph: 'M',
          ts: 0,
          pid: TRANSFERS_PID,
          tid: node * 1000 + lane,
          args: { name: `to ${p.nodes[node]!.name} #${lane}` },
        });
      });
    });
    this.queueLanes.forEach((lanes, node) => {
      lanes.forEach((_, lane) => {
        meta.push({
          name: 'thread_name',
          ph: 'M',
          ts: 0,
          pid: QUEUES_PID,
          tid: node * 1000 + lane,
          args: { name: `queued for ${p.nodes[node]!.name} #${lane}` },
        });
      });
    });
    return meta;
  }
}

/**
 * The first lane of `lanes` (each its last slice's end) free at `from`, or a new one; the
 * lane then ends at `to`. Slices in a lane never overlap, whatever order they come in.
 */
function takeLane(lanes: number[], from: number, to: number): number {
  let lane = lanes.findIndex((end) => end <= from);
  if (lane < 0) lane = lanes.push(to) - 1;
  lanes[lane] = to;
  return lane;
}
