/**
 * The small interface every workload is written against, once: declare data, declare
 * codelets, submit tasks with access modes. Three implementations read the same program:
 * - GraphSubmitter (graph-submitter.ts) builds the simulator's TaskGraph;
 * - RuntimeSubmitter (src/exec/runtime-submitter.ts) registers the data, codelets and tasks
 *   with a library Runtime, so the tile kernels of src/kernels/tasks.ts run on worker threads;
 * - SequentialSubmitter (src/exec/sequential-submitter.ts) runs every task's kernel at once,
 *   in submission order, in this thread: the sequential run a real run's `--check` compares with.
 *
 * Ids are small integers numbered by each implementation in declaration order; a workload
 * only hands them back to the submitter that gave them.
 */
import type { Codelet } from '../core/graph.ts';
import type { AccessMode } from '../core/types.ts';
import type * as Tasks from '../kernels/tasks.ts';

/** The name of a task kernel exported by src/kernels/tasks.ts (checked by the compiler). */
export type KernelName = keyof typeof Tasks;

/** Element types of declared data. */
export type ElementType = 'float64' | 'float32' | 'int32';

/** Bytes per element of each element type. */
export const ELEMENT_BYTES: Readonly<Record<ElementType, number>> = { float64: 8, float32: 4, int32: 4 };

/** A datum: what the simulator needs (its size) and what a real run needs (its values). */
export interface DataSpec {
  /** Name in reports, traces and checks ("A[2,3]"). */
  name: string;
  /** Element type; the simulated size is `length` times its bytes. */
  type: ElementType;
  /** Number of elements. */
  length: number;
  /** Block coordinates in a blocked matrix, for owner-computes mappings (simulator). */
  block?: readonly [row: number, col: number];
  /** A scratch output whose content is discarded after each write (simulator; seed 000). */
  discard?: boolean;
  /**
   * The initial values (`length` of them), called only by submitters that compute (never by
   * the simulator); zeros when absent. Returning an array of `type` lets it be used as is.
   */
  init?: () => ArrayLike<number>;
}

/** A task's options. */
export interface TaskSpec {
  /** Name for traces and reports ("POTRF(3)"). */
  name?: string;
  /** Work in flops; without it, the codelet's flops(...dims). */
  flops?: number;
  /** Tile dimensions passed to the codelet's flop function. */
  dims?: readonly number[];
  /** Scheduling priority (larger first under priority-aware policies). */
  priority?: number;
  /** The part of the data the task belongs to (a block), for owner-computes placement. */
  affinity?: number;
  /** The iteration the task belongs to (per-iteration bytes in the report). */
  phase?: number;
  /** Numeric arguments of the kernel (a tile edge, flags), read by submitters that compute. */
  args?: readonly number[];
}

/** One access of a task: a datum id and its mode. */
export type SubmitAccess = readonly [data: number, mode: AccessMode];

/** What a workload submits to. */
export interface Submitter {
  /**
   * True when tasks compute on the data's values (a real run, the sequential check), false
   * when only their sizes and costs matter (the simulator).
   */
  readonly computes: boolean;
  /** Declares a datum; returns its id. */
  data(spec: DataSpec): number;
  /**
   * Declares a codelet (name, worker kinds, flop function) with the kernel that runs it;
   * returns its id. Declaring the same codelet again with another kernel (LU's two TRSMs)
   * gives one simulated codelet, whose costs the models share, and one real codelet per kernel.
   */
  codelet(codelet: Codelet, kernel?: KernelName): number;
  /**
   * Submits a task; dependencies follow from the accesses in submission order. The caller may
   * reuse `accesses` once the call returns.
   */
  submit(codelet: number, accesses: readonly SubmitAccess[], task?: TaskSpec): void;
  /**
   * A hint at this point of the submission order (StarPU's starpu_data_wont_use): datum `data`
   * will not be used for a while, once the tasks submitted so far that access it have ended
   * (written back home early, evicted first). Values never depend on it.
   */
  wontUse?(data: number): void;
}
