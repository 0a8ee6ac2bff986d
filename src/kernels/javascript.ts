/**
 * The JavaScript tile kernels, whatever the addon (`javascript` in `locus-runtime/kernels`):
 * the fallback of the native ones and the references they are tested against.
 */
export { gemm } from './gemm.ts';
export { getrf } from './getrf.ts';
export { potrf } from './potrf.ts';
export { syrk } from './syrk.ts';
export { trsmLeftLowerUnit, trsmRightLowerTrans, trsmRightUpper } from './trsm.ts';
