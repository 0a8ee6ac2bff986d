/**
 * Task Bench's kernels (Slaughter et al., SC20; core/core_kernel.cc), as a real run's tasks
 * call them: `taskbenchTask([out W, in_1 R, ...], [kernel, iterations, t, x])`. Like Task
 * Bench's implementations, every task first checks that each input holds the (timestep, point)
 * of a task of the previous timestep, then runs its kernel, then writes its own (t, x) into
 * its output, so a run with a wrong dependency fails its task instead of passing silently.
 *
 * Kernels (the codes of TASKBENCH_KERNEL_CODES):
 * - empty: nothing;
 * - busy_wait: `iterations` steps of acc = acc * 139 mod 2^31 - 1 (Task Bench's exactly);
 * - compute_bound and load_imbalance (whose iterations the workload already drew per task):
 *   Task Bench's portable version, 64 doubles, `iterations` times A[i] = A[i] * A[i] + A[i]
 *   (2 x 64 flops per iteration), then their product (64 more); the result goes into the
 *   output's third word when there is one, so the work is not optimised away.
 * - memory_bound: Task Bench's memory kernel over `scratchBytes` of scratch memory cut into
 *   `samples` samples: iteration i of timestep t copies the first half of sample
 *   (t x iterations + i) mod samples onto its second half, consecutive samples in one copy as
 *   Task Bench groups them. Task Bench gives each point its own scratch; here each worker
 *   thread keeps one buffer per size (the bytes streamed per task are the same).
 */

/** The kernel codes a task's args[0] carries. */
export const TASKBENCH_KERNEL_CODES = {
  empty: 0,
  busy_wait: 1,
  compute_bound: 2,
  load_imbalance: 3,
  memory_bound: 4,
} as const;

/** Task Bench's busy_wait: the final accumulator. */
function busyWait(iterations: number): number {
  let acc = 113;
  for (let i = 0; i < iterations; i++) acc = (acc * 139) % 2147483647;
  return acc;
}

const scratch = new Float64Array(64);

/** Scratch memory of memory_bound, one per size, in this thread. */
const scratchMemory = new Map<number, Uint8Array>();

/** Task Bench's copy(): the region's first half onto its second half. */
function copyHalf(m: Uint8Array, start: number, bytes: number): void {
  const half = bytes >> 1;
  m.copyWithin(start + half, start, start + half);
}

/** memory_bound over this thread's scratch memory of `scratchBytes`. */
function memoryBound(iterations: number, t: number, scratchBytes: number, samples: number): void {
  let m = scratchMemory.get(scratchBytes);
  if (m === undefined) {
    m = new Uint8Array(scratchBytes);
    scratchMemory.set(scratchBytes, m);
  }
  memoryKernel(m, iterations, t, samples);
}

/**
 * Task Bench's execute_kernel_memory over scratch memory `m` cut into `samples` samples
 * (prologue, whole passes over the samples, epilogue: see the file comment).
 */
export function memoryKernel(m: Uint8Array, iterations: number, t: number, samples: number): void {
  const sampleBytes = Math.floor(m.length / samples);
  let iter = 0;
  let start = (t * iterations + iter) % samples;
  let count = Math.min(samples, start + iterations) - start;
  if (count > 0) {
    copyHalf(m, start * sampleBytes, count * sampleBytes);
    iter += count;
  }
  for (; iter + samples <= iterations; iter += samples) {
    start = (t * iterations + iter) % samples;
    copyHalf(m, start * sampleBytes, samples * sampleBytes);
  }
  start = (t * iterations + iter) % samples;
  count = iterations - iter;
  if (count > 0) copyHalf(m, start * sampleBytes, count * sampleBytes);
}

/** Task Bench's compute_bound (portable version): the product of the 64 updated values. */
function computeBound(iterations: number): number {
  const a = scratch;
  a.fill(1.2345);
  for (let it = 0; it < iterations; it++) for (let i = 0; i < 64; i++) a[i] = a[i]! * a[i]! + a[i]!;
  let dot = 1;
  for (let i = 0; i < 64; i++) dot *= a[i]!;
  return dot;
}

/**
 * One Task Bench task (see the file comment); args = [kernel, iterations, t, x, scratch bytes,
 * samples]. Throws when an input is not from timestep t - 1.
 */
export function taskbenchTask(data: readonly ArrayLike<number>[], args: Float64Array): void {
  const kernel = args[0]!;
  const iterations = args[1]!;
  const t = args[2]!;
  const x = args[3]!;
  for (let i = 1; i < data.length; i++) {
    const input = data[i]!;
    if (input[0] !== t - 1)
      throw new Error(
        `Task Bench task (${t}, ${x}): input ${i} holds timestep ${input[0]}, expected ${t - 1}`,
      );
  }
  let result = 0;
  if (kernel === TASKBENCH_KERNEL_CODES.busy_wait) result = busyWait(iterations);
  else if (
    kernel === TASKBENCH_KERNEL_CODES.compute_bound ||
    kernel === TASKBENCH_KERNEL_CODES.load_imbalance
  )
    result = computeBound(iterations);
  else if (kernel === TASKBENCH_KERNEL_CODES.memory_bound) memoryBound(iterations, t, args[4]!, args[5]!);
  const out = data[0] as Float64Array;
  out[0] = t;
  out[1] = x;
  if (out.length > 2) out[2] = result;
}
