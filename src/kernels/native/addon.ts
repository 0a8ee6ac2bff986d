/**
 * Loads the kernel addon (native/kernels, issue 22): the tile kernels through the system's
 * CBLAS and LAPACKE. Where it is not built, fails to load, or `LOCUS_KERNELS=js` is set, the
 * JavaScript kernels run instead and `kernelsReason()` says why in one line.
 *
 * The BLAS runs on the calling thread only (one worker per core, as StarPU runs it): unless
 * `LOCUS_BLAS_THREADS` asks for more, `OPENBLAS_NUM_THREADS` is set to 1 before the library
 * loads (OpenBLAS reads it once, when it initialises) and the library's thread count to 1.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** A float32 or float64 typed array the addon computes on (column-major, with offsets). */
export type Real = Float32Array | Float64Array;

/** The addon's functions (native/kernels/locus_kernels.c documents each). */
export interface KernelAddon {
  /** C = alpha op(A) op(B) + beta C. */
  gemm(
    transA: number,
    transB: number,
    m: number,
    n: number,
    k: number,
    alpha: number,
    a: Real,
    offA: number,
    lda: number,
    b: Real,
    offB: number,
    ldb: number,
    beta: number,
    c: Real,
    offC: number,
    ldc: number,
  ): void;
  /** C = alpha op(A) op(A)^T + beta C on one triangle of C. */
  syrk(
    lower: number,
    trans: number,
    n: number,
    k: number,
    alpha: number,
    a: Real,
    offA: number,
    lda: number,
    beta: number,
    c: Real,
    offC: number,
    ldc: number,
  ): void;
  /** B = alpha op(A)^-1 B (left) or alpha B op(A)^-1 (right), A triangular. */
  trsm(
    right: number,
    lower: number,
    transA: number,
    unitDiag: number,
    m: number,
    n: number,
    alpha: number,
    a: Real,
    offA: number,
    lda: number,
    b: Real,
    offB: number,
    ldb: number,
  ): void;
  /** Cholesky in place; LAPACK's info. */
  potrf(lower: number, n: number, a: Real, offA: number, lda: number): number;
  /** LU without pivoting in place; 0 or the 1-based column of a zero pivot. */
  getrfNoPiv(m: number, n: number, a: Real, offA: number, lda: number): number;
  /** LU with partial pivoting in place; 0-based pivots into ipiv; LAPACK's info. */
  getrf(m: number, n: number, a: Real, offA: number, lda: number, ipiv: Int32Array, offPiv: number): number;
  /** The BLAS's own thread count; whether the library offers to set it. */
  setThreads(n: number): boolean;
  /** The linked library ("openblas 0.3.21"), its build configuration and thread count. */
  info(): { library: string; config: string; threads: number };
}

/** The addon's default place in the package. */
const DEFAULT_PATH = fileURLToPath(
  new URL('../../../native/kernels/build/Release/locus_kernels.node', import.meta.url),
);

/** Where the addon is looked for: LOCUS_KERNELS_ADDON, else native/kernels/build/Release. */
export function kernelAddonPath(): string {
  const env = process.env.LOCUS_KERNELS_ADDON;
  return env !== undefined && env !== '' ? env : DEFAULT_PATH;
}

/** BLAS threads per task: LOCUS_BLAS_THREADS (a positive integer), else 1. */
export function blasThreads(): number {
  const env = process.env.LOCUS_BLAS_THREADS;
  if (env === undefined || env === '') return 1;
  const n = Number(env);
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

let loaded: { addon: KernelAddon } | { reason: string } | undefined;

/** Loads the addon once per thread: the addon, or the one-line reason the JavaScript kernels run. */
function load(): { addon: KernelAddon } | { reason: string } {
  const choice = process.env.LOCUS_KERNELS;
  if (choice === 'js') return { reason: 'LOCUS_KERNELS=js' };
  const path = kernelAddonPath();
  if (!existsSync(path)) {
    return {
      reason: `the kernel addon is not built (${path} is missing): install libopenblas-dev and liblapacke-dev, then run 'node native/build.mjs kernels'`,
    };
  }
  const threads = blasThreads();
  // Read by OpenBLAS when it loads, with the addon; a value the user set is theirs.
  if (process.env.OPENBLAS_NUM_THREADS === undefined) process.env.OPENBLAS_NUM_THREADS = String(threads);
  try {
    const addon = createRequire(import.meta.url)(path) as KernelAddon;
    addon.setThreads(threads);
    return { addon };
  } catch (e) {
    return { reason: `the kernel addon failed to load (${(e as Error).message.split('\n')[0]})` };
  }
}

/** The kernel addon, or undefined where the JavaScript kernels run (kernelsReason says why). */
export function kernelAddon(): KernelAddon | undefined {
  loaded ??= load();
  return 'addon' in loaded ? loaded.addon : undefined;
}

/** Why the JavaScript kernels run, or undefined when the addon is loaded. */
export function kernelsReason(): string | undefined {
  loaded ??= load();
  return 'reason' in loaded ? loaded.reason : undefined;
}

/**
 * Which kernels the tile tasks run, as reports and `locus --version` name them: the BLAS the
 * addon links ("openblas 0.3.21") or "javascript".
 */
export function kernelsName(): string {
  return kernelAddon()?.info().library ?? 'javascript';
}
