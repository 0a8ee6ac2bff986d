/**
 * The tile tasks of src/kernels/tasks-js.ts through the kernel addon (BLAS 3 and LAPACK on the
 * calling thread): the same names, accesses and arguments, square column-major tiles of edge
 * args[0] (leading dimension = edge). The memory-bound kernels (Jacobi, stencil, halo copies,
 * row interchanges) stay in JavaScript. A numerical failure throws the JavaScript kernels'
 * message, so a failed task reads the same whichever kernels ran.
 */
import { laswp } from '../getrf-pivot.ts';
import * as Js from '../tasks-js.ts';
import type { KernelAddon, Real } from './addon.ts';

type Views = readonly ArrayLike<number>[];
/** A task kernel as workers call it. */
export type TaskKernel = (data: Views, args: Float64Array) => void;

/** The task kernels over `k`, by the names of tasks-js.ts. */
export function nativeTasks(k: KernelAddon): Readonly<Record<keyof typeof Js, TaskKernel>> {
  const r = (data: Views, i: number) => data[i] as Real;
  /** Scratch for a pivoted panel, grown as needed (one per thread: never allocated per call). */
  let panel = new Float64Array(0);
  let panel32 = new Float32Array(0);

  return {
    potrfTask(data, args) {
      const n = args[0]! | 0;
      const info = k.potrf(1, n, r(data, 0), 0, n);
      if (info > 0) throw new Error(`potrf: matrix not positive definite at column ${info - 1}`);
    },
    trsmCholeskyTask(data, args) {
      const n = args[0]! | 0;
      k.trsm(1, 1, 1, 0, n, n, 1, r(data, 0), 0, n, r(data, 1), 0, n);
    },
    syrkTask(data, args) {
      const n = args[0]! | 0;
      k.syrk(1, 0, n, n, -1, r(data, 0), 0, n, 1, r(data, 1), 0, n);
    },
    gemmCholeskyTask(data, args) {
      const n = args[0]! | 0;
      k.gemm(0, 1, n, n, n, -1, r(data, 0), 0, n, r(data, 1), 0, n, 1, r(data, 2), 0, n);
    },
    getrfTask(data, args) {
      const n = args[0]! | 0;
      const info = k.getrfNoPiv(n, n, r(data, 0), 0, n);
      if (info > 0) throw new Error(`getrf: zero pivot at column ${info - 1}`);
    },
    trsmLuRowTask(data, args) {
      const n = args[0]! | 0;
      k.trsm(0, 1, 0, 1, n, n, 1, r(data, 0), 0, n, r(data, 1), 0, n);
    },
    trsmLuColumnTask(data, args) {
      const n = args[0]! | 0;
      k.trsm(1, 0, 0, 0, n, n, 1, r(data, 0), 0, n, r(data, 1), 0, n);
    },
    gemmLuTask(data, args) {
      const n = args[0]! | 0;
      k.gemm(0, 0, n, n, n, -1, r(data, 0), 0, n, r(data, 1), 0, n, 1, r(data, 2), 0, n);
    },
    gemmTask(data, args) {
      const n = args[0]! | 0;
      k.gemm(0, 0, n, n, n, 1, r(data, 0), 0, n, r(data, 1), 0, n, 1, r(data, 2), 0, n);
    },
    panelTask(data, args) {
      // LAPACK getrf on the panel gathered into one m x b matrix (ld m), then scattered back.
      const b = args[0]! | 0;
      const tiles = data.slice(1) as Real[];
      const m = tiles.length * b;
      const single = tiles[0] instanceof Float32Array;
      if (single && panel32.length < m * b) panel32 = new Float32Array(m * b);
      if (!single && panel.length < m * b) panel = new Float64Array(m * b);
      const p: Real = single ? panel32 : panel;
      for (let t = 0; t < tiles.length; t++) {
        const tile = tiles[t]!;
        for (let j = 0; j < b; j++) p.set(tile.subarray(j * b, (j + 1) * b), t * b + j * m);
      }
      const info = k.getrf(m, b, p, 0, m, data[0] as Int32Array, 0);
      for (let t = 0; t < tiles.length; t++) {
        const tile = tiles[t]!;
        for (let j = 0; j < b; j++) tile.set(p.subarray(t * b + j * m, t * b + j * m + b), j * b);
      }
      if (info > 0)
        throw new Error(`getrf: the matrix is singular (column ${info - 1} of the panel is zero)`);
    },
    laswpTrsmTask(data, args) {
      const b = args[0]! | 0;
      const column = data.slice(2) as Float64Array[];
      laswp(column, b, data[0] as Int32Array);
      k.trsm(0, 1, 0, 1, b, b, 1, r(data, 1), 0, b, column[0]!, 0, b);
    },
    laswpTask: Js.laswpTask,
    jacobiTask: Js.jacobiTask,
    taskbenchTask: Js.taskbenchTask,
    matmul2dTask(data, args) {
      const m = args[0]! | 0;
      const kk = args[1]! | 0;
      k.gemm(0, 0, m, m, kk, 1, r(data, 0), 0, m, r(data, 1), 0, kk, 0, r(data, 2), 0, m);
    },
    stencilTask: Js.stencilTask,
    haloTask: Js.haloTask,
  };
}
