/**
 * Parameter sweeps: one workload at several sizes (values of `--tiles`), under several policy
 * specs, repeated with seeds seed, seed+1, ..., on one platform; one row per simulated run and
 * an aggregate (mean, min, max over the repetitions) per size and policy.
 *
 * Each workload instance is built once per size and reused by every policy and repetition:
 * the engine only reads the graph (it copies what it mutates: predecessor counts, task
 * states, replica tables; see Engine.allocateTables), so runs cannot see each other.
 */
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { resolvePlatform } from '../platform/presets.ts';
import type { SchedulerOptions } from '../sched/index.ts';
import { simulate } from '../sim/simulate.ts';
import { generateWorkload, WORKLOADS, type WorkloadParams } from '../workloads/index.ts';
import { type PolicySpec, parsePolicySpecs } from './policy-spec.ts';

/** What a sweep runs. */
export interface SweepSpec {
  /** Workload generator name (see WORKLOADS). */
  workload: string;
  /** Workload parameters other than the size (tileSize, inner, precision, keepOutputs, ...). */
  params?: Omit<WorkloadParams, 'tiles' | 'seed'>;
  /** The sizes: values of the workload's `tiles` parameter. */
  sizes: readonly number[];
  /** Policy specs: `scheduler` or `scheduler+eviction` (see parsePolicySpec). */
  policies: readonly string[];
  /** Repetitions per size and policy, with seeds seed, seed+1, ... (default 1). */
  reps?: number;
  /** First seed (default 1); also the seed of randomly generated workloads. */
  seed?: number;
  /** Preset name or platform file (default 'v100x2'). */
  platform?: string;
  /** GPUs of the preset. */
  gpus?: number;
  /** CPU workers of the preset. */
  cpus?: number;
  /** Capacity of every GPU memory, bytes. */
  gpuMem?: number;
  /** Relative spread of task durations (see simulate()). */
  noise?: number;
  /** Charge the schedulers' wall-clock decision cost to the workers (see simulate()). */
  chargeScheduling?: boolean;
  /** Options of the schedulers. */
  schedulerOptions?: SchedulerOptions;
  /** Task priorities: none (default) or bottom-level (set once per size, before every run). */
  priorities?: 'none' | 'bottom-level';
  /** Tasks a GPU worker holds at once (default: simulate()'s). */
  gpuPipeline?: number;
  /** Tasks a GPU worker pops ahead of its pipeline (default: simulate()'s). */
  gpuLookahead?: number;
  /** Copies in flight at once per pair of nodes (default: simulate()'s). */
  streams?: number;
}

/** One simulated run. */
export interface SweepRow {
  workload: string;
  tiles: number;
  workingSetBytes: number;
  /** The policy spec's label ("darts+luf"). */
  policy: string;
  scheduler: string;
  /** The eviction policy in effect (a scheduler may bring its own). */
  eviction: string;
  seed: number;
  tasks: number;
  makespanS: number;
  gflops: number;
  bytesToDevices: number;
  bytesFromDevices: number;
  bytesDeviceToDevice: number;
  loads: number;
  evictions: number;
  totalFlops: number;
  /** Wall-clock seconds the simulation took. */
  wallS: number;
}

/** The columns of runs.csv, in order. */
export const RUN_COLUMNS: readonly (keyof SweepRow)[] = [
  'workload',
  'tiles',
  'workingSetBytes',
  'policy',
  'scheduler',
  'eviction',
  'seed',
  'tasks',
  'makespanS',
  'gflops',
  'bytesToDevices',
  'bytesFromDevices',
  'bytesDeviceToDevice',
  'loads',
  'evictions',
  'totalFlops',
  'wallS',
];

/** The per-run figures the summary aggregates. */
export const METRICS = [
  'gflops',
  'makespanS',
  'bytesToDevices',
  'bytesFromDevices',
  'bytesDeviceToDevice',
  'loads',
  'evictions',
  'wallS',
] as const;

/** One aggregated metric name. */
export type Metric = (typeof METRICS)[number];

/** Mean, min and max of every metric over the repetitions of one size and policy. */
export type SweepSummaryRow = {
  workload: string;
  tiles: number;
  workingSetBytes: number;
  policy: string;
  scheduler: string;
  eviction: string;
  /** Runs aggregated. */
  reps: number;
  tasks: number;
  totalFlops: number;
} & Record<`${Metric}${'Mean' | 'Min' | 'Max'}`, number>;

