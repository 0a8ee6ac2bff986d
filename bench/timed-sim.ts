/**
 * One simulation timed in CPU seconds (process.cpuUsage), for the benchmarks that run one per
 * process (bench/scale.ts, bench/vs-tree.ts): the workload generated, the v100x2 preset, the
 * policy spec parsed. The modules come from the caller, so a benchmark can time another tree's
 * build (its dist/) as well as this tree's sources.
 */

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What a timed simulation needs from a tree (this one's sources, or a built tree's dist). */
export interface SimModules {
  simulate: (o: Record<string, unknown>) => {
    report: { tasks: number; evictions: number; makespanS: number };
  };
  resolvePlatform: (name: string, o: Record<string, unknown>) => unknown;
  generateWorkload: (name: string, params: Record<string, number>) => { graph: unknown };
  parsePolicySpec: (spec: string) => { scheduler: string; eviction?: string };
}

/** This tree's modules, or those of the built tree at `tree` (its dist/). */
export async function simModules(tree?: string): Promise<SimModules> {
  const at = (src: string, dist: string) =>
    tree === undefined ? `../src/${src}` : pathToFileURL(resolve(tree, 'dist', dist)).href;
  const [{ simulate }, { resolvePlatform }, { generateWorkload }, { parsePolicySpec }] = await Promise.all([
    import(at('sim/simulate.ts', 'sim/simulate.js')),
    import(at('platform/presets.ts', 'platform/presets.js')),
    import(at('workloads/index.ts', 'workloads/index.js')),
    import(at('report/policy-spec.ts', 'report/policy-spec.js')),
  ]);
  return { simulate, resolvePlatform, generateWorkload, parsePolicySpec } as SimModules;
}

/**
 * Simulates `workload` with `params` on v100x2 (GPU memories of `gpuMem` bytes when given)
 * under policy `sched`; returns the report and the CPU seconds simulate() took (generation
 * excluded).
 */
export function timedSimulation(
  m: SimModules,
  workload: string,
  params: Record<string, number>,
  sched: string,
  gpuMem?: number,
): { report: ReturnType<SimModules['simulate']>['report']; cpu: number } {
  const policy = m.parsePolicySpec(sched);
  const wl = m.generateWorkload(workload, params);
  const platform = m.resolvePlatform('v100x2', gpuMem === undefined ? {} : { gpuMem });
  const c0 = process.cpuUsage();
  const { report } = m.simulate({
    graph: wl.graph,
    platform,
    scheduler: policy.scheduler,
    eviction: policy.eviction,
  });
  const c = process.cpuUsage(c0);
  return { report, cpu: (c.user + c.system) / 1e6 };
}
