/**
 * The tasks hfp packs and their inputs, as flat tables (issue 25: at a million tasks, one
 * array per task and per datum held about 500 MB while the packages were built): per task, in
 * the order given, its distinct read inputs in access order; per datum, the tasks reading it,
 * in task order, as indices into `tasks`. Built in O(accesses); read by hfp's packing
 * (hfp.ts) and its anchor scores (anchor-scores.ts).
 */
import type { TaskGraph } from '../../core/graph.ts';
import { AccessMode } from '../../core/types.ts';

/**
 * Each datum's readers from rows of inputs (row i's are list[start[i] .. start[i + 1])): the
 * rows reading datum h, in increasing order, are readers.list[readers.start[h] ..
 * readers.start[h + 1]). Rows with skip[i] !== 0 are left out. O(rows + inputs + data).
 */
export function readerRows(
  rows: number,
  start: Int32Array,
  list: Int32Array,
  handles: number,
  skip?: Uint8Array,
): { start: Int32Array; list: Int32Array } {
  const rdStart = new Int32Array(handles + 1);
  for (let i = 0; i < rows; i++) {
    if (skip !== undefined && skip[i] !== 0) continue;
    for (let k = start[i]!; k < start[i + 1]!; k++) rdStart[list[k]! + 1]!++;
  }
  for (let h = 0; h < handles; h++) rdStart[h + 1]! += rdStart[h]!;
  const rdList = new Int32Array(rdStart[handles]!);
  const fill = rdStart.slice(0, handles);
  for (let i = 0; i < rows; i++) {
    if (skip !== undefined && skip[i] !== 0) continue;
    for (let k = start[i]!; k < start[i + 1]!; k++) rdList[fill[list[k]!]!++] = i;
  }
  return { start: rdStart, list: rdList };
}

/** Tasks, their distinct inputs and each datum's readers, in compressed rows. */
export class PackInputs {
  /** Index of each task id in `tasks`, -1 for the others. */
  readonly local: Int32Array;
  /** Task i's inputs are inList[inStart[i] .. inStart[i + 1]). */
  readonly inStart: Int32Array;
  readonly inList: Int32Array;
  /** Datum h's readers (indices into `tasks`, increasing) are rdList[rdStart[h] .. rdStart[h + 1]). */
  readonly rdStart: Int32Array;
  readonly rdList: Int32Array;

  private constructor(
    /** The tasks, in the order their rows are kept. */
    readonly tasks: readonly number[],
    taskCount: number,
    inStart: Int32Array,
    inList: Int32Array,
    /** Number of data. */
    readonly handles: number,
  ) {
    const n = tasks.length;
    this.local = new Int32Array(taskCount).fill(-1);
    for (let i = 0; i < n; i++) this.local[tasks[i]!] = i;
    this.inStart = inStart;
    this.inList = inList;
    const readers = readerRows(n, inStart, inList, handles);
    this.rdStart = readers.start;
    this.rdList = readers.list;
  }

  /** The read inputs of `tasks` in graph `g`, each once, in access order. */
  static ofGraph(g: TaskGraph, tasks: readonly number[]): PackInputs {
    const as = g.accessStart.data;
    const mode = g.accessMode.data;
    const handle = g.accessHandle.data;
    const n = tasks.length;
    let most = 0;
    for (let i = 0; i < n; i++) most += as[tasks[i]! + 1]! - as[tasks[i]!]!;
    const inStart = new Int32Array(n + 1);
    const flat = new Int32Array(most);
    let len = 0;
    for (let i = 0; i < n; i++) {
      const t = tasks[i]!;
      const first = len;
      for (let a = as[t]!; a < as[t + 1]!; a++) {
        if ((mode[a]! & AccessMode.R) === 0) continue;
        const h = handle[a]!;
        let seen = false;
        for (let k = first; k < len && !seen; k++) seen = flat[k] === h;
        if (!seen) flat[len++] = h;
      }
      inStart[i + 1] = len;
    }
    return new PackInputs(tasks, g.taskCount, inStart, flat.slice(0, len), g.handleCount);
  }

  /** Tasks and their distinct inputs given as lists (`inputs(t)`), over `handles` data. */
  static ofLists(
    tasks: readonly number[],
    inputs: (t: number) => readonly number[],
    handles: number,
    taskCount: number,
  ): PackInputs {
    const n = tasks.length;
    const inStart = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) inStart[i + 1] = inStart[i]! + inputs(tasks[i]!).length;
    const inList = new Int32Array(inStart[n]!);
    for (let i = 0; i < n; i++) inList.set(inputs(tasks[i]!), inStart[i]!);
    return new PackInputs(tasks, taskCount, inStart, inList, handles);
  }

  /** Number of the tasks that read datum h. */
  readerCount(h: number): number {
    return this.rdStart[h + 1]! - this.rdStart[h]!;
  }
}