/** The columns of summary.csv, in order. */
export const SUMMARY_COLUMNS: readonly (keyof SweepSummaryRow)[] = [
  'workload',
  'tiles',
  'workingSetBytes',
  'policy',
  'scheduler',
  'eviction',
  'reps',
  'tasks',
  'totalFlops',
  ...METRICS.flatMap((m) => [`${m}Mean`, `${m}Min`, `${m}Max`] as const),
];

/** What a sweep knows about each workload instance. */
export interface SizeInfo {
  tiles: number;
  tasks: number;
  workingSetBytes: number;
  totalFlops: number;
  /** The generator's one-line summary. */
  summary: string;
  /** Flops per codelet name (to find the dominant kernel). */
  codeletFlops: Record<string, number>;
}

/** A checked SweepSpec with its defaults filled in. */
export interface ResolvedSweep {
  workload: string;
  params: Omit<WorkloadParams, 'tiles' | 'seed'>;
  /** Sizes, ascending, without duplicates. */
  sizes: number[];
  policies: PolicySpec[];
  reps: number;
  seed: number;
  platform: string;
  gpus?: number;
  cpus?: number;
  gpuMem?: number;
  noise: number;
  chargeScheduling: boolean;
  schedulerOptions: SchedulerOptions;
  priorities: 'none' | 'bottom-level';
  gpuPipeline?: number;
  gpuLookahead?: number;
  streams?: number;
}

/** A finished sweep. */
export interface SweepResult {
  spec: ResolvedSweep;
  platform: Platform;
  /** One entry per size, in sweep order. */
  sizes: SizeInfo[];
  /** One row per run: sizes x policies x repetitions, in that nesting order. */
  rows: SweepRow[];
  /** One row per size and policy. */
  summary: SweepSummaryRow[];
}

/** Progress of a sweep: called before each run (with `next`) and once at the end. */
export interface SweepProgress {
  /** Runs finished. */
  done: number;
  /** Runs in the sweep. */
  total: number;
  /** The run about to start; absent on the final call. */
  next?: { tiles: number; policy: string; seed: number };
}

function checkInt(what: string, v: number, min: number): number {
  if (!Number.isSafeInteger(v) || v < min) {
    throw new LocusError(`${what} must be an integer >= ${min} (got ${v})`);
  }
  return v;
}

/**
 * Checks a spec up front (so that a sweep does not fail after an hour): the workload, every
 * size, every policy spec (all unknown names reported at once), the repetitions, the seed,
 * the noise, the priorities and the platform. Throws a one-line LocusError.
 */
export function resolveSweep(spec: SweepSpec): { spec: ResolvedSweep; platform: Platform } {
  if (!Object.hasOwn(WORKLOADS, spec.workload)) {
    throw new LocusError(
      `unknown workload '${spec.workload}': use one of ${Object.keys(WORKLOADS).join(', ')}`,
    );
  }
  if (spec.sizes.length === 0) throw new LocusError('no size given: name at least one value of --tiles');
  for (const s of spec.sizes) checkInt('every size', s, 1);
  const sizes = [...new Set(spec.sizes)].sort((a, b) => a - b);
  const policies = parsePolicySpecs(spec.policies);
  const reps = checkInt('reps', spec.reps ?? 1, 1);
  const seed = checkInt('seed', spec.seed ?? 1, 0);
  if (!Number.isSafeInteger(seed + reps)) throw new LocusError(`seed ${seed} + reps ${reps} is too large`);
  const noise = spec.noise ?? 0;
  if (!(noise >= 0 && noise < 1)) throw new LocusError(`noise must be in [0, 1) (got ${noise})`);
  const priorities = spec.priorities ?? 'none';
  if (priorities !== 'none' && priorities !== 'bottom-level') {
    throw new LocusError(`priorities must be none or bottom-level (got '${String(priorities)}')`);
  }
  const platformName = spec.platform ?? 'v100x2';
  const platform = resolvePlatform(platformName, { gpus: spec.gpus, cpus: spec.cpus, gpuMem: spec.gpuMem });
  return {
    spec: {
      workload: spec.workload,
      params: { ...spec.params },
      sizes,
      policies,
      reps,
      seed,
      platform: platformName,
      gpus: spec.gpus,
      cpus: spec.cpus,
      gpuMem: spec.gpuMem,
      noise,
      chargeScheduling: spec.chargeScheduling ?? false,
      schedulerOptions: { ...spec.schedulerOptions },
      priorities,
      gpuPipeline: spec.gpuPipeline,
      gpuLookahead: spec.gpuLookahead,
      streams: spec.streams,
    },
    platform,
  };
}

