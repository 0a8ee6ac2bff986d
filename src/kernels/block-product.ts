/**
 * The rectangular block product of seed 000's matmul2d: C (m x n) = A (m x k) B (k x n),
 * column-major, C overwritten. Widens to float64 and runs the GEMM core (src/kernels/gemm.ts).
 */
import { gemmKernel } from './gemm.ts';
import { narrow, SLOT_A, SLOT_B, SLOT_C, scratch, widen } from './scratch.ts';
import { checkLength, type Tile } from './types.ts';

/** C = A B with A m x k, B k x n and C m x n, column-major (leading dimensions m, k, m). */
export function blockProduct(a: Tile, b: Tile, c: Tile, m: number, n: number, k: number): void {
  checkLength('blockProduct', 'a', a, m * k);
  checkLength('blockProduct', 'b', b, k * n);
  checkLength('blockProduct', 'c', c, m * n);
  const cw = scratch(SLOT_C, m * n);
  cw.fill(0, 0, m * n);
  if (m > 0 && n > 0 && k > 0)
    gemmKernel(m, n, k, 1, widen(a, m * k, SLOT_A), 0, m, widen(b, k * n, SLOT_B), 0, k, false, cw, 0, m);
  narrow(cw, c, m * n);
}
