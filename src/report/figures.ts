/**
 * Named experiments: the sweeps behind seed 000's Figures 2 and 3, with the lines their
 * plots carry. `locus sweep --figure NAME` runs one; its options override the definition.
 */
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { parseSize } from '../platform/units.ts';
import { cumulatedGpuMemory, type VLine } from './plots.ts';
import type { SweepSpec } from './sweep.ts';

/** A named experiment: a sweep and how to plot it. */
export interface FigureDef {
  /** One line for help texts. */
  description: string;
  /** Title of its plots. */
  title: string;
  /** The sweep (every field may be overridden from the command line). */
  sweep: SweepSpec & { reps: number; seed: number; platform: string };
  /** Codelet whose summed rate is the peak line. */
  kernel: string;
  /** The vertical lines for the platform the sweep runs on. */
  lines(platform: Platform): VLine[];
}

/** Seed 000's vertical-line colours. */
const RED = '#d62728';
const ORANGE = '#ff7f0e';
const GREEN = '#2ca02c';

/** N = from, from + step, ..., to. */
function range(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let n = from; n <= to; n += step) out.push(n);
  return out;
}

/** The experiments, by name. */
export const FIGURES: Record<string, FigureDef> = {
  fig2: {
    description:
      'seed 000 Fig. 2: 2-D matrix product (960x3840 single blocks, outputs discarded) on 2 V100 capped at 500 MiB, N = 10..150',
    title: 'Seed 000 Fig. 2, 2-D matrix product on 2 V100 (500 MiB each)',
    sweep: {
      workload: 'matmul2d',
      params: { tileSize: 960, inner: 3840, precision: 'single' },
      sizes: range(10, 150, 10),
      policies: ['eager', 'dmdar', 'darts', 'darts+luf'],
      reps: 1,
      seed: 1,
      platform: 'v100x2',
      gpus: 2,
      gpuMem: parseSize('500MiB'),
      chargeScheduling: true,
    },
    kernel: 'gemm',
    // Working set = A + B: both fit where it equals the GPUs' cumulated memory, one of the two
    // (half the working set) where it is twice that.
    lines: (p) => {
      const mem = cumulatedGpuMemory(p);
      return mem > 0
        ? [
            { workingSetBytes: mem, label: 'both matrices fit', color: ORANGE },
            { workingSetBytes: 2 * mem, label: 'one matrix fits', color: RED },
          ]
        : [];
    },
  },
  fig3: {
    description:
      'seed 000 Fig. 3: tiled Cholesky (1920 single tiles, bottom-level priorities) on 2 V100 capped at 2000 MiB, N = 5..40',
    title: 'Seed 000 Fig. 3, Cholesky on 2 V100 (2000 MiB each)',
    sweep: {
      workload: 'cholesky',
      params: { tileSize: 1920, precision: 'single' },
      sizes: range(5, 40, 5),
      policies: ['eager', 'dmda', 'dmdar', 'dmdas', 'darts', 'darts+luf'],
      reps: 1,
      seed: 1,
      platform: 'v100x2',
      gpus: 2,
      gpuMem: parseSize('2000MiB'),
      chargeScheduling: true,
      priorities: 'bottom-level',
    },
    kernel: 'gemm',
    lines: (p) => {
      const mem = cumulatedGpuMemory(p);
      return mem > 0 ? [{ workingSetBytes: mem, label: 'all data fit', color: GREEN }] : [];
    },
  },
};

/** The figure `name`; throws a one-line LocusError listing the known ones. */
export function getFigure(name: string): FigureDef {
  const f = Object.hasOwn(FIGURES, name) ? FIGURES[name] : undefined;
  if (!f)
    throw new LocusError(
      'LOCUS_NAME_UNKNOWN',
      `unknown figure '${name}': use one of ${Object.keys(FIGURES).join(', ')}`,
    );
  return f;
}
