/**
 * The Submitter that runs a workload sequentially in this thread: each task's kernel (an
 * export of src/kernels/tasks.ts) runs when the task is submitted, on the data's arrays in
 * access order. It defines the result a parallel run must give: every run that respects the
 * dependencies of the submission order computes the same values, bit for bit, since the
 * same kernels see the same inputs. A real run's `--check` compares with it.
 */
import type { Codelet as ModelCodelet } from '../core/graph.ts';
import { LocusError } from '../core/types.ts';
import * as Tasks from '../kernels/tasks.ts';
import type { DataSpec, KernelName, SubmitAccess, Submitter, TaskSpec } from '../workloads/submitter.ts';
import type { DataArray } from './runtime.ts';
import { initialArray } from './runtime-submitter.ts';

type Kernel = (data: readonly ArrayLike<number>[], args: Float64Array) => void;

/** The task kernels by export name. */
const KERNELS: Readonly<Record<KernelName, Kernel>> = { ...Tasks };

/** Runs every submitted task at once. */
export class SequentialSubmitter implements Submitter {
  /** Kernels run on the values. */
  readonly computes = true;
  /** The array of each datum, by id: the sequential results. */
  readonly arrays: DataArray[] = [];
  /** With `keepInitial`: a copy of each datum's initial values, by id. */
  readonly initial: DataArray[] = [];
  /** The name of each datum, by id. */
  readonly names: string[] = [];
  private readonly kernels: (Kernel | undefined)[] = [];

  /**
   * With `keepInitial`, copies of the initial values are kept (for backward errors). `table`
   * is the task kernels to run: by default the table real runs use (src/kernels/tasks.ts:
   * native where the addon is built); tests of the generators' task sequences pass the
   * JavaScript table (src/kernels/tasks-js.ts) to compare bit for bit with the references.
   */
  constructor(
    private readonly keepInitial = false,
    private readonly table: Readonly<Record<KernelName, Kernel>> = KERNELS,
  ) {}

  /** Makes the datum's array (initial values or zeros). */
  data(spec: DataSpec): number {
    const array = initialArray(spec);
    if (this.keepInitial) this.initial.push(array.slice());
    this.names.push(spec.name);
    return this.arrays.push(array) - 1;
  }

  /** Looks the kernel up among the task kernels. */
  codelet(codelet: ModelCodelet, kernel?: KernelName): number {
    if (kernel === undefined)
      throw new LocusError('LOCUS_GRAPH_INVALID', `codelet ${codelet.name} has no kernel to run`);
    return this.kernels.push(this.table[kernel]) - 1;
  }

  /** A hint changes no value: nothing to do when every task runs at once, in order. */
  wontUse(_data: number): void {}

  /** Runs the task's kernel now. */
  submit(codelet: number, accesses: readonly SubmitAccess[], task: TaskSpec = {}): void {
    const views = accesses.map(([d]) => this.arrays[d]!);
    this.kernels[codelet]!(views, Float64Array.from(task.args ?? []));
  }
}
