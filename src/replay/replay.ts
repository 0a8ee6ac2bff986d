/**
 * `locus replay FILE.rec` and the library's replay(): simulates the task graph of a StarPU task
 * record (replay-graph.ts) on a platform under any Locus policy, with task durations from the
 * platform (its footprint rules, e.g. an imported StarPU machine's) or from the record itself
 * (`durations: 'recorded'`: each task takes what it took in the recorded run, whatever worker
 * runs it), and compares the replay with the recorded run: makespan, tasks and busy time per
 * worker. Cost: that of a simulation of the graph.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { TaskGraph } from '../core/graph.ts';
import { type DurationModel, PlatformModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { simulate } from '../sim/simulate.ts';
import type { RunReport } from '../trace/report.ts';
import { type ReplayGraph, replayGraph } from './replay-graph.ts';
import { parseTasksRec } from './tasks-rec.ts';

/** Durations as recorded: each task's measured time on any worker; copies from the platform. */
export class RecordedDurations implements DurationModel {
  constructor(
    private readonly seconds: Float64Array,
    private readonly platform: PlatformModel,
  ) {}

  taskDuration(graph: TaskGraph, task: number, worker: number): number {
    const s = this.seconds[task]!;
    return Number.isFinite(s) && s >= 0 ? s : this.platform.taskDuration(graph, task, worker);
  }

  transferTime(src: number, dst: number, bytes: number): number {
    return this.platform.transferTime(src, dst, bytes);
  }
}

/** Options of replay(). */
export interface ReplayOptions {
  /** The record: its text, or a path to a `.rec` or gzipped `.rec.gz` file. */
  file: string;
  /** Whether `file` is the record's text rather than a path (default false). */
  text?: boolean;
  platform: Platform;
  scheduler?: string;
  eviction?: string;
  /** 'platform' (default): the platform's figures; 'recorded': the record's task times. */
  durations?: 'platform' | 'recorded';
  /** More StarPU symbol -> Locus codelet names. */
  codeletMap?: Readonly<Record<string, string>>;
  seed?: number;
}

/** One worker of the recorded run. */
export interface RecordedWorker {
  /** StarPU's worker id. */
  worker: number;
  tasks: number;
  busyS: number;
}

/** What replay() returns. */
export interface ReplayResult {
  /** The replay's run report (as `locus run --json`'s). */
  report: RunReport;
  /** The recorded run. */
  recorded: { makespanS: number; workers: RecordedWorker[] };
  /** The replayed graph and what the replay approximated. */
  graph: ReplayGraph;
}

/** Reads a task record file (gzipped when it ends in .gz): one error line when it cannot. */
export function readTasksRec(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new LocusError('LOCUS_FILE_READ_FAILED', `${path}: cannot read: ${(e as Error).message}`);
  }
  if (!path.endsWith('.gz')) return bytes.toString('utf8');
  try {
    return gunzipSync(bytes).toString('utf8');
  } catch (e) {
    throw new LocusError('LOCUS_FILE_INVALID', `${path}: not a gzip file (${(e as Error).message})`);
  }
}

/** Replays a task record on a platform and compares with the recorded run. */
export function replay(o: ReplayOptions): ReplayResult {
  const source = o.text ? 'the task record' : o.file;
  const rec = parseTasksRec(o.text ? o.file : readTasksRec(o.file), source);
  if (rec.tasks.length === 0) throw new LocusError('LOCUS_FILE_INVALID', `${source}: no task record in it`);
  const rg = replayGraph(rec, o.codeletMap ? { codeletMap: o.codeletMap } : {});
  const platformModel = new PlatformModel(o.platform, rg.graph);
  const model =
    o.durations === 'recorded' ? new RecordedDurations(rg.recordedSeconds, platformModel) : platformModel;
  const { report } = simulate({
    graph: rg.graph,
    platform: o.platform,
    scheduler: o.scheduler ?? 'dmdar',
    eviction: o.eviction ?? 'lru',
    model,
    seed: o.seed ?? 1,
    workload: `replay of ${source} (${rec.tasks.length} tasks)`,
  });
  const byWorker = new Map<number, RecordedWorker>();
  rg.recordedWorker.forEach((w, t) => {
    if (w < 0) return;
    const r = byWorker.get(w) ?? { worker: w, tasks: 0, busyS: 0 };
    r.tasks++;
    const s = rg.recordedSeconds[t]!;
    if (Number.isFinite(s)) r.busyS += s;
    byWorker.set(w, r);
  });
  return {
    report,
    recorded: {
      makespanS: rg.recordedMakespanS,
      workers: [...byWorker.values()].sort((a, b) => a.worker - b.worker),
    },
    graph: rg,
  };
}
