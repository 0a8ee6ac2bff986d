/**
 * Random independent tasks sharing random data: the bipartite task/data model of seed 000
 * section 2 without the structure of a matrix product. Each task reads `degree` distinct
 * data drawn uniformly among `data` and writes its own scratch output (discarded), so there
 * are no dependencies. With `shared` = s > 0, every task also reads the same s data (a datum
 * shared by all tasks, issue 16). `tiles` stands for `data` when `data` is not given (so that
 * a sweep over sizes varies the data). Deterministic for a given seed (pure-rand's
 * xoroshiro128+, the seed hashed by mixSeed as the run's generator does).
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { mixSeed } from '../core/rng.ts';
import { AccessMode, LocusError } from '../core/types.ts';
import { CPU_GPU, elementBytes, elementType, intParam, MAX_TILE_SIZE, precisionParam } from './common.ts';
import { defineWorkload } from './define.ts';
import type { SubmitAccess, Submitter } from './submitter.ts';
import type { Workload, WorkloadInstance, WorkloadParams } from './types.ts';

/** Defaults: 1000 tasks, 100 data of 960 x 960 single precision (3.52 MiB), 2 inputs a task, seed 1. */
export const RANDOM_DEFAULTS = {
  tasks: 1000,
  data: 100,
  degree: 2,
  shared: 0,
  tileSize: 960,
  seed: 1,
  precision: 'single',
} as const;

/** The random tasks' codelet. */
const RANDOM = { name: 'random', kinds: CPU_GPU };

/** A validated random instance. */
export interface RandomInstance extends WorkloadInstance {
  tasks: number;
  data: number;
  degree: number;
  shared: number;
  tileSize: number;
  seed: number;
  precision: 'single' | 'double';
}

function instance(params: WorkloadParams): RandomInstance {
  const tasks = intParam('tasks', params.tasks, RANDOM_DEFAULTS.tasks, 1, 10_000_000);
  const data = intParam('data', params.data ?? params.tiles, RANDOM_DEFAULTS.data, 1, 10_000_000);
  const degree = intParam('degree', params.degree, RANDOM_DEFAULTS.degree, 1, 1000);
  const shared = intParam('shared', params.shared, RANDOM_DEFAULTS.shared, 0, 1000);
  const ts = intParam('tileSize', params.tileSize, RANDOM_DEFAULTS.tileSize, 1, MAX_TILE_SIZE);
  const seed = intParam('seed', params.seed, RANDOM_DEFAULTS.seed, 0, 0x7fffffff);
  const precision = precisionParam(params.precision);
  if (degree > data) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `degree must be at most data (got ${degree} inputs per task for ${data} data)`,
      { params: ['degree', 'data'] },
    );
  }
  return {
    tasks,
    data,
    degree,
    shared,
    tileSize: ts,
    seed,
    precision,
    description: `${tasks} tasks x ${degree} of ${data} data${shared > 0 ? ` + ${shared} shared by all` : ''} of ${ts}x${ts}, ${precision}, seed ${seed}`,
    dataBytes: (data + shared + tasks) * ts * ts * elementBytes(precision),
    params: {
      tiles: data,
      tileSize: ts,
      precision,
      tasks,
      data,
      degree,
      ...(shared > 0 ? { shared } : {}),
      seed,
    },
  };
}

/** Submits the random bipartite workload. */
function submit(s: Submitter, r: RandomInstance): void {
  const { tasks, data, degree, shared, tileSize: ts, precision } = r;
  const cl = s.codelet(RANDOM);
  const type = elementType(precision);
  const length = ts * ts;
  const handle = new Int32Array(data);
  for (let d = 0; d < data; d++) handle[d] = s.data({ name: `D[${d}]`, type, length });
  const common = Array.from({ length: shared }, (_, i) => s.data({ name: `S[${i}]`, type, length }));

  const rng = xoroshiro128plus(mixSeed(r.seed));
  // A permutation of the data, partially reshuffled for each task: its first `degree`
  // entries after a partial Fisher-Yates pass are a uniform sample without replacement.
  const perm = new Int32Array(data);
  for (let d = 0; d < data; d++) perm[d] = d;
  const picked = new Int32Array(degree);
  const flops = 2 * ts * ts * ts;
  const accesses: SubmitAccess[] = [];
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
    for (const h of common) accesses.push([h, AccessMode.R]);
    for (let k = 0; k < degree; k++) accesses.push([handle[picked[k]!]!, AccessMode.R]);
    const out = s.data({ name: `out[${t}]`, type, length, discard: true });
    accesses.push([out, AccessMode.W]);
    s.submit(cl, accesses, { flops, name: `RANDOM(${t})` });
  }
}

/** The random bipartite generator (seed 000's problem model). */
export const randomGenerator = defineWorkload({
  name: 'random',
  description:
    "random independent tasks each reading `degree` of `data` shared data (seed 000's bipartite model)",
  instance,
  submit,
});

/** Builds the random bipartite workload. */
export function random(params: WorkloadParams = {}): Workload {
  return randomGenerator.generate(params);
}
