/**
 * 2SpMV (seed 003 section V): two sparse matrix-vector products in CSR, `y = A x` then
 * `x = B y`, on seeded matrices with irregular row lengths (a few heavy bands), so that equal
 * numbers of rows carry very different work. A work-group is a row; the non-zeros of rows
 * `[lo, hi)` are reached through the row pointer, `[rowptr[lo], rowptr[hi])`, a monotone
 * indirection; the dense vector is read whole (the columns are a gather).
 */
import { Rng } from '../../core/rng.ts';
import { affine, indirect, type KernelSequence, type Memory, WHOLE } from '../kernel.ts';

interface Csr {
  rowptr: Int32Array;
  col: Int32Array;
  val: Float64Array;
}

/**
 * Bands of rows: depending on its band, a row is heavy (up to `maxRow` non-zeros) with
 * probability 0, 1/3 or 2/3, else light (up to maxRow / 16); a quarter of the rows are heavy
 * overall. 64 bands: a device's share of the rows (a
 * quarter or so) spans many bands, so its mean time per row, the seed's f_d^k, holds from one
 * sub-range to the next; with 8 bands a share was one or two bands, a shift of the boundary
 * moved a heavy band between devices and the LP's ratios swung between two states every
 * iteration.
 */
export const BANDS = 64;

/** A seeded n x n CSR matrix whose row lengths vary by bands (rows sum to at most 1 in absolute value). */
function irregularCsr(n: number, rng: Rng, maxRow: number): Csr {
  const lengths: number[] = [];
  for (let i = 0; i < n; i++) {
    const band = Math.floor((i * BANDS) / n);
    const heavy = (band * 5 + rng.int(3)) % 8 < 2;
    lengths.push(1 + rng.int(heavy ? maxRow : Math.max(2, maxRow >> 4)));
  }
  const rowptr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) rowptr[i + 1] = rowptr[i]! + lengths[i]!;
  const nnz = rowptr[n]!;
  const col = new Int32Array(nnz);
  const val = new Float64Array(nnz);
  for (let i = 0; i < n; i++)
    for (let p = rowptr[i]!; p < rowptr[i + 1]!; p++) {
      col[p] = rng.int(n);
      val[p] = (rng.int(1 << 20) / (1 << 20) - 0.25) / lengths[i]!;
    }
  return { rowptr, col, val };
}

function spmvKernel(name: string, m: string, input: string, output: string, n: number) {
  return {
    name,
    codelet: 'spmv',
    workGroups: n,
    accesses: [
      { buffer: `${m}.rowptr`, read: [affine(1, 0, 1)] },
      { buffer: `${m}.col`, read: [indirect(`${m}.rowptr`, 1, 0, 0)] },
      { buffer: `${m}.val`, read: [indirect(`${m}.rowptr`, 1, 0, 0)] },
      { buffer: input, read: [WHOLE] },
      { buffer: output, write: [affine(1, 0, 0)] },
    ],
    run(mem: Memory, lo: number, hi: number): void {
      const rp = mem[`${m}.rowptr`]!;
      const col = mem[`${m}.col`]!;
      const val = mem[`${m}.val`]!;
      const x = mem[input]!;
      const y = mem[output]!;
      for (let i = lo; i < hi; i++) {
        let s = 0;
        for (let p = rp[i]!; p < rp[i + 1]!; p++) s += val[p]! * x[col[p]!]!;
        y[i] = s;
      }
    },
    work(mem: Memory, lo: number, hi: number): number {
      const rp = mem[`${m}.rowptr`]!;
      return hi > lo ? rp[hi]! - rp[lo]! : 0;
    },
  };
}

/** The two products on seeded n x n matrices (row lengths up to `maxRow`). */
export function spmv2Sequence(n: number, maxRow: number, seed: number): KernelSequence {
  const rng = new Rng(seed);
  const a = irregularCsr(n, rng, maxRow);
  const b = irregularCsr(n, rng, maxRow);
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = 1 + rng.int(1000) / 1000;
  return {
    name: '2spmv',
    buffers: [
      { name: 'A.rowptr', init: a.rowptr },
      { name: 'A.col', init: a.col },
      { name: 'A.val', init: a.val },
      { name: 'B.rowptr', init: b.rowptr },
      { name: 'B.col', init: b.col },
      { name: 'B.val', init: b.val },
      { name: 'x', init: x },
      { name: 'y', init: new Float64Array(n) },
    ],
    kernels: [spmvKernel('spmv-A', 'A', 'x', 'y', n), spmvKernel('spmv-B', 'B', 'y', 'x', n)],
  };
}
