/**
 * Seed 001's 3-D stencil (section V.B.1): a X x Y x Z grid (default 256 x 256 x 4096) split
 * into `tiles` blocks along z (default 64) and iterated. Blocks exchange only their boundary
 * planes, through small halo handles, so a block's data never has to follow its neighbours:
 *
 * - block[b]: the planes of block b (X * Y * depth_b elements), updated in place (RW);
 * - halo[b].top[p] / halo[b].bottom[p]: a copy of block b's highest / lowest plane (X * Y
 *   elements), read by block b+1 / b-1; double-buffered by iteration parity p as in StarPU's
 *   stencil example, so writing the halos of iteration t never waits for readers of t-1.
 *
 * Iteration t submits, for every block, STENCIL(b,t) (block[b] RW, halo[b-1].top[t%2] R,
 * halo[b+1].bottom[t%2] R), then, except after the last iteration, for every block
 * HALO(b,t) (block[b] R, halo[b].top[(t+1)%2] W, halo[b].bottom[(t+1)%2] W). So STENCIL(b,t+1)
 * depends on STENCIL(b,t) and HALO(b,t) through its own block, and on its neighbours only
 * through HALO(b-1,t) and HALO(b+1,t). The halos read at iteration 0 are registered data
 * holding the initial boundary planes.
 *
 * WorkloadParams has no grid dimensions, so the stencil reads tileSize as X = Y (the edge of
 * a square xy plane) and inner as Z (the number of planes).
 */
import { AccessMode, LocusError } from '../core/types.ts';
import { randomTile } from '../kernels/generate.ts';
import {
  CPU_GPU,
  dataSeedParam,
  elementBytes,
  elementType,
  intParam,
  MAX_TILE_SIZE,
  precisionParam,
} from './common.ts';
import { defineWorkload } from './define.ts';
import type { SubmitAccess, Submitter } from './submitter.ts';
import type { Workload, WorkloadInstance, WorkloadParams } from './types.ts';

/** Defaults of seed 001: a 256 x 256 x 4096 single-precision grid, 64 blocks along z, 10 iterations. */
export const STENCIL_DEFAULTS = {
  tiles: 64,
  tileSize: 256,
  inner: 4096,
  iterations: 10,
  precision: 'single',
} as const;

/**
 * Flops per grid point of one update: a 7-point stencil a*c + b*(sum of the 6 neighbours),
 * 6 additions and 2 multiplications.
 */
export const STENCIL_FLOPS_PER_POINT = 8;

/** Largest number of tasks the stencil generator builds (iterations x blocks x 2). */
const MAX_TASKS = 20_000_000;

/** The update of a block and the copy of its boundary planes into halos. */
const UPDATE = { name: 'stencil', kinds: CPU_GPU };
const COPY = { name: 'halo', kinds: CPU_GPU };

/** A validated stencil instance. */
export interface StencilInstance extends WorkloadInstance {
  blocks: number;
  xy: number;
  z: number;
  iterations: number;
  precision: 'single' | 'double';
  /** Seed of the grid's random initial values (runs that compute). */
  dataSeed: number;
}

function instance(params: WorkloadParams): StencilInstance {
  const blocks = intParam('tiles', params.tiles, STENCIL_DEFAULTS.tiles, 1, 1_000_000);
  const xy = intParam('tileSize', params.tileSize, STENCIL_DEFAULTS.tileSize, 1, MAX_TILE_SIZE);
  const z = intParam('inner', params.inner, STENCIL_DEFAULTS.inner, 1, 1 << 24);
  const iterations = intParam('iterations', params.iterations, STENCIL_DEFAULTS.iterations, 1, 1_000_000);
  const precision = precisionParam(params.precision);
  if (blocks > z) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `tiles must be at most the grid depth inner (got ${blocks} blocks for ${z} planes)`,
      { params: ['tiles', 'inner'] },
    );
  }
  if (2 * blocks * iterations > MAX_TASKS) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `tiles x iterations must be at most ${MAX_TASKS / 2} (got ${blocks} x ${iterations})`,
      { params: ['tiles', 'iterations'] },
    );
  }
  return {
    blocks,
    xy,
    z,
    iterations,
    precision,
    dataSeed: dataSeedParam(params.dataSeed),
    description: `${xy}x${xy}x${z} grid, ${blocks} blocks along z, ${iterations} iterations, ${precision}`,
    // The grid's z planes, and two buffers for each halo plane (a top and a bottom per inner boundary).
    dataBytes: (z + 4 * (blocks - 1)) * xy * xy * elementBytes(precision),
    params: { tiles: blocks, tileSize: xy, inner: z, iterations, precision },
  };
}

