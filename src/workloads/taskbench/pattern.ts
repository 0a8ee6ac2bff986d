/**
 * Task Bench's dependence patterns (Slaughter et al., SC20; the rules of its `core/core.cc`):
 * a task graph of `steps` timesteps of up to `width` points, where point x of timestep t
 * reads the outputs of a set of points of timestep t-1 that the pattern gives. Every rule
 * below is Task Bench's: the width and offset of each timestep (dom's diagonal band, tree's
 * doubling), the dependence set of each timestep (fft's butterflies, spread's and
 * random_nearest's period), and the dependencies of a point in that set, as intervals
 * intersected with the previous timestep's points. random_nearest draws its connections with
 * SipHash-2-4 as Task Bench does, so the graphs are identical. test/taskbench.test.ts compares
 * them with Task Bench's own output (scripts/taskbench-deps.sh). Cost: O(radix) per point,
 * O(width) for all_to_all.
 */
import { LocusError } from '../../core/types.ts';
import { siphash24 } from './siphash.ts';

/** Task Bench's dependence patterns (its `-type`). */
export const TASKBENCH_PATTERNS = [
  'trivial',
  'no_comm',
  'stencil_1d',
  'stencil_1d_periodic',
  'dom',
  'tree',
  'fft',
  'all_to_all',
  'nearest',
  'spread',
  'random_nearest',
] as const;

/** One of TASKBENCH_PATTERNS. */
export type TaskBenchPattern = (typeof TASKBENCH_PATTERNS)[number];

/** The shape of a Task Bench graph (its command-line parameters). */
export interface TaskBenchShape {
  pattern: TaskBenchPattern;
  /** Timesteps (`-steps`). */
  steps: number;
  /** Points per timestep at most (`-width`). */
  width: number;
  /** Dependencies per point of nearest, spread and random_nearest (`-radix`, default 3). */
  radix: number;
  /** Dependence sets of spread and random_nearest (`-period`, default 3; 0 for the others). */
  period: number;
  /** Fraction of random_nearest's candidate dependencies kept (`-fraction`, default 0.25). */
  fraction: number;
  /** Index of the graph among several (`-and`; 0 for the first), part of random_nearest's hash. */
  graphIndex: number;
}

/** Whether the pattern takes a period (spread, random_nearest). */
export function needsPeriod(p: TaskBenchPattern): boolean {
  return p === 'spread' || p === 'random_nearest';
}

/** Checks a shape as Task Bench does; throws a one-line LocusError naming the parameter. */
export function checkShape(s: TaskBenchShape): void {
  if (needsPeriod(s.pattern) && s.period <= 0)
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `pattern ${s.pattern} needs a period of at least 1 (got ${s.period})`,
    );
  if (!needsPeriod(s.pattern) && s.period !== 0)
    throw new LocusError('LOCUS_OPTION_CONFLICT', `pattern ${s.pattern} takes no period (got ${s.period})`);
  const spread = Math.ceil(s.width / s.radix);
  if (s.pattern === 'spread' && s.period > spread)
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `pattern spread needs a period of at most ceil(width / radix) = ${spread} (got ${s.period})`,
    );
}

/** First point of timestep t. */
export function offsetAt(s: TaskBenchShape, t: number): number {
  if (t < 0) return 0;
  return s.pattern === 'dom' ? Math.max(0, t + s.width - s.steps) : 0;
}

/** Points of timestep t. */
export function widthAt(s: TaskBenchShape, t: number): number {
  if (t < 0) return 0;
  if (s.pattern === 'dom') return Math.min(s.width, t + 1, s.steps - t);
  if (s.pattern === 'tree') return Math.min(s.width, 2 ** Math.min(t, 62));
  return s.width;
}

/** Dependence sets of the pattern. */
export function maxDependenceSets(s: TaskBenchShape): number {
  if (s.pattern === 'fft') return Math.ceil(Math.log2(s.width));
  return needsPeriod(s.pattern) ? s.period : 1;
}

