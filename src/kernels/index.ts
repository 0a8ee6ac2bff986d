/**
 * CPU tile kernels for dense linear algebra, the 3-D stencil and the 2-D Jacobi sweep, in float64 and float32, on
 * contiguous column-major tiles (element (i, j) of an m x n tile at i + j * m), plus the
 * reference implementations, generators and residual checks used to verify them.
 */
export { gemm, gemmKernel } from './gemm.ts';
export { cloneTiles, diagDominantTiles, mulberry32, randomTile, spdMatrixTiles } from './generate.ts';
export { getrf, getrfKernel } from './getrf.ts';
export { JACOBI_FLOPS_PER_POINT, jacobiBlock } from './jacobi.ts';
export { potrf, potrfKernel } from './potrf.ts';
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
export { syrk, syrkKernel } from './syrk.ts';
export {
  trsmLeftLowerUnit,
  trsmLluKernel,
  trsmRightLowerTrans,
  trsmRightUpper,
  trsmRltKernel,
  trsmRunKernel,
} from './trsm.ts';
export { newTile, type Precision, precisionOf, splitPoint, type Tile } from './types.ts';
