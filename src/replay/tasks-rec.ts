/**
 * Reads StarPU's task record (`tasks.rec`, written by `starpu_fxt_tool` from an FxT trace, the
 * input of StarPU's own `starpu_replay`): records separated by blank lines, each a list of
 * `Field: value` lines. A task record has its job id, submit order, codelet model and name,
 * explicit dependencies (`DependsOn`: job ids), priority, the worker and memory node it ran on,
 * its submit/start/end times (ms), its footprint and GFlop, and its data: `Handles` (hex
 * addresses), `Modes` (R, W, RW; S scratch, X reduction, C commutative), `Sizes` (bytes). A
 * `Control: WontUse` record is a wont-use hint on one handle. Unknown fields are ignored (StarPU
 * 1.3 and 1.4 write different sets); a line that is not `Field: value` is one error line naming
 * its line number. Cost: linear in the text.
 */
import { LocusError } from '../core/types.ts';

/** One task of the record. */
export interface RecTask {
  /** StarPU's job id (`JobId`, with its `rank_` prefix in MPI traces). */
  jobId: string;
  /** Submission order (`SubmitOrder`; the job id's number where absent). */
  submitOrder: number;
  /**
   * Whether the application submitted it (the record has a SubmitOrder): StarPU also records
   * its internal jobs (data acquisitions, ghost tasks), which have none.
   */
  submitted: boolean;
  /** `Name` (the task's), else undefined. */
  name: string | undefined;
  /** `Model` (the codelet's performance model symbol), else undefined. */
  model: string | undefined;
  /** Job ids it depends on explicitly (`DependsOn`). */
  dependsOn: string[];
  priority: number;
  /** Worker and memory node it ran on (-1 where not recorded). */
  worker: number;
  memoryNode: number;
  /** Times in milliseconds (NaN where not recorded). */
  submitMs: number;
  startMs: number;
  endMs: number;
  /** Flops (`GFlop` x 1e9; 0 where not recorded). */
  flops: number;
  /** StarPU's footprint hash (hex), or ''. */
  footprint: string;
  /** Its data, in access order: handle id (hex), mode and bytes. */
  data: { handle: string; mode: string; bytes: number }[];
}

/** A wont-use hint (`Control: WontUse`). */
export interface RecHint {
  submitOrder: number;
  handle: string;
}

/** A parsed task record. */
export interface TasksRec {
  tasks: RecTask[];
  hints: RecHint[];
}

/** Parses the text of a tasks.rec; `file` names it in errors. */
export function parseTasksRec(text: string, file: string): TasksRec {
  const tasks: RecTask[] = [];
  const hints: RecHint[] = [];
  let fields = new Map<string, string>();
  let first = 0;
  const fail = (line: number, what: string): never => {
    throw new LocusError('LOCUS_FILE_INVALID', `${file}: line ${line}: ${what}`);
  };
  const flush = (): void => {
    if (fields.size === 0) return;
    const f = fields;
    fields = new Map();
    const num = (key: string, fallback: number): number => {
      const v = f.get(key);
      if (v === undefined || v === '') return fallback;
      const x = Number(v);
      if (!Number.isFinite(x)) fail(first, `${key} '${v}' is not a number`);
      return x;
    };
    const jobId = f.get('JobId');
    if (f.get('Control') !== undefined) {
      if (f.get('Control') === 'WontUse' && f.get('Handles'))
        hints.push({ submitOrder: num('SubmitOrder', Number.NaN), handle: f.get('Handles')!.trim() });
      return;
    }
    if (jobId === undefined) fail(first, 'a record without JobId');
    const words = (key: string) =>
      (f.get(key) ?? '')
        .trim()
        .split(/\s+/)
        .filter((w) => w !== '');
    const handles = words('Handles');
    const modes = words('Modes');
    const sizes = words('Sizes').map(Number);
    if (modes.length !== handles.length || sizes.length !== handles.length)
      fail(
        first,
        `task ${jobId}: ${handles.length} Handles, ${modes.length} Modes and ${sizes.length} Sizes`,
      );
    if (sizes.some((s) => !(Number.isInteger(s) && s >= 0)))
      fail(first, `task ${jobId}: Sizes must be byte counts`);
    const idNumber = Number(/(\d+)$/.exec(jobId!)?.[1] ?? Number.NaN);
    tasks.push({
      jobId: jobId!,
      submitOrder: num('SubmitOrder', idNumber),
      submitted: f.has('SubmitOrder'),
      name: f.get('Name'),
      model: f.get('Model'),
      dependsOn: words('DependsOn'),
      priority: num('Priority', 0),
      worker: num('WorkerId', -1),
      memoryNode: num('MemoryNode', -1),
      submitMs: num('SubmitTime', Number.NaN),
      startMs: num('StartTime', Number.NaN),
      endMs: num('EndTime', Number.NaN),
      flops: num('GFlop', 0) * 1e9,
      footprint: f.get('Footprint') ?? '',
      data: handles.map((handle, i) => ({ handle, mode: modes[i]!, bytes: sizes[i]! })),
    });
  };
  text.split('\n').forEach((raw, i) => {
    const line = raw.trimEnd();
    if (line === '') {
      flush();
      return;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) fail(i + 1, `'${line.slice(0, 40)}' is not a 'Field: value' line`);
    if (fields.size === 0) first = i + 1;
    fields.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  });
  flush();
  return { tasks, hints };
}
