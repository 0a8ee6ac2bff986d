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
 * memory_bound needs per-task scratch memory, which these tasks do not have: refused by the
 * workload for real runs.
 */

/** The kernel codes a task's args[0] carries. */
export const TASKBENCH_KERNEL_CODES = {
  empty: 0,
  busy_wait: 1,
  compute_bound: 2,
  load_imbalance: 3,
} as const;

/** Task Bench's busy_wait: the final accumulator. */
function busyWait(iterations: number): number {
  let acc = 113;
  for (let i = 0; i < iterations; i++) acc = (acc * 139) % 2147483647;
  return acc;
}

const scratch = new Float64Array(64);

/** Task Bench's compute_bound (portable version): the product of the 64 updated values. */
function computeBound(iterations: number): number {
  const a = scratch;
  a.fill(1.2345);
  for (let it = 0; it < iterations; it++) for (let i = 0; i < 64; i++) a[i] = a[i]! * a[i]! + a[i]!;
  let dot = 1;
  for (let i = 0; i < 64; i++) dot *= a[i]!;
  return dot;
}

/** One Task Bench task (see the file comment); throws when an input is not from timestep t - 1. */
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
  const out = data[0] as Float64Array;
  out[0] = t;
  out[1] = x;
  if (out.length > 2) out[2] = result;
}
