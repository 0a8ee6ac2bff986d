/**
 * Seed 000's 2-D matrix multiplication (section 5, Fig. 2): C = A x B where task (i, j)
 * multiplies block-row i of A (tileSize x inner) by block-column j of B (inner x tileSize).
 * The data are the N block-rows of A and the N block-columns of B; every task reads one of
 * each and writes its own C block, so the tasks are independent and share data: a bipartite
 * task/data graph, the problem DARTS, DMDAR and EAGER were compared on.
 */
import { TaskGraph } from '../core/graph.ts';
import { AccessMode } from '../core/types.ts';
import {
  checkHostMemory,
  elementBytes,
  finishWorkload,
  intParam,
  MAX_TILE_SIZE,
  precisionParam,
} from './common.ts';
import { GEMM } from './kernels.ts';
import type { Workload, WorkloadGenerator, WorkloadParams } from './types.ts';

/** Defaults of seed 000's Fig. 2: 960 x 3840 single-precision blocks (14.06 MiB), N = 20. */
export const MATMUL2D_DEFAULTS = { tiles: 20, tileSize: 960, inner: 3840, precision: 'single' } as const;

/** Builds the N x N independent block products of seed 000's Fig. 2. */
export function matmul2d(params: WorkloadParams = {}): Workload {
  const n = intParam('--tiles', params.tiles, MATMUL2D_DEFAULTS.tiles, 1, 2000);
  const ts = intParam('--tile-size', params.tileSize, MATMUL2D_DEFAULTS.tileSize, 1, MAX_TILE_SIZE);
  const inner = intParam('--inner', params.inner, MATMUL2D_DEFAULTS.inner, 1, 1 << 20);
  const precision = precisionParam(params.precision);
  const keepOutputs = params.keepOutputs ?? false;
  const elem = elementBytes(precision);

  const graph = new TaskGraph();
  const gemm = graph.addCodelet(GEMM);
  const inputBytes = ts * inner * elem;
  const outputBytes = ts * ts * elem;
  checkHostMemory(params, 2 * n * inputBytes + n * n * outputBytes);
  const a = new Int32Array(n);
  const b = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = graph.addHandle(inputBytes, { name: `A[${i}]` });
  for (let j = 0; j < n; j++) b[j] = graph.addHandle(inputBytes, { name: `B[${j}]` });
  const flops = GEMM.flops!(ts, ts, inner);
  const discard = !keepOutputs;
  // Row-major submission order: the "natural order" EAGER follows.
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const c = graph.addHandle(outputBytes, { name: `C[${i},${j}]`, discard });
      graph.submit(
        gemm,
        [
          [a[i]!, AccessMode.R],
          [b[j]!, AccessMode.R],
          [c, AccessMode.W],
        ],
        { flops, name: `GEMM(${i},${j})` },
      );
    }
  }
  const outputs = keepOutputs ? 'outputs kept' : 'outputs discarded';
  return finishWorkload(
    'matmul2d',
    graph,
    `${n}x${n} tasks, blocks ${ts}x${inner}, ${precision}, ${outputs}`,
    { tiles: n, tileSize: ts, inner, precision, keepOutputs },
  );
}

/** The matmul2d generator (seed 000, Fig. 2). */
export const matmul2dGenerator: WorkloadGenerator = {
  name: 'matmul2d',
  description:
    "seed 000's 2-D matrix product: N x N independent tasks C[i,j] = A[i] x B[j] sharing 2N input blocks",
  generate: matmul2d,
};
