/**
 * A submitted task as the library hands it out (Task), the errors its promise rejects with,
 * and the states the runtime keeps per task.
 */
import { LocusError } from '../core/types.ts';
import type { TaskFailure } from '../drive/driver.ts';
import type { RunReport } from '../trace/report.ts';

/** Tasks that failed (code 'LOCUS_TASK_FAILED'): names them; the tasks that depend on them were cancelled. */
export class TaskFailedError extends LocusError {
  constructor(
    readonly failures: readonly TaskFailure[],
    readonly cancelled: number,
    /** The report of the wait() that found the failures (absent on a single task's promise). */
    readonly report?: RunReport,
  ) {
    const f = failures[0]!;
    const more = failures.length > 1 ? ` (and ${failures.length - 1} more failed tasks)` : '';
    const tail =
      report === undefined ? '' : `; ${cancelled} dependent task${cancelled === 1 ? '' : 's'} cancelled`;
    super('LOCUS_TASK_FAILED', `task ${f.label} (codelet ${f.codelet}) failed: ${f.message}${more}${tail}`);
    this.name = 'TaskFailedError';
  }
}

/** A task that did not run because a task it depends on failed or was cancelled (code 'LOCUS_TASK_CANCELLED'). */
export class TaskCancelledError extends LocusError {
  constructor(readonly label: string) {
    super('LOCUS_TASK_CANCELLED', `task ${label} was cancelled: a task it depends on failed`);
    this.name = 'TaskCancelledError';
  }
}

/** Per-task states the runtime keeps. */
export const PENDING = 0;
export const FINISHED = 1;
export const FAILED = 2;
export const CANCELLED = 3;
/** An acquire holding its data (counts as ended for wait()). */
export const ACQUIRED = 4;

/** What a Task asks its runtime. */
export interface TaskOwner {
  /** The promise of task `id`'s end (created on first use). */
  taskPromise(id: number): Promise<void>;
  /** Its state. */
  taskState(id: number): 'pending' | 'finished' | 'failed' | 'cancelled';
}

/** A submitted task: its id and name, and a promise of its end. */
export class Task {
  constructor(
    /** Task id (submission order over the runtime's life). */
    readonly id: number,
    /** Its name, or its codelet's name and id. */
    readonly name: string,
    private readonly rt: TaskOwner,
  ) {}

  /**
   * Settles when the task ends: resolves when it finished, rejects with a TaskFailedError or
   * TaskCancelledError. Created on first use, so an unobserved failure is not an unhandled
   * rejection (wait() reports it).
   */
  get done(): Promise<void> {
    return this.rt.taskPromise(this.id);
  }

  /** 'pending', 'finished', 'failed' or 'cancelled'. */
  get state(): 'pending' | 'finished' | 'failed' | 'cancelled' {
    return this.rt.taskState(this.id);
  }
}

/** A promise with its settle functions. */
export interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: Error) => void;
}

/** A new Deferred. */
export function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
