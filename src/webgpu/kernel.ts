/**
 * What a kernel is to the WebGPU backend (docs/webgpu.md): a CPU implementation for tasks on
 * host workers (POTRF and GETRF stay there, as in the seeds' hybrid runs) and a WGSL one for
 * tasks on devices. A WGSL kernel binds each of the task's data as storage buffer `i`
 * (binding i of group 0, in access order) and its parameters, u32 words, at binding `n` (the
 * data count): a storage array, or a uniform of up to 4 words (the buffer has both usages).
 */

/** A kernel the WebGPU backend can run. */
export interface WebGpuKernel {
  /** Name (in error messages). */
  readonly name: string;
  /** The CPU implementation over the task's host data (absent: devices only). */
  cpu?(data: readonly ArrayBuffer[], args: Float64Array): void;
  /** The GPU implementation (absent: CPU only). */
  gpu?: WgslKernel;
}

/** A WGSL implementation. */
export interface WgslKernel {
  /** WGSL source for a task with `n` data and arguments `args` (compiled once per distinct source); entry point `main`. */
  source(n: number, args: Float64Array): string;
  /** Workgroups to dispatch, from the data's byte sizes and the task's arguments. */
  workgroups(bytes: readonly number[], args: Float64Array): readonly [number, number, number];
  /** The parameter words (u32) the kernel reads at binding n. */
  params(bytes: readonly number[], args: Float64Array): Uint32Array<ArrayBuffer>;
}
