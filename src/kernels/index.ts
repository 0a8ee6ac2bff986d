/**
 * The `locus-runtime/kernels` entry. CPU tile kernels for dense linear algebra, the 3-D stencil and the 2-D Jacobi sweep, in float64 and float32, on
 * contiguous column-major tiles (element (i, j) of an m x n tile at i + j * m), plus the
 * reference implementations, generators and residual checks used to verify them. gemm, syrk,
 * potrf, getrf and the three TRSMs run the system's BLAS and LAPACK through the kernel addon
 * where it is built (src/kernels/native/dispatch.ts), the JavaScript kernels otherwise;
 * `kernelsName()` says which, `javascript` holds the JavaScript ones (the references of the
 * native ones), and `blas()` the addon itself (offsets, leading dimensions, every transpose).
 */
export { gemmKernel } from './gemm.ts';
export { cloneTiles, diagDominantTiles, mulberry32, randomTile, spdMatrixTiles } from './generate.ts';
export { getrfKernel } from './getrf.ts';
export { JACOBI_FLOPS_PER_POINT, jacobiBlock } from './jacobi.ts';
export * as javascript from './javascript.ts';
export { type KernelAddon, kernelAddon as blas, kernelsName } from './native/addon.ts';
export {
  gemm,
  getrf,
  potrf,
  setBlasThreads,
  syrk,
  trsmLeftLowerUnit,
  trsmRightLowerTrans,
  trsmRightUpper,
} from './native/dispatch.ts';
export { potrfKernel } from './potrf.ts';
export {
  gemmRef,
  getrfRef,
  potrfRef,
  stencil7Ref,
  syrkRef,
  tiledCholesky,
  tiledGemm,
  tiledLu,
  trsmLeftLowerUnitRef,
  trsmRightLowerTransRef,
  trsmRightUpperRef,
} from './reference.ts';
export { assemble, choleskyResidual, frobenius, luResidual, relativeDifference } from './residual.ts';
export { STENCIL7_FLOPS_PER_POINT, stencil7, stencilInPlace } from './stencil.ts';
export { syrkKernel } from './syrk.ts';
export { trsmLluKernel, trsmRltKernel, trsmRunKernel } from './trsm.ts';
export { newTile, type Precision, precisionOf, splitPoint, type Tile } from './types.ts';