/**
 * With scheduling cost charged, runs every policy once on the smallest size first, unrecorded:
 * the first calls of a JavaScript function run before the JIT compiles it, many times slower,
 * and charging that to the first size would measure the JIT rather than the policy.
 */
function warmUp(s: ResolvedSweep, platform: Platform): void {
  const wl = generateWorkload(s.workload, { ...s.params, tiles: s.sizes[0]!, seed: s.seed });
  if (s.priorities === 'bottom-level') wl.graph.setBottomLevelPriorities();
  for (const policy of s.policies) {
    simulate({
      graph: wl.graph,
      platform,
      scheduler: policy.scheduler,
      schedulerOptions: s.schedulerOptions,
      eviction: policy.eviction,
      seed: s.seed,
      chargeScheduling: true,
      gpuPipeline: s.gpuPipeline,
      gpuLookahead: s.gpuLookahead,
      streams: s.streams,
    });
  }
}

/** Runs every size x policy x repetition of `spec` and aggregates. */
export function runSweep(spec: SweepSpec, onProgress?: (p: SweepProgress) => void): SweepResult {
  const { spec: s, platform } = resolveSweep(spec);
  const total = s.sizes.length * s.policies.length * s.reps;
  const rows: SweepRow[] = [];
  const sizes: SizeInfo[] = [];
  if (s.chargeScheduling) warmUp(s, platform);
  for (const tiles of s.sizes) {
    const wl = generateWorkload(s.workload, { ...s.params, tiles, seed: s.seed });
    const g = wl.graph;
    if (s.priorities === 'bottom-level') g.setBottomLevelPriorities();
    const codeletFlops: Record<string, number> = {};
    for (let t = 0; t < g.taskCount; t++) {
      const name = g.codelets[g.taskCodelet.data[t]!]!.name;
      codeletFlops[name] = (codeletFlops[name] ?? 0) + g.taskFlops.data[t]!;
    }
    sizes.push({
      tiles,
      tasks: g.taskCount,
      workingSetBytes: wl.workingSetBytes,
      totalFlops: wl.totalFlops,
      summary: wl.summary,
      codeletFlops,
    });
    for (const policy of s.policies) {
      for (let rep = 0; rep < s.reps; rep++) {
        const seed = s.seed + rep;
        onProgress?.({ done: rows.length, total, next: { tiles, policy: policy.label, seed } });
        const { report } = simulate({
          graph: g,
          platform,
          scheduler: policy.scheduler,
          schedulerOptions: s.schedulerOptions,
          eviction: policy.eviction,
          seed,
          noise: s.noise,
          chargeScheduling: s.chargeScheduling,
          gpuPipeline: s.gpuPipeline,
          gpuLookahead: s.gpuLookahead,
          streams: s.streams,
          workload: wl.summary,
        });
        rows.push({
          workload: s.workload,
          tiles,
          workingSetBytes: wl.workingSetBytes,
          policy: policy.label,
          scheduler: policy.scheduler,
          eviction: report.eviction,
          seed,
          tasks: report.tasks,
          makespanS: report.makespanS,
          gflops: report.gflops,
          bytesToDevices: report.bytesToDevices,
          bytesFromDevices: report.bytesFromDevices,
          bytesDeviceToDevice: report.bytesDeviceToDevice,
          loads: report.loads,
          evictions: report.evictions,
          totalFlops: report.totalFlops,
          wallS: report.wallS,
        });
      }
    }
  }
  onProgress?.({ done: rows.length, total });
  return { spec: s, platform, sizes, rows, summary: summarize(rows) };
}

/** Aggregates runs per (size, policy), in first-seen order: mean, min and max of each metric. */
export function summarize(rows: readonly SweepRow[]): SweepSummaryRow[] {
  const groups = new Map<string, SweepRow[]>();
  for (const r of rows) {
    const key = `${r.workload}\u0000${r.tiles}\u0000${r.policy}`;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()].map((runs) => {
    const first = runs[0]!;
    const out: Record<string, number | string> = {
      workload: first.workload,
      tiles: first.tiles,
      workingSetBytes: first.workingSetBytes,
      policy: first.policy,
      scheduler: first.scheduler,
      eviction: first.eviction,
      reps: runs.length,
      tasks: first.tasks,
      totalFlops: first.totalFlops,
    };
    for (const m of METRICS) {
      let sum = 0;
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (const r of runs) {
        const v = r[m];
        sum += v;
        if (v < min) min = v;
        if (v > max) max = v;
      }
      out[`${m}Mean`] = sum / runs.length;
      out[`${m}Min`] = min;
      out[`${m}Max`] = max;
    }
    return out as SweepSummaryRow;
  });
}
