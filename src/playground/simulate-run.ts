/**
 * One run of the playground, as `locus run` (simulated) makes it from the same inputs: the
 * platform (a preset with --gpus, --cpus, --gpu-mem, or a platform file's text), the
 * workload and its size options, the policy (SCHEDULER or SCHEDULER+EVICTION) and the seed,
 * with every other option at its default. It runs in the playground's web worker and in
 * Node alike (no Node module), and returns the run report (`locus run --json`) and the
 * report page's columns (traced in memory).
 */
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { type ExtractedRun, extractRun, type TraceJson } from '../html-report/extract.ts';
import { PRESETS } from '../platform/machines.ts';
import { parsePlatformFile } from '../platform/schema.ts';
import { parsePolicySpec } from '../report/policy-spec.ts';
import { simulateAsync } from '../sim/simulate.ts';
import type { RunReport } from '../trace/report.ts';
import { generateWorkload, type WorkloadParams } from '../workloads/index.ts';

/** The platform of a run: a preset and its options, or a platform file's text. */
export type PlatformChoice =
  | { preset: string; gpus?: number; cpus?: number; gpuMem?: number }
  | { file: string; gpuMem?: number };

/** The workload options a playground run may set (the seed is the run's, hints stay on). */
export type PlaygroundParams = Omit<WorkloadParams, 'seed' | 'host' | 'hints'>;

/** What a playground run is made of. */
export interface PlaygroundRun {
  platform: PlatformChoice;
  workload: string;
  /**
   * The workload's options (tiles, tileSize, precision, tasks, pattern, ...), as `locus run`
   * takes them (--tiles, --tile-size, ...).
   */
  params: PlaygroundParams;
  policy: string;
  seed: number;
}

/** A finished run. */
export interface PlaygroundResult {
  report: RunReport;
  page: ExtractedRun;
}

/** The platform a choice names; a LocusError for an unknown preset or a bad file. */
export function choosePlatform(c: PlatformChoice): Platform {
  if ('file' in c) {
    const p = parsePlatformFile(c.file, 'the pasted platform');
    if (c.gpuMem === undefined) return p;
    return { ...p, nodes: p.nodes.map((n) => (n.kind === 'gpu' ? { ...n, capacity: c.gpuMem! } : n)) };
  }
  const key = c.preset.toLowerCase();
  const preset = Object.hasOwn(PRESETS, key) ? PRESETS[key] : undefined;
  if (!preset) {
    throw new LocusError(
      'LOCUS_NAME_UNKNOWN',
      `unknown platform '${c.preset}': use one of ${Object.keys(PRESETS).join(', ')}`,
    );
  }
  return preset.build({ gpus: c.gpus, cpus: c.cpus, gpuMem: c.gpuMem });
}

/** Simulates `run` as `locus run` does; `onProgress` hears (finished, total) tasks. */
export async function simulateRun(
  run: PlaygroundRun,
  onProgress?: (finished: number, total: number) => void,
): Promise<PlaygroundResult> {
  const policy = parsePolicySpec(run.policy);
  const platform = choosePlatform(run.platform);
  if (platform.cluster !== undefined) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `platform ${platform.name} is a cluster: the playground simulates one machine`,
    );
  }
  const wl = generateWorkload(run.workload, {
    ...run.params,
    seed: run.seed,
    hints: true,
    host: platform.nodes[platform.homeNode]!,
  });
  const { report, trace } = await simulateAsync({
    graph: wl.graph,
    platform,
    scheduler: policy.scheduler,
    schedulerOptions: {},
    flushAtEnd: true,
    idle: { ea1: false, ea2: false },
    eviction: policy.eviction ?? 'lru',
    seed: run.seed,
    workload: wl.summary,
    trace: true,
    onProgress,
  });
  const page = extractRun(trace!.toJSON() as unknown as TraceJson, run.policy);
  return { report, page };
}
