/** The applications `locus run --mode real` runs, by workload name, each loaded on demand. */
export const REAL_APPS = {
  cholesky: () => import('./cholesky.ts').then((m) => m.runCholesky),
  lu: () => import('./lu.ts').then((m) => m.runLu),
  lupp: () => import('./lupp.ts').then((m) => m.runLupp),
  gemm: () => import('./gemm.ts').then((m) => m.runGemm),
  jacobi: () => import('./jacobi.ts').then((m) => m.runJacobi),
} as const;