/** Submits the blocked, iterated 3-D stencil of seed 001. */
function submit(s: Submitter, st: StencilInstance): void {
  const { blocks, xy, z, iterations, precision } = st;
  const planePoints = xy * xy;
  const type = elementType(precision);
  const update = s.codelet(UPDATE, 'stencilTask');
  const copy = s.codelet(COPY, 'haloTask');

  // Blocks: depth z / blocks planes, the first z % blocks blocks one plane deeper.
  // Runs that compute: block b's initial values are those of seed (dataSeed, b), its halos
  // at iteration 0 copies of its lowest and highest planes.
  const depth = new Int32Array(blocks);
  const first = new Int32Array(blocks);
  const block = new Int32Array(blocks);
  const base = Math.floor(z / blocks);
  const initial = (b: number) => randomTile(planePoints * depth[b]!, st.dataSeed * 1_000_003 + b, precision);
  const plane = (b: number, highest: boolean) => () => {
    const v = initial(b);
    const at = highest ? (depth[b]! - 1) * planePoints : 0;
    return v.subarray(at, at + planePoints);
  };
  for (let b = 0; b < blocks; b++) {
    depth[b] = base + (b < z % blocks ? 1 : 0);
    if (b > 0) first[b] = first[b - 1]! + depth[b - 1]!;
    block[b] = s.data({ name: `block[${b}]`, type, length: planePoints * depth[b]!, init: () => initial(b) });
  }
  // Halos, two buffers each: top of blocks 0..B-2, bottom of blocks 1..B-1 (-1: none).
  const top = new Int32Array(2 * blocks).fill(-1);
  const bottom = new Int32Array(2 * blocks).fill(-1);
  for (let b = 0; b < blocks; b++) {
    for (let p = 0; p < 2; p++) {
      // Parity 0 is read at iteration 0: the initial boundary planes; parity 1 is written first.
      const init = (highest: boolean) => (p === 0 ? { init: plane(b, highest) } : {});
      if (b < blocks - 1)
        top[2 * b + p] = s.data({ name: `halo[${b}].top[${p}]`, type, length: planePoints, ...init(true) });
      if (b > 0)
        bottom[2 * b + p] = s.data({
          name: `halo[${b}].bottom[${p}]`,
          type,
          length: planePoints,
          ...init(false),
        });
    }
  }

  const accesses: SubmitAccess[] = [];
  for (let t = 0; t < iterations; t++) {
    const p = t % 2;
    for (let b = 0; b < blocks; b++) {
      accesses.length = 0;
      if (b > 0) accesses.push([top[2 * (b - 1) + p]!, AccessMode.R]);
      accesses.push([block[b]!, AccessMode.RW]);
      if (b < blocks - 1) accesses.push([bottom[2 * (b + 1) + p]!, AccessMode.R]);
      s.submit(update, accesses, {
        args: [xy, p, first[b]!, b > 0 ? 1 : 0, b < blocks - 1 ? 1 : 0],
        flops: STENCIL_FLOPS_PER_POINT * planePoints * depth[b]!,
        name: `STENCIL(${b},${t})`,
        affinity: b,
        phase: t,
      });
    }
    if (t === iterations - 1 || blocks === 1) continue;
    const q = 1 - p;
    for (let b = 0; b < blocks; b++) {
      accesses.length = 0;
      accesses.push([block[b]!, AccessMode.R]);
      if (b > 0) accesses.push([bottom[2 * b + q]!, AccessMode.W]);
      if (b < blocks - 1) accesses.push([top[2 * b + q]!, AccessMode.W]);
      // A plane copy: one "flop" per element copied, so that it costs something small.
      s.submit(copy, accesses, {
        args: [xy, b > 0 ? 1 : 0, b < blocks - 1 ? 1 : 0],
        flops: planePoints * (accesses.length - 1),
        name: `HALO(${b},${t})`,
        affinity: b,
        phase: t,
      });
    }
  }
}

/**
 * The block each datum of a stencil of `blocks` blocks belongs to, by declaration index (the
 * order submit() declares them: the blocks, then each block's halos), so that a cluster can
 * keep a block and its halos on one node: a 1-D distribution of the blocks (seed 001 V.C).
 */
export function stencilDataBlocks(blocks: number): Int32Array {
  const out: number[] = [];
  for (let b = 0; b < blocks; b++) out.push(b);
  for (let b = 0; b < blocks; b++) {
    for (let p = 0; p < 2; p++) {
      if (b < blocks - 1) out.push(b);
      if (b > 0) out.push(b);
    }
  }
  return Int32Array.from(out);
}

/** The 3-D stencil generator (seed 001). */
export const stencilGenerator = defineWorkload({
  name: 'stencil',
  description:
    "seed 001's iterated 3-D stencil: blocks along z exchanging boundary planes through halo handles",
  instance,
  submit,
});

/** Builds the blocked, iterated 3-D stencil of seed 001. */
export function stencil(params: WorkloadParams = {}): Workload {
  return stencilGenerator.generate(params);
}
