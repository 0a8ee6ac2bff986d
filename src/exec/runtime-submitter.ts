/**
 * The Submitter that registers a workload with a library Runtime: every datum becomes an
 * array registered with rt.data (its initial values, or zeros), every codelet a runtime
 * codelet whose kernel is an export of src/kernels/tasks.ts, every task an rt.submit. Tasks
 * are submitted one by one as the workload goes: the runtime starts them while the
 * application goes on, as it does for any program written against its API. After the run
 * and rt.sync(), `arrays` hold the results.
 */
import type { Codelet as ModelCodelet } from '../core/graph.ts';
import { AccessMode } from '../core/types.ts';
import type {
  DataSpec,
  ElementType,
  KernelName,
  SubmitAccess,
  Submitter,
  TaskSpec,
} from '../workloads/submitter.ts';
import type { Codelet, Data, DataArray, Mode, Runtime } from './runtime.ts';
import type { GpuImplementation } from './runtime-options.ts';

/**
 * The kernel module the workers import: tasks.js next to this compiled module, tasks.ts when
 * run from the sources.
 */
export const TASKS_MODULE = new URL(
  `../kernels/tasks.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
  import.meta.url,
);

const MODE_NAMES: Record<number, Mode> = { [AccessMode.R]: 'R', [AccessMode.W]: 'W', [AccessMode.RW]: 'RW' };

/**
 * An array of `spec`'s type and length holding its initial values when it has some and
 * `values` is set (zeros otherwise): the array itself when init() returns one of that type
 * and length, else a copy. With `shared`, the array is on a SharedArrayBuffer of its own, so
 * that a Runtime registers it in place (zeros then cost nothing until written).
 */
export function initialArray(spec: DataSpec, values = true, shared = false): DataArray {
  const make = ARRAYS[spec.type];
  const init = values ? spec.init?.() : undefined;
  if (init !== undefined && init.length !== spec.length) {
    throw new RangeError(`datum ${spec.name}: ${init.length} initial values for ${spec.length} elements`);
  }
  if (shared) {
    // (The constructors' types take a SharedArrayBuffer only one by one: the union needs the cast.)
    const array = new make(
      new SharedArrayBuffer(spec.length * make.BYTES_PER_ELEMENT) as unknown as ArrayBuffer,
    );
    if (init !== undefined) array.set(init);
    return array;
  }
  if (init === undefined) return new make(spec.length);
  if (init instanceof make) return init;
  return make.from(init);
}

const ARRAYS = {
  float64: Float64Array,
  float32: Float32Array,
  int32: Int32Array,
} as const satisfies Record<ElementType, unknown>;

/** Submits a workload's data, codelets and tasks to `rt`. */
export class RuntimeSubmitter implements Submitter {
  /** Whether kernels run (a real runtime) or the runtime simulates. */
  readonly computes: boolean;
  /** The registered array of each datum, by id: the results after the run and rt.sync(). */
  readonly arrays: DataArray[] = [];
  /** The name of each datum, by id. */
  readonly names: string[] = [];
  private readonly handles: Data[] = [];
  private readonly codelets: Codelet[] = [];
  private readonly declared = new Map<ModelCodelet, Map<string, number>>();

  /**
   * `gpuOf` gives a task kernel's WGSL implementation, where it has one (the webgpu backend:
   * src/webgpu/tile-kernels.ts); the codelets then carry it beside their CPU kernel.
   */
  constructor(
    private readonly rt: Runtime,
    private readonly gpuOf?: (kernel: KernelName) => GpuImplementation | undefined,
  ) {
    this.computes = rt.mode === 'real';
  }

  /** Registers the datum's array (its initial values when the runtime computes, else zeros). */
  data(spec: DataSpec): number {
    const array = initialArray(spec, this.computes, true);
    this.handles.push(this.rt.data(array, { name: spec.name, discard: spec.discard }));
    this.names.push(spec.name);
    return this.arrays.push(array) - 1;
  }

  /** Declares one runtime codelet per (codelet, kernel) pair. */
  codelet(codelet: ModelCodelet, kernel?: KernelName): number {
    let byKernel = this.declared.get(codelet);
    if (byKernel === undefined) {
      byKernel = new Map();
      this.declared.set(codelet, byKernel);
    }
    const key = kernel ?? '';
    let id = byKernel.get(key);
    if (id === undefined) {
      const gpu = kernel === undefined ? undefined : this.gpuOf?.(kernel);
      const c = this.rt.codelet({
        name: codelet.name,
        kinds: codelet.kinds,
        flops: codelet.flops,
        kernel: kernel === undefined ? undefined : { module: TASKS_MODULE, export: kernel },
        ...(gpu ? { gpu } : {}),
      });
      id = this.codelets.push(c) - 1;
      byKernel.set(key, id);
    }
    return id;
  }

  /** The runtime handle of datum `id` (the cluster layer sends and receives it). */
  handle(id: number): Data {
    return this.handles[id]!;
  }

  /** Passes the hint to the runtime (Runtime.wontUse). */
  wontUse(data: number): void {
    this.rt.wontUse(this.handles[data]!);
  }

  /** Submits the task to the runtime, which may start it at once. */
  submit(codelet: number, accesses: readonly SubmitAccess[], task: TaskSpec = {}): void {
    this.rt.submit(
      this.codelets[codelet]!,
      accesses.map(([d, m]) => [this.handles[d]!, MODE_NAMES[m]!] as const),
      {
        args: task.args,
        dims: task.dims,
        flops: task.flops,
        priority: task.priority,
        name: task.name,
        affinity: task.affinity,
        phase: task.phase,
      },
    );
  }
}