/** Dependence set of timestep t. */
export function dependenceSetAt(s: TaskBenchShape, t: number): number {
  const n = maxDependenceSets(s);
  if (s.pattern === 'fft') return (t + n - 1) % n;
  return needsPeriod(s.pattern) ? t % n : 0;
}

const KEY = Uint8Array.from({ length: 16 }, (_, i) => (i < 15 ? i + 1 : 0));

/** Task Bench's random_uniform over int64 values: SipHash-2-4 of their bytes / 2^64. */
export function uniform(values: readonly number[]): number {
  const bytes = new Uint8Array(8 * values.length);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) view.setBigInt64(8 * i, BigInt(values[i]!), true);
  return Number(siphash24(bytes, KEY)) * 2 ** -64;
}

/** The dependencies of `point` in dependence set `dset`, as inclusive intervals (Task Bench's). */
export function dependencyIntervals(s: TaskBenchShape, dset: number, point: number): [number, number][] {
  const w = s.width;
  const r = s.radix;
  switch (s.pattern) {
    case 'trivial':
      return [];
    case 'no_comm':
      return [[point, point]];
    case 'stencil_1d':
      return [[Math.max(0, point - 1), Math.min(point + 1, w - 1)]];
    case 'stencil_1d_periodic': {
      const out: [number, number][] = [[Math.max(0, point - 1), Math.min(point + 1, w - 1)]];
      if (point - 1 < 0) out.push([w - 1, w - 1]);
      if (point + 1 >= w) out.push([0, 0]);
      return out;
    }
    case 'dom':
      return [[Math.max(0, point - 1), point]];
    case 'tree': {
      const parent = Math.floor(point / 2);
      return [[parent, parent]];
    }
    case 'fft': {
      const out: [number, number][] = [];
      const d1 = point - 2 ** dset;
      const d2 = point + 2 ** dset;
      if (d1 >= 0) out.push([d1, d1]);
      out.push([point, point]);
      if (d2 < w) out.push([d2, d2]);
      return out;
    }
    case 'all_to_all':
      return [[0, w - 1]];
    case 'nearest':
      return r > 0
        ? [[Math.max(0, point - Math.floor(r / 2)), Math.min(point + Math.floor((r - 1) / 2), w - 1)]]
        : [];
    case 'spread': {
      const out: [number, number][] = [];
      for (let i = 0; i < r; i++) {
        const dep = (point + Math.floor((i * w) / r) + (i > 0 ? dset : 0)) % w;
        out.push([dep, dep]);
      }
      return out;
    }
    case 'random_nearest': {
      const out: [number, number][] = [];
      let runStart = -1;
      const last = Math.min(point + Math.floor((r - 1) / 2), w - 1);
      let i = Math.max(0, point - Math.floor(r / 2));
      for (; i <= last; i++) {
        const include = uniform([s.graphIndex, r, dset, i, point]) < s.fraction || (r > 0 && i === point);
        if (include) {
          if (runStart < 0) runStart = i;
        } else {
          if (runStart >= 0) out.push([runStart, i - 1]);
          runStart = -1;
        }
      }
      if (runStart >= 0) out.push([runStart, i - 1]);
      return out;
    }
  }
}

/** The points of timestep t-1 that point x of timestep t reads, ascending, each once. */
export function pointDependencies(s: TaskBenchShape, t: number, x: number): number[] {
  if (t === 0) return [];
  const lo = offsetAt(s, t - 1);
  const hi = lo + widthAt(s, t - 1);
  const seen = new Set<number>();
  for (const [a, b] of dependencyIntervals(s, dependenceSetAt(s, t), x))
    for (let y = Math.max(a, lo); y <= Math.min(b, hi - 1); y++) seen.add(y);
  return [...seen].sort((p, q) => p - q);
}
