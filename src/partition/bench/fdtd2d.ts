/**
 * FDTD-2D as in PolyBench (seed 003 section V): three stencil kernels per time step, on
 * `nx x ny` fields `ex`, `ey`, `hz`; a work-group is a row. The source term `_fict_[t]` of
 * PolyBench is a constant 0 here (row 0 of `ey` is held at 0), so a kernel does not depend on
 * the step number.
 */
import { affine, type KernelSequence, type Memory } from '../kernel.ts';

/** FDTD-2D's three kernels on nx x ny fields, initialised as PolyBench does. */
export function fdtd2dSequence(nx: number, ny: number): KernelSequence {
  const ex = new Float64Array(nx * ny);
  const ey = new Float64Array(nx * ny);
  const hz = new Float64Array(nx * ny);
  for (let i = 0; i < nx; i++)
    for (let j = 0; j < ny; j++) {
      ex[i * ny + j] = (i * (j + 1)) / nx;
      ey[i * ny + j] = (i * (j + 2)) / ny;
      hz[i * ny + j] = (i * (j + 3)) / nx;
    }
  const rows = affine(ny, 0, 0);
  return {
    name: 'fdtd2d',
    buffers: [
      { name: 'ex', init: ex },
      { name: 'ey', init: ey },
      { name: 'hz', init: hz },
    ],
    kernels: [
      {
        name: 'ey',
        codelet: 'fdtd-ey',
        workGroups: nx,
        accesses: [
          { buffer: 'hz', read: [affine(ny, -ny, 0)] },
          { buffer: 'ey', read: [rows], write: [rows] },
        ],
        run(mem: Memory, lo: number, hi: number): void {
          const e = mem.ey!;
          const h = mem.hz!;
          for (let i = lo; i < hi; i++)
            for (let j = 0; j < ny; j++) {
              const p = i * ny + j;
              e[p] = i === 0 ? 0 : e[p]! - 0.5 * (h[p]! - h[p - ny]!);
            }
        },
        work: (_m: Memory, lo: number, hi: number) => ny * (hi - lo),
      },
      {
        name: 'ex',
        codelet: 'fdtd-ex',
        workGroups: nx,
        accesses: [
          { buffer: 'hz', read: [rows] },
          { buffer: 'ex', read: [rows], write: [rows] },
        ],
        run(mem: Memory, lo: number, hi: number): void {
          const e = mem.ex!;
          const h = mem.hz!;
          for (let i = lo; i < hi; i++)
            for (let j = 1; j < ny; j++) {
              const p = i * ny + j;
              e[p] = e[p]! - 0.5 * (h[p]! - h[p - 1]!);
            }
        },
        work: (_m: Memory, lo: number, hi: number) => ny * (hi - lo),
      },
      {
        name: 'hz',
        codelet: 'fdtd-hz',
        workGroups: nx,
        accesses: [
          { buffer: 'ex', read: [rows] },
          { buffer: 'ey', read: [affine(ny, 0, ny)] },
          { buffer: 'hz', read: [rows], write: [rows] },
        ],
        run(mem: Memory, lo: number, hi: number): void {
          const x = mem.ex!;
          const y = mem.ey!;
          const h = mem.hz!;
          for (let i = lo; i < Math.min(hi, nx - 1); i++)
            for (let j = 0; j < ny - 1; j++) {
              const p = i * ny + j;
              h[p] = h[p]! - 0.7 * (x[p + 1]! - x[p]! + y[p + ny]! - y[p]!);
            }
        },
        work: (_m: Memory, lo: number, hi: number) => ny * (hi - lo),
      },
    ],
  };
}
