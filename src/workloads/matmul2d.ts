/**
 * Seed 000's 2-D matrix multiplication (section 5, Fig. 2): C = A x B where task (i, j)
 * multiplies block-row i of A (tileSize x inner) by block-column j of B (inner x tileSize).
 * The data are the N block-rows of A and the N block-columns of B; every task reads one of
 * each and writes its own C block, so the tasks are independent and share data: a bipartite
 * task/data graph, the problem DARTS, DMDAR and EAGER were compared on.
 */
import { AccessMode } from '../core/types.ts';
import { randomTile } from '../kernels/generate.ts';
import {
  dataSeedParam,
  elementBytes,
  elementType,
  intParam,
  MAX_TILE_SIZE,
  precisionParam,
} from './common.ts';
import { defineWorkload } from './define.ts';
import { GEMM } from './kernels.ts';
import type { Submitter } from './submitter.ts';
import type { Workload, WorkloadInstance, WorkloadParams } from './types.ts';

/** Defaults of seed 000's Fig. 2: 960 x 3840 single-precision blocks (14.06 MiB), N = 20. */
export const MATMUL2D_DEFAULTS = { tiles: 20, tileSize: 960, inner: 3840, precision: 'single' } as const;

/** A validated matmul2d instance. */
export interface Matmul2dInstance extends WorkloadInstance {
  tiles: number;
  tileSize: number;
  inner: number;
  precision: 'single' | 'double';
  keepOutputs: boolean;
  /** Give wontUse hints for kept C blocks. */
  hints: boolean;
  /** Seed of the blocks' random values (runs that compute). */
  dataSeed: number;
}

function instance(params: WorkloadParams): Matmul2dInstance {
  const n = intParam('tiles', params.tiles, MATMUL2D_DEFAULTS.tiles, 1, 2000);
  const ts = intParam('tileSize', params.tileSize, MATMUL2D_DEFAULTS.tileSize, 1, MAX_TILE_SIZE);
  const inner = intParam('inner', params.inner, MATMUL2D_DEFAULTS.inner, 1, 1 << 20);
  const precision = precisionParam(params.precision);
  const keepOutputs = params.keepOutputs ?? false;
  const elem = elementBytes(precision);
  const outputs = keepOutputs ? 'outputs kept' : 'outputs discarded';
  return {
    tiles: n,
    tileSize: ts,
    inner,
    precision,
    keepOutputs,
    hints: params.hints ?? true,
    dataSeed: dataSeedParam(params.dataSeed),
    description: `${n}x${n} tasks, blocks ${ts}x${inner}, ${precision}, ${outputs}`,
    dataBytes: 2 * n * ts * inner * elem + n * n * ts * ts * elem,
    params: { tiles: n, tileSize: ts, inner, precision, keepOutputs },
  };
}

/** Submits the N x N independent block products of seed 000's Fig. 2. */
function submit(s: Submitter, m: Matmul2dInstance): void {
  const { tiles: n, tileSize: ts, inner, precision } = m;
  const gemm = s.codelet(GEMM, 'matmul2dTask');
  const type = elementType(precision);
  const a = new Int32Array(n);
  const b = new Int32Array(n);
  // Block-row i of A (ts x inner) and block-column j of B (inner x ts), column-major, seeded random values.
  const block = (name: string, seed: number) =>
    s.data({ name, type, length: ts * inner, init: () => randomTile(ts * inner, seed, precision) });
  for (let i = 0; i < n; i++) a[i] = block(`A[${i}]`, m.dataSeed * 1_000_003 + i);
  for (let j = 0; j < n; j++) b[j] = block(`B[${j}]`, m.dataSeed * 1_000_003 + n + j);
  const args = [ts, inner];
  const flops = GEMM.flops!(ts, ts, inner);
  const discard = !m.keepOutputs;
  // Row-major submission order: the "natural order" EAGER follows.
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const c = s.data({ name: `C[${i},${j}]`, type, length: ts * ts, discard });
      s.submit(
        gemm,
        [
          [a[i]!, AccessMode.R],
          [b[j]!, AccessMode.R],
          [c, AccessMode.W],
        ],
        { flops, args, name: `GEMM(${i},${j})` },
      );
      // A kept C block is final: StarPU's matrix-product example hints it (wont_use).
      if (m.keepOutputs && m.hints) s.wontUse?.(c);
    }
  }
}

/** The matmul2d generator (seed 000, Fig. 2). */
export const matmul2dGenerator = defineWorkload({
  name: 'matmul2d',
  description:
    "seed 000's 2-D matrix product: N x N independent tasks C[i,j] = A[i] x B[j] sharing 2N input blocks",
  instance,
  submit,
});

/** Builds the N x N independent block products of seed 000's Fig. 2. */
export function matmul2d(params: WorkloadParams = {}): Workload {
  return matmul2dGenerator.generate(params);
}
