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
 * Default share of a worker's peak flop rate each benchmark codelet reaches (work units per
 * second = peak x share). The kernels are memory-bound stencils, sparse products and sorts
 * (a few percent of peak on GPUs, more on CPUs whose caches hold the halos) and a
 * compute-bound pair loop; assumed figures of the right order, overridable per codelet in a
 * platform file.
 */
export const DEFAULT_CODELET_EFFICIENCY: Readonly<Record<string, { gpu: number; cpu: number }>> = {
  'jacobi-stencil': { gpu: 0.02, cpu: 0.1 },
  'jacobi-copy': { gpu: 0.01, cpu: 0.05 },
  'fdtd-ey': { gpu: 0.02, cpu: 0.1 },
  'fdtd-ex': { gpu: 0.02, cpu: 0.1 },
  'fdtd-hz': { gpu: 0.03, cpu: 0.1 },
  spmv: { gpu: 0.01, cpu: 0.04 },
  'nbody-bin': { gpu: 0.01, cpu: 0.05 },
  'nbody-sort': { gpu: 0.005, cpu: 0.05 },
  'nbody-force': { gpu: 0.3, cpu: 0.3 },
  'nbody-move': { gpu: 0.02, cpu: 0.1 },
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
