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
Object.assign(FIGURES, hfpFigures(FIGURES.fig2!.sweep, FIGURES.fig3!.sweep));

/** The comparisons that measure `hfp` (docs/policies/hfp.md, issue 16), one sweep each. */
function hfpFigures(fig2: FigureDef['sweep'], fig3: FigureDef['sweep']): Record<string, FigureDef> {
  const fit = (p: Platform): VLine[] => {
    const mem = cumulatedGpuMemory(p);
    return mem > 0 ? [{ workingSetBytes: mem, label: 'all data fit', color: GREEN }] : [];
  };
  const base = { reps: 1, seed: 1, platform: 'v100x2', gpus: 2, gpuMem: parseSize('500MiB') };
  const spread = ['eager', 'dmda', 'dmdar', 'darts', 'darts+luf', 'hfp'];
  // Random data of 960 x 960 single (3.52 MiB): 852 to 1705 of them are 3 to 6 times 2 x 500 MiB.
  const random = (degree: number): FigureDef => ({
    description: `hfp vs the others: 4000 random tasks of ${degree} inputs, data 3 to 6 times the GPUs' memory`,
    title: `Random tasks, ${degree} inputs each, on 2 V100 (500 MiB each)`,
    sweep: {
      ...base,
      workload: 'random',
      params: { tasks: 4000, degree },
      sizes: [852, 1136, 1420, 1705],
      policies: spread,
    },
    kernel: 'random',
    lines: fit,
  });
  return {
    'hfp-fig2': {
      description: "hfp vs seed 000's Fig. 2 policies at N = 50, 100, 150 (scheduling cost not charged)",
      title: 'Seed 000 Fig. 2 with hfp, 2-D matrix product on 2 V100 (500 MiB each)',
      sweep: {
        ...fig2,
        sizes: [50, 100, 150],
        policies: ['eager', 'dmdar', 'darts', 'darts+luf', 'hfp'],
        chargeScheduling: false,
      },
      kernel: 'gemm',
      lines: fit,
    },
    'hfp-fig3': {
      description: "hfp vs seed 000's Fig. 3 policies at N = 30, 40 (scheduling cost not charged)",
      title: 'Seed 000 Fig. 3 with hfp, Cholesky on 2 V100 (2000 MiB each)',
      sweep: {
        ...fig3,
        sizes: [30, 40],
        policies: ['eager', 'dmda', 'dmdar', 'dmdas', 'darts', 'darts+luf', 'hfp'],
        chargeScheduling: false,
      },
      kernel: 'gemm',
      lines: fit,
    },
    'hfp-random4': random(4),
    'hfp-random5': random(5),
    'hfp-random6': random(6),
    'hfp-gemm': {
      description: "hfp vs the others: tiled 3-D GEMM, N = 17, 20, 24 (3 to 6 times the GPUs' memory)",
      title: 'Tiled 3-D GEMM on 2 V100 (500 MiB each)',
      sweep: {
        ...base,
        workload: 'gemm',
        params: { tileSize: 960, precision: 'single' },
        sizes: [17, 20, 24],
        policies: spread,
      },
      kernel: 'gemm',
      lines: fit,
    },
    'hfp-shared': {
      description:
        'hfp vs the others: 4000 random tasks of 2 inputs plus one datum all share, on 4 V100 (500 MiB each)',
      title: 'Random tasks sharing one datum, on 4 V100 (500 MiB each)',
      sweep: {
        ...base,
        gpus: 4,
        workload: 'random',
        params: { tasks: 4000, degree: 2, shared: 1 },
        sizes: [200, 400, 800, 1500],
        policies: spread,
      },
      kernel: 'random',
      lines: fit,
    },
  };
}

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
