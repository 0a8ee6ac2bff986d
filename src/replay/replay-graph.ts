/**
 * The task graph of a StarPU task record (issue 28, `locus replay`, the library's
 * replayGraph()): the application's tasks (StarPU's internal jobs left out) in submission order, each with its codelet (the record's
 * performance model symbol, mapped to Locus's codelet names as `locus platform import starpu`
 * maps them, so an imported platform's per-footprint durations apply), its data (one Locus
 * handle per StarPU handle address and size, with the access modes recorded), its priority and
 * flops, and its dependencies: those the accesses imply in submission order (as StarPU's
 * implicit data dependencies) plus the recorded `DependsOn` edges (tags, explicit
 * dependencies), which may point anywhere. Wont-use hints are replayed where they were submitted.
 *
 * It also keeps what the recorded run did, per task (its worker and duration) and in total (its
 * makespan), for the comparison `locus replay` prints and `--durations recorded`. Cost: O(tasks
 * + accesses + edges).
 */
import { TaskGraph } from '../core/graph.ts';
import { AccessMode, LocusError } from '../core/types.ts';
import { CODELET_MAP } from '../platform/starpu/import.ts';
import type { RecTask, TasksRec } from './tasks-rec.ts';

/** Options of replayGraph(). */
export interface ReplayGraphOptions {
  /** More (or other) StarPU symbol -> Locus codelet names, over CODELET_MAP. */
  codeletMap?: Readonly<Record<string, string>>;
}

/** A replayed graph and the recorded run beside it. */
export interface ReplayGraph {
  graph: TaskGraph;
  /** Per Locus task: the recorded worker (-1 unknown) and duration in seconds (NaN unknown). */
  recordedWorker: Int32Array;
  recordedSeconds: Float64Array;
  /** The recorded run's makespan (first start to last end, seconds), NaN without times. */
  recordedMakespanS: number;
  /** One line per thing the replay approximates (scratch data, unknown dependencies). */
  notes: string[];
}

/** StarPU access modes as Locus's: scratch data are left out, reductions and commutes are RW. */
function modeOf(mode: string): AccessMode | undefined {
  if (mode.includes('S')) return undefined;
  if (mode.includes('X') || mode.includes('C')) return AccessMode.RW;
  const r = mode.includes('R');
  const w = mode.includes('W');
  return r && w ? AccessMode.RW : w ? AccessMode.W : r ? AccessMode.R : undefined;
}

/** Rebuilds the graph of a parsed task record. */
export function replayGraph(rec: TasksRec, o: ReplayGraphOptions = {}): ReplayGraph {
  const map = { ...CODELET_MAP, ...o.codeletMap };
  // The application's tasks: those with a SubmitOrder (StarPU's internal jobs have none), or,
  // in a record without any (older StarPU), those with a codelet model.
  const ordered = rec.tasks.some((t) => t.submitted);
  const app = rec.tasks.filter((t) => (ordered ? t.submitted : t.model !== undefined));
  const internal = rec.tasks.length - app.length;
  const tasks = app.sort((a, b) => a.submitOrder - b.submitOrder);
  const g = new TaskGraph();
  const codelets = new Map<string, number>();
  const handles = new Map<string, number>();
  const ids = new Map<string, number>();
  const notes: string[] = [];
  let scratch = 0;
  let unknownDeps = 0;
  const hints = [...rec.hints].sort((a, b) => a.submitOrder - b.submitOrder);
  let nextHint = 0;
  const codeletOf = (t: RecTask): number => {
    const symbol = t.model ?? t.name ?? 'task';
    const name = map[symbol] ?? symbol;
    let c = codelets.get(name);
    if (c === undefined) {
      c = g.addCodelet({ name, kinds: ['cpu', 'gpu'] });
      codelets.set(name, c);
    }
    return c;
  };
  const handleOf = (address: string, bytes: number): number => {
    // A handle address reused for data of another size is another datum.
    const key = `${address}/${bytes}`;
    let h = handles.get(key);
    if (h === undefined) {
      h = g.addHandle(Math.max(1, bytes), { name: address });
      handles.set(key, h);
    }
    return h;
  };
  for (const t of tasks) {
    while (nextHint < hints.length && hints[nextHint]!.submitOrder < t.submitOrder) {
      const hint = hints[nextHint++]!;
      const known = [...handles.entries()].filter(([k]) => k.startsWith(`${hint.handle}/`)).map(([, h]) => h);
      for (const h of known) g.wontUse(h);
    }
    const accesses: [number, AccessMode][] = [];
    const seen = new Set<number>();
    for (const d of t.data) {
      const mode = modeOf(d.mode);
      if (mode === undefined) {
        scratch++;
        continue;
      }
      const h = handleOf(d.handle, d.bytes);
      if (seen.has(h)) continue; // a datum passed twice: its first mode (StarPU merges them)
      seen.add(h);
      accesses.push([h, mode]);
    }
    if (ids.has(t.jobId))
      throw new LocusError('LOCUS_FILE_INVALID', `task record: job ${t.jobId} appears twice`);
    const id = g.submit(codeletOf(t), accesses, {
      name: t.name ?? t.model ?? `job ${t.jobId}`,
      priority: t.priority,
      flops: t.flops,
    });
    ids.set(t.jobId, id);
  }
  tasks.forEach((t, i) => {
    for (const dep of t.dependsOn) {
      const before = ids.get(dep);
      if (before === undefined) unknownDeps++;
      else if (before !== i) g.addDependency(before, i);
    }
  });
  g.checkAcyclic();
  if (internal > 0) notes.push(`${internal} StarPU internal jobs left out (data acquisitions, ghost tasks)`);
  if (scratch > 0) notes.push(`${scratch} scratch data left out (per-task temporary buffers)`);
  if (unknownDeps > 0)
    notes.push(`${unknownDeps} dependencies on jobs not in the record (control tasks, other ranks) left out`);
  const recordedWorker = Int32Array.from(tasks, (t) => t.worker);
  const recordedSeconds = Float64Array.from(tasks, (t) => (t.endMs - t.startMs) / 1000);
  const starts = tasks.map((t) => t.startMs).filter(Number.isFinite);
  const ends = tasks.map((t) => t.endMs).filter(Number.isFinite);
  const recordedMakespanS =
    starts.length > 0 && ends.length > 0 ? (Math.max(...ends) - Math.min(...starts)) / 1000 : Number.NaN;
  return { graph: g, recordedWorker, recordedSeconds, recordedMakespanS, notes };
}
