/**
 * Jacobi (seed 003 section V): a 5-point stencil kernel from `u` into `v`, then a copy kernel
 * from `v` back into `u`, on an `n x n` grid whose borders stay fixed. A work-group is a grid
 * row; the stencil reads its rows with a one-row halo above and below.
 */
import { affine, type KernelSequence, type Memory } from '../kernel.ts';

/** Jacobi's two kernels on an n x n grid with a seeded-free deterministic start (a hot border). */
export function jacobiSequence(n: number): KernelSequence {
  const u = new Float64Array(n * n);
  for (let j = 0; j < n; j++) u[j] = 1; // hot top border
  for (let i = 0; i < n; i++) u[i * n] = (i % 7) / 7;
  const stencil = {
    name: 'stencil',
    codelet: 'jacobi-stencil',
    workGroups: n,
    accesses: [
      { buffer: 'u', read: [affine(n, -n, n)] },
      { buffer: 'v', write: [affine(n, 0, 0)] },
    ],
    run(mem: Memory, lo: number, hi: number): void {
      const a = mem.u!;
      const b = mem.v!;
      for (let i = lo; i < hi; i++) {
        const r = i * n;
        if (i === 0 || i === n - 1) {
          for (let j = 0; j < n; j++) b[r + j] = a[r + j]!;
          continue;
        }
        b[r] = a[r]!;
        b[r + n - 1] = a[r + n - 1]!;
        for (let j = 1; j < n - 1; j++)
          b[r + j] = 0.25 * (a[r + j - n]! + a[r + j + n]! + a[r + j - 1]! + a[r + j + 1]!);
      }
    },
    work: (_mem: Memory, lo: number, hi: number) => n * (hi - lo),
  };
  const copy = {
    name: 'copy',
    codelet: 'jacobi-copy',
    workGroups: n,
    accesses: [
      { buffer: 'v', read: [affine(n, 0, 0)] },
      { buffer: 'u', write: [affine(n, 0, 0)] },
    ],
    run(mem: Memory, lo: number, hi: number): void {
      mem.u!.set(mem.v!.subarray(lo * n, hi * n), lo * n);
    },
    work: (_mem: Memory, lo: number, hi: number) => n * (hi - lo),
  };
  return {
    name: 'jacobi',
    buffers: [
      { name: 'u', init: u },
      { name: 'v', init: new Float64Array(n * n) },
    ],
    kernels: [stencil, copy],
  };
}
