/**
 * Random independent tasks sharing random data: the bipartite task/data model of seed 000
 * section 2 without the structure of a matrix product. Each task reads `degree` distinct
 * data drawn uniformly among `data` and writes its own scratch output (discarded), so there
 * are no dependencies. Deterministic for a given seed (pure-rand's xoroshiro128+).
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { TaskGraph } from '../core/graph.ts';
import { AccessMode, LocusError } from '../core/types.ts';
import {
  CPU_GPU,
  checkHostMemory,
  elementBytes,
  finishWorkload,
  intParam,
  MAX_TILE_SIZE,
  precisionParam,
} from './common.ts';
import type { Workload, WorkloadGenerator, WorkloadParams } from './types.ts';

/** Defaults: 1000 tasks, 100 data of 960 x 960 single precision (3.52 MiB), 2 inputs a task, seed 1. */
export const RANDOM_DEFAULTS = {
  tasks: 1000,
  data: 100,
  degree: 2,
  tileSize: 960,
  seed: 1,
  precision: 'single',
} as const;

/** Builds the random bipartite workload. */
export function random(params: WorkloadParams = {}): Workload {
  const tasks = intParam('--tasks', params.tasks, RANDOM_DEFAULTS.tasks, 1, 10_000_000);
  const data = intParam('--data', params.data, RANDOM_DEFAULTS.data, 1, 10_000_000);
  const degree = intParam('--degree', params.degree, RANDOM_DEFAULTS.degree, 1, 1000);
  const ts = intParam('--tile-size', params.tileSize, RANDOM_DEFAULTS.tileSize, 1, MAX_TILE_SIZE);
  const seed = intParam('--seed', params.seed, RANDOM_DEFAULTS.seed, 0, 0x7fffffff);
  const precision = precisionParam(params.precision);
  if (degree > data) {
    throw new LocusError(`--degree must be at most --data (got ${degree} inputs per task for ${data} data)`);
  }
  const bytes = ts * ts * elementBytes(precision);
  checkHostMemory(params, (data + tasks) * bytes);

  const graph = new TaskGraph();
  const cl = graph.addCodelet({ name: 'random', kinds: CPU_GPU });
  const handle = new Int32Array(data);
  for (let d = 0; d < data; d++) handle[d] = graph.addHandle(bytes, { name: `D[${d}]` });

  const rng = xoroshiro128plus(seed);
  // A permutation of the data, partially reshuffled for each task: its first `degree`
  // entries after a partial Fisher-Yates pass are a uniform sample without replacement.
  const perm = new Int32Array(data);
  for (let d = 0; d < data; d++) perm[d] = d;
  const picked = new Int32Array(degree);
  const flops = 2 * ts * ts * ts;
  const accesses: [number, AccessMode][] = [];
  for (let t = 0; t < tasks; t++) {
    for (let k = 0; k < degree; k++) {
      const j = uniformInt(rng, k, data - 1);
      const v = perm[j]!;
      perm[j] = perm[k]!;
      perm[k] = v;
      picked[k] = v;
    }
    picked.sort();
    accesses.length = 0;
    for (let k = 0; k < degree; k++) accesses.push([handle[picked[k]!]!, AccessMode.R]);
    const out = graph.addHandle(bytes, { name: `out[${t}]`, discard: true });
    accesses.push([out, AccessMode.W]);
    graph.submit(cl, accesses, { flops, name: `RANDOM(${t})` });
  }
  return finishWorkload(
    'random',
    graph,
    `${tasks} tasks x ${degree} of ${data} data of ${ts}x${ts}, ${precision}, seed ${seed}`,
    { tiles: data, tileSize: ts, precision, tasks, data, degree, seed },
  );
}

/** The random bipartite generator (seed 000's problem model). */
export const randomGenerator: WorkloadGenerator = {
  name: 'random',
  description:
    "random independent tasks each reading `degree` of `data` shared data (seed 000's bipartite model)",
  generate: random,
};
