/**
 * The devices a kernel sequence is split over, taken from a platform: every GPU worker is a
 * device, and the CPU workers together are one more device (seed 003's 16-core Xeon is one
 * OpenCL device), placed last. A device's rate for a kernel is its codelet rate from the
 * platform file (`codelets` of its workers, docs/platform-format.md), summed over the CPU
 * workers, or else the worker's peak rate times a default efficiency for the benchmarks'
 * codelets (below), so every benchmark runs on any preset.
 */
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';

/** One device of a split. */
export interface PartitionDevice {
  /** Name ("gpu0", "cpu"). */
  readonly name: string;
  /** The worker its sub-kernels run on in simulation (the first CPU worker for the CPU device). */
  readonly worker: number;
  /** Its memory node. */
  readonly node: number;
  /** All workers it stands for (several CPU cores for the CPU device). */
  readonly workers: readonly number[];
}

/**
 * Default share of a worker's peak flop rate each benchmark codelet reaches, as work items per
 * second (items = peak x share; an item is what the codelet's `work()` counts, as listed in
 * SBAC18_KERNELS: a grid point, a non-zero, a particle, a particle pair...). The kernels are
 * memory-bound stencils, sparse products and sorts (a few percent of peak on GPUs, more on CPUs
 * whose caches hold the halos) and a compute-bound pair loop; assumed figures of the right order
 * (flops per item times the share of peak the kernel reaches), overridable per codelet in a
 * platform file.
 */
export const DEFAULT_CODELET_EFFICIENCY: Readonly<Record<string, { gpu: number; cpu: number }>> = {
  'jacobi-stencil': { gpu: 0.005, cpu: 0.025 },
  'jacobi-copy': { gpu: 0.01, cpu: 0.05 },
  'fdtd-ey': { gpu: 0.02 / 3, cpu: 0.1 / 3 },
  'fdtd-ex': { gpu: 0.02 / 3, cpu: 0.1 / 3 },
  'fdtd-hz': { gpu: 0.03 / 5, cpu: 0.1 / 5 },
  spmv: { gpu: 0.005, cpu: 0.02 },
  'nbody-bin': { gpu: 0.0025, cpu: 0.0125 },
  'nbody-count': { gpu: 0.005, cpu: 0.05 },
  'nbody-scan': { gpu: 0.005, cpu: 0.05 },
  'nbody-scatter': { gpu: 0.005, cpu: 0.05 },
  'nbody-force': { gpu: 0.015, cpu: 0.015 },
  'nbody-move': { gpu: 0.02 / 12, cpu: 0.1 / 12 },
  'nbody-restart': { gpu: 0.01, cpu: 0.05 },
};

/** The devices of `platform`: GPU workers in order, then the CPU workers as one device. */
export function partitionDevices(platform: Platform): PartitionDevice[] {
  const out: PartitionDevice[] = [];
  const cpus: number[] = [];
  platform.workers.forEach((w, i) => {
    if (w.kind === 'gpu') out.push({ name: w.name, worker: i, node: w.node, workers: [i] });
    else cpus.push(i);
  });
  if (cpus.length > 0) {
    const first = cpus[0]!;
    out.push({ name: 'cpu', worker: first, node: platform.workers[first]!.node, workers: cpus });
  }
  if (out.length === 0)
    throw new LocusError('LOCUS_WORKER_MISSING', `platform ${platform.name} has no worker`);
  return out;
}

/** Work units per second of `device` for `codelet`. */
export function deviceRate(platform: Platform, device: PartitionDevice, codelet: string): number {
  let rate = 0;
  for (const w of device.workers) {
    const worker = platform.workers[w]!;
    const given = worker.codeletFlops[codelet];
    const share = DEFAULT_CODELET_EFFICIENCY[codelet]?.[worker.kind === 'gpu' ? 'gpu' : 'cpu'] ?? 0.05;
    rate += given ?? worker.flops * share;
  }
  return rate;
}

/**
 * The fixed part of a sub-kernel's time on a device, per launch (seed 003's f_d^k is "the mean
 * time to execute one work-group on device d at iteration t, which depends on x": with a fixed
 * cost per launch, the time per work-group falls as the sub-range grows). Sources:
 * - GPU, 3 us: M. Boyer, "CUDA Kernel Overhead" (U. Virginia,
 *   http://www.cs.virginia.edu/~mwb7w/cuda_support/kernel_overhead.html): empty kernels launched
 *   back to back reach about 334,000 calls per second, 3 us per asynchronous launch, which is
 *   how libsplit enqueues a device's sub-kernels (one in-order queue per device);
 * - CPU device, 20 us: assumed. Intel's CPU OpenCL runtime hands an NDRange to its worker
 *   threads on every core of both sockets; its guide asks for at least 100,000 clocks (50 us at
 *   2.0 GHz) per work-group so that this "switching overhead" stays small (Intel, OpenCL
 *   Developer Guide for Core and Xeon processors, "Work-Group Level Parallelism"), no figure of
 *   the launch itself is published; 20 us is of that order and is stated as an assumption.
 */
export const LAUNCH_SECONDS: Readonly<{ gpu: number; cpu: number }> = { gpu: 3e-6, cpu: 20e-6 };

/** Fixed seconds per sub-kernel launch on `device` (LAUNCH_SECONDS by the kind of its worker). */
export function launchSeconds(platform: Platform, device: PartitionDevice): number {
  return platform.workers[device.worker]!.kind === 'gpu' ? LAUNCH_SECONDS.gpu : LAUNCH_SECONDS.cpu;
}
