/**
 * A Chrome trace (the Trace Event Format that Perfetto and chrome://tracing open) recorded as
 * an engine observer: one track per worker with its tasks, one set of lanes per destination
 * memory node with the transfers into it, and a memory-use counter per node. Kept in memory
 * (toJSON) or, given a file, streamed to it as the run goes (finish() completes the file).
 */
import { type Engine, type EngineObserver, TRANSFER_KIND_NAMES } from '../core/engine.ts';
import { TraceFile } from './trace-file.ts';

interface TraceEvent {
  name: string;
  ph: string;
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

/** Records a run and serialises it as Chrome trace JSON. */
export class ChromeTrace implements EngineObserver {
  private readonly events: TraceEvent[] = [];
  private readonly file: TraceFile | undefined;
  private readonly taskStart = new Map<number, number>();
  private readonly transferStart = new Map<number, { ts: number; lane: number }>();
  // lanes[node] = end time (us) of the last transfer in each lane into that node.
  private readonly lanes: number[][];

  /**
   * Records `engine`'s run; with `file`, streams the events to that path (created or
   * truncated now; a LocusError if it cannot be written) instead of keeping them.
   */
  constructor(
    private readonly engine: Engine,
    file?: string,
  ) {
    this.lanes = engine.platform.nodes.map(() => []);
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
    this.file.close('ms');
  }

  /** Streamed trace: closes the file as it is (after a failed run). */
  abort(): void {
    this.file?.abort();
  }

  taskStarted(task: number, _worker: number, now: number): void {
    this.taskStart.set(task, now * 1e6);
  }

  taskFinished(task: number, worker: number, now: number): void {
    const g = this.engine.graph;
    const ts = this.taskStart.get(task) ?? now * 1e6;
    this.taskStart.delete(task);
    this.emit({
      name: g.taskNames[task] ?? g.codelets[g.taskCodelet.data[task]!]!.name,
      cat: g.codelets[g.taskCodelet.data[task]!]!.name,
      ph: 'X',
      ts,
      dur: now * 1e6 - ts,
      pid: WORKERS_PID,
      tid: worker,
      args: { task, flops: g.taskFlops.data[task], priority: g.taskPriority.data[task] },
    });
  }

  transferStarted(id: number, now: number): void {
    const dst = this.engine.trDst.data[id]!;
    const lanes = this.lanes[dst]!;
    const ts = now * 1e6;
    let lane = lanes.findIndex((end) => end <= ts);
    if (lane < 0) lane = lanes.push(ts) - 1;
    lanes[lane] = Number.POSITIVE_INFINITY;
    this.transferStart.set(id, { ts, lane });
  }

  transferFinished(id: number, now: number, applied: boolean): void {
    const e = this.engine;
    const start = this.transferStart.get(id);
    if (!start) return;
    this.transferStart.delete(id);
    const dst = e.trDst.data[id]!;
    const ts = now * 1e6;
    this.lanes[dst]![start.lane] = ts;
    const h = e.trHandle.data[id]!;
    const nodes = e.platform.nodes;
    this.emit({
      name: `${e.graph.handleLabel(h)} ${nodes[e.trSrc.data[id]!]!.name}->${nodes[dst]!.name}`,
      cat: TRANSFER_KIND_NAMES[e.trKind.data[id]!]!,
      ph: 'X',
      ts: start.ts,
      dur: ts - start.ts,
      pid: TRANSFERS_PID,
      tid: dst * 1000 + start.lane,
      args: {
        handle: h,
        bytes: e.graph.handleSize.data[h],
        kind: TRANSFER_KIND_NAMES[e.trKind.data[id]!],
        applied,
      },
    });
  }

  replicaAllocated(_handle: number, node: number, now: number): void {
    this.memory(node, now);
  }

  replicaFreed(_handle: number, node: number, _reason: string, now: number): void {
    this.memory(node, now);
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
  toJSON(): { traceEvents: TraceEvent[]; displayTimeUnit: string } {
    if (this.file) throw new Error(`this trace streams to ${this.file.path}: read the file`);
    return { traceEvents: [...this.metadata(), ...this.events], displayTimeUnit: 'ms' };
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
    return meta;
  }
}
