// The kernel addon (issue 22, docs/kernels.md): the tile kernels of Locus's built-in workloads
// through the system's CBLAS and LAPACKE, in float32 and float64, on typed arrays (over
// SharedArrayBuffers or not) with element offsets and leading dimensions, column-major.
// Every call is synchronous, checks its bounds, allocates nothing, and runs the BLAS on the
// calling thread (the library's own threads are set to 1 at load: one worker per core).
#define NAPI_VERSION 8
#include <node_api.h>
#include <cblas.h>
#include <lapacke.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define MAX_ARGS 16

// ---------------------------------------------------------------------------------------------
// Arguments

typedef struct {
  napi_env env;
  napi_value argv[MAX_ARGS];
  size_t argc;
  const char *kernel;
  int failed;
} Args;

static int args_init(Args *a, napi_env env, napi_callback_info info, const char *kernel, size_t expected) {
  a->env = env;
  a->kernel = kernel;
  a->failed = 0;
  a->argc = MAX_ARGS;
  napi_get_cb_info(env, info, &a->argc, a->argv, NULL, NULL);
  if (a->argc < expected) {
    char m[160];
    snprintf(m, sizeof m, "%s: %zu arguments given, %zu expected", kernel, a->argc, expected);
    napi_throw_type_error(env, NULL, m);
    a->failed = 1;
    return 0;
  }
  return 1;
}

static void fail(Args *a, const char *what, int range) {
  if (a->failed) return;
  char m[200];
  snprintf(m, sizeof m, "%s: %s", a->kernel, what);
  if (range) napi_throw_range_error(a->env, NULL, m);
  else napi_throw_type_error(a->env, NULL, m);
  a->failed = 1;
}

/** An integer argument (a number, or a boolean as 0 / 1). */
static int int_arg(Args *a, size_t i, const char *name) {
  if (a->failed) return 0;
  napi_valuetype t;
  napi_typeof(a->env, a->argv[i], &t);
  if (t == napi_boolean) {
    bool b;
    napi_get_value_bool(a->env, a->argv[i], &b);
    return b ? 1 : 0;
  }
  double d;
  if (t != napi_number || napi_get_value_double(a->env, a->argv[i], &d) != napi_ok || d != (double)(int)d) {
    char m[120];
    snprintf(m, sizeof m, "%s must be an integer", name);
    fail(a, m, 0);
    return 0;
  }
  return (int)d;
}

static double num_arg(Args *a, size_t i, const char *name) {
  if (a->failed) return 0;
  double d;
  if (napi_get_value_double(a->env, a->argv[i], &d) != napi_ok) {
    char m[120];
    snprintf(m, sizeof m, "%s must be a number", name);
    fail(a, m, 0);
    return 0;
  }
  return d;
}

/** Element type of a matrix argument: 4 (float32) or 8 (float64). */
typedef struct {
  void *data;  // first element of the matrix (offset applied)
  int elem;    // 4 or 8
} Mat;

/**
 * A matrix argument: typed array `i`, element offset `i + 1`, leading dimension `i + 2`, holding
 * a rows x cols column-major matrix; checks the type (float32 or float64, and `elem` when
 * non-zero) and that every element lies inside the array.
 */
static Mat mat_arg(Args *a, size_t i, const char *name, int rows, int cols, int elem) {
  Mat m = {NULL, 0};
  if (a->failed) return m;
  bool is_ta = false;
  napi_is_typedarray(a->env, a->argv[i], &is_ta);
  char msg[200];
  if (!is_ta) {
    snprintf(msg, sizeof msg, "%s must be a Float32Array or a Float64Array", name);
    fail(a, msg, 0);
    return m;
  }
  napi_typedarray_type type;
  size_t length;
  void *data;
  napi_get_typedarray_info(a->env, a->argv[i], &type, &length, &data, NULL, NULL);
  int e = type == napi_float32_array ? 4 : type == napi_float64_array ? 8 : 0;
  if (e == 0 || (elem != 0 && e != elem)) {
    snprintf(msg, sizeof msg, "%s must be a %s", name,
             elem == 4 ? "Float32Array (like the first matrix)" : elem == 8 ? "Float64Array (like the first matrix)" : "Float32Array or a Float64Array");
    fail(a, msg, 0);
    return m;
  }
  int off = int_arg(a, i + 1, "an offset");
  int ld = int_arg(a, i + 2, "a leading dimension");
  if (a->failed) return m;
  if (rows < 0 || cols < 0) {
    fail(a, "sizes must be non-negative", 1);
    return m;
  }
  if (off < 0 || ld < (rows > 1 ? rows : 1)) {
    snprintf(msg, sizeof msg, "%s: offset %d and leading dimension %d are invalid for %d rows", name, off, ld, rows);
    fail(a, msg, 1);
    return m;
  }
  if (rows > 0 && cols > 0 && (size_t)off + (size_t)(cols - 1) * (size_t)ld + (size_t)rows > length) {
    snprintf(msg, sizeof msg, "%s: a %d x %d matrix at offset %d with leading dimension %d needs %zu elements, the array has %zu",
             name, rows, cols, off, ld, (size_t)off + (size_t)(cols - 1) * (size_t)ld + (size_t)rows, length);
    fail(a, msg, 1);
    return m;
  }
  m.data = (char *)data + (size_t)off * e;
  m.elem = e;
  return m;
}

static napi_value int_value(napi_env env, int v) {
  napi_value r;
  napi_create_int32(env, v, &r);
  return r;
}

// ---------------------------------------------------------------------------------------------
// BLAS 3

/** gemm(transA, transB, m, n, k, alpha, A, offA, lda, B, offB, ldb, beta, C, offC, ldc): C = alpha op(A) op(B) + beta C. */
static napi_value Gemm(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_init(&a, env, info, "gemm", 16)) return NULL;
  int ta = int_arg(&a, 0, "transA"), tb = int_arg(&a, 1, "transB");
  int m = int_arg(&a, 2, "m"), n = int_arg(&a, 3, "n"), k = int_arg(&a, 4, "k");
  double alpha = num_arg(&a, 5, "alpha");
  Mat A = mat_arg(&a, 6, "A", ta ? k : m, ta ? m : k, 0);
  Mat B = mat_arg(&a, 9, "B", tb ? n : k, tb ? k : n, A.elem);
  double beta = num_arg(&a, 12, "beta");
  Mat C = mat_arg(&a, 13, "C", m, n, A.elem);
  if (a.failed) return NULL;
  int lda = int_arg(&a, 8, ""), ldb = int_arg(&a, 11, ""), ldc = int_arg(&a, 15, "");
  if (m == 0 || n == 0) return NULL;
  enum CBLAS_TRANSPOSE TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  if (A.elem == 4)
    cblas_sgemm(CblasColMajor, TA, TB, m, n, k, (float)alpha, A.data, lda, B.data, ldb, (float)beta, C.data, ldc);
  else
    cblas_dgemm(CblasColMajor, TA, TB, m, n, k, alpha, A.data, lda, B.data, ldb, beta, C.data, ldc);
  return NULL;
}

/** syrk(lower, trans, n, k, alpha, A, offA, lda, beta, C, offC, ldc): C = alpha op(A) op(A)^T + beta C on C's lower (or upper) triangle. */
static napi_value Syrk(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_init(&a, env, info, "syrk", 12)) return NULL;
  int lower = int_arg(&a, 0, "lower"), tr = int_arg(&a, 1, "trans");
  int n = int_arg(&a, 2, "n"), k = int_arg(&a, 3, "k");
  double alpha = num_arg(&a, 4, "alpha");
  Mat A = mat_arg(&a, 5, "A", tr ? k : n, tr ? n : k, 0);
  double beta = num_arg(&a, 8, "beta");
  Mat C = mat_arg(&a, 9, "C", n, n, A.elem);
  if (a.failed) return NULL;
  int lda = int_arg(&a, 7, ""), ldc = int_arg(&a, 11, "");
  if (n == 0) return NULL;
  enum CBLAS_UPLO U = lower ? CblasLower : CblasUpper;
  enum CBLAS_TRANSPOSE T = tr ? CblasTrans : CblasNoTrans;
  if (A.elem == 4) cblas_ssyrk(CblasColMajor, U, T, n, k, (float)alpha, A.data, lda, (float)beta, C.data, ldc);
  else cblas_dsyrk(CblasColMajor, U, T, n, k, alpha, A.data, lda, beta, C.data, ldc);
  return NULL;
}

/**
 * trsm(right, lower, transA, unitDiag, m, n, alpha, A, offA, lda, B, offB, ldb): B = alpha
 * op(A)^-1 B (left) or alpha B op(A)^-1 (right), A triangular.
 */
static napi_value Trsm(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_init(&a, env, info, "trsm", 13)) return NULL;
  int right = int_arg(&a, 0, "right"), lower = int_arg(&a, 1, "lower"), ta = int_arg(&a, 2, "transA"),
      unit = int_arg(&a, 3, "unitDiag");
  int m = int_arg(&a, 4, "m"), n = int_arg(&a, 5, "n");
  double alpha = num_arg(&a, 6, "alpha");
  int na = right ? n : m;
  Mat A = mat_arg(&a, 7, "A", na, na, 0);
  Mat B = mat_arg(&a, 10, "B", m, n, A.elem);
  if (a.failed) return NULL;
  int lda = int_arg(&a, 9, ""), ldb = int_arg(&a, 12, "");
  if (m == 0 || n == 0) return NULL;
  enum CBLAS_SIDE S = right ? CblasRight : CblasLeft;
  enum CBLAS_UPLO U = lower ? CblasLower : CblasUpper;
  enum CBLAS_TRANSPOSE T = ta ? CblasTrans : CblasNoTrans;
  enum CBLAS_DIAG D = unit ? CblasUnit : CblasNonUnit;
  if (A.elem == 4) cblas_strsm(CblasColMajor, S, U, T, D, m, n, (float)alpha, A.data, lda, B.data, ldb);
  else cblas_dtrsm(CblasColMajor, S, U, T, D, m, n, alpha, A.data, lda, B.data, ldb);
  return NULL;
}

// ---------------------------------------------------------------------------------------------
// LAPACK

/** potrf(lower, n, A, offA, lda): Cholesky in place; returns LAPACK's info (0, or k > 0: the leading minor of order k is not positive definite). */
static napi_value Potrf(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_init(&a, env, info, "potrf", 5)) return NULL;
  int lower = int_arg(&a, 0, "lower"), n = int_arg(&a, 1, "n");
  Mat A = mat_arg(&a, 2, "A", n, n, 0);
  if (a.failed) return NULL;
  int lda = int_arg(&a, 4, "");
  if (n == 0) return int_value(env, 0);
  char u = lower ? 'L' : 'U';
  lapack_int r = A.elem == 4 ? LAPACKE_spotrf_work(LAPACK_COL_MAJOR, u, n, A.data, lda)
                             : LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, u, n, A.data, lda);
  return int_value(env, (int)r);
}

/** Block width of the unpivoted LU's panels. */
#define LU_NB 64

#define DEFINE_GETRF_NOPIV(T, P)                                                                   \
  static int getrf_nopiv_##P(int m, int n, T *A, int lda) {                                       \
    int mn = m < n ? m : n;                                                                        \
    for (int j = 0; j < mn; j += LU_NB) {                                                          \
      int jb = mn - j < LU_NB ? mn - j : LU_NB;                                                    \
      for (int c = j; c < j + jb; c++) {                                                           \
        T piv = A[c + (size_t)c * lda];                                                            \
        if (piv == 0) return c + 1;                                                                \
        for (int r = c + 1; r < m; r++) A[r + (size_t)c * lda] /= piv;                             \
        if (c + 1 < j + jb && c + 1 < m)                                                           \
          cblas_##P##ger(CblasColMajor, m - c - 1, j + jb - c - 1, -1, &A[c + 1 + (size_t)c * lda], 1, \
                         &A[c + (size_t)(c + 1) * lda], lda, &A[c + 1 + (size_t)(c + 1) * lda], lda); \
      }                                                                                            \
      if (j + jb < n) {                                                                            \
        cblas_##P##trsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, jb, n - j - jb, 1, \
                        &A[j + (size_t)j * lda], lda, &A[j + (size_t)(j + jb) * lda], lda);         \
        if (j + jb < m)                                                                            \
          cblas_##P##gemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m - j - jb, n - j - jb, jb, -1, \
                          &A[j + jb + (size_t)j * lda], lda, &A[j + (size_t)(j + jb) * lda], lda, 1, \
                          &A[j + jb + (size_t)(j + jb) * lda], lda);                                \
      }                                                                                            \
    }                                                                                              \
    return 0;                                                                                      \
  }
DEFINE_GETRF_NOPIV(float, s)
DEFINE_GETRF_NOPIV(double, d)

/**
 * getrfNoPiv(m, n, A, offA, lda): LU without pivoting in place (unit L below, U on and above
 * the diagonal), blocked right-looking (panels of LU_NB columns: a rank-1 update per column,
 * then TRSM and GEMM on the trailing matrix); returns 0, or c + 1 for a zero pivot in column c.
 */
static napi_value GetrfNoPiv(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_init(&a, env, info, "getrfNoPiv", 5)) return NULL;
  int m = int_arg(&a, 0, "m"), n = int_arg(&a, 1, "n");
  Mat A = mat_arg(&a, 2, "A", m, n, 0);
  if (a.failed) return NULL;
  int lda = int_arg(&a, 4, "");
  int r = A.elem == 4 ? getrf_nopiv_s(m, n, A.data, lda) : getrf_nopiv_d(m, n, A.data, lda);
  return int_value(env, r);
}

/**
 * getrf(m, n, A, offA, lda, ipiv, offPiv): LU with partial pivoting in place (LAPACK getrf);
 * ipiv (an Int32Array, min(m, n) entries from offPiv) receives the 0-based row swapped with each
 * row, in order. Returns LAPACK's info (0, or c + 1: U(c, c) is exactly zero).
 */
static napi_value Getrf(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_init(&a, env, info, "getrf", 7)) return NULL;
  int m = int_arg(&a, 0, "m"), n = int_arg(&a, 1, "n");
  Mat A = mat_arg(&a, 2, "A", m, n, 0);
  if (a.failed) return NULL;
  int lda = int_arg(&a, 4, "");
  int mn = m < n ? m : n;
  bool is_ta = false;
  napi_is_typedarray(env, a.argv[5], &is_ta);
  napi_typedarray_type type = napi_int8_array;
  size_t length = 0;
  void *data = NULL;
  if (is_ta) napi_get_typedarray_info(env, a.argv[5], &type, &length, &data, NULL, NULL);
  if (!is_ta || type != napi_int32_array) {
    fail(&a, "ipiv must be an Int32Array", 0);
    return NULL;
  }
  int off = int_arg(&a, 6, "offPiv");
  if (a.failed) return NULL;
  if (off < 0 || (size_t)off + (size_t)mn > length) {
    fail(&a, "ipiv is too short for min(m, n) pivots at its offset", 1);
    return NULL;
  }
  if (mn == 0) return int_value(env, 0);
  int32_t *ipiv = (int32_t *)data + off;
  lapack_int r = A.elem == 4 ? LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, A.data, lda, (lapack_int *)ipiv)
                             : LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, A.data, lda, (lapack_int *)ipiv);
  for (int i = 0; i < mn; i++) ipiv[i] -= 1;
  return int_value(env, (int)r);
}

// ---------------------------------------------------------------------------------------------
// The library

typedef char *(*config_fn)(void);
typedef void (*threads_fn)(int);
typedef int (*get_threads_fn)(void);

/** setThreads(n): the BLAS's own thread count (OpenBLAS, BLIS or MKL, when one of them is linked); returns whether one was set. */
static napi_value SetThreads(napi_env env, napi_callback_info info) {
  Args a;
  if (!args_init(&a, env, info, "setThreads", 1)) return NULL;
  int n = int_arg(&a, 0, "n");
  if (a.failed) return NULL;
  if (n < 1) {
    fail(&a, "n must be at least 1", 1);
    return NULL;
  }
  threads_fn f = (threads_fn)dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (f == NULL) f = (threads_fn)dlsym(RTLD_DEFAULT, "bli_thread_set_num_threads");
  if (f == NULL) f = (threads_fn)dlsym(RTLD_DEFAULT, "MKL_Set_Num_Threads");
  napi_value r;
  if (f != NULL) f(n);
  napi_get_boolean(env, f != NULL, &r);
  return r;
}

/** info(): { library, config, threads } of the linked BLAS ("openblas 0.3.21", its build configuration, its thread count; "blas" where it cannot tell). */
static napi_value Info(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value o, v;
  napi_create_object(env, &o);
  config_fn cfg = (config_fn)dlsym(RTLD_DEFAULT, "openblas_get_config");
  get_threads_fn gt = (get_threads_fn)dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  const char *config = cfg != NULL ? cfg() : "";
  char library[64] = "blas";
  if (cfg != NULL) {
    // "OpenBLAS 0.3.21 DYNAMIC_ARCH ..." -> "openblas 0.3.21"
    char ver[32] = "";
    if (sscanf(config, "OpenBLAS %31s", ver) == 1) snprintf(library, sizeof library, "openblas %s", ver);
    else snprintf(library, sizeof library, "openblas");
  }
  napi_create_string_utf8(env, library, NAPI_AUTO_LENGTH, &v);
  napi_set_named_property(env, o, "library", v);
  napi_create_string_utf8(env, config, NAPI_AUTO_LENGTH, &v);
  napi_set_named_property(env, o, "config", v);
  napi_create_int32(env, gt != NULL ? gt() : 1, &v);
  napi_set_named_property(env, o, "threads", v);
  return o;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"gemm", NULL, Gemm, NULL, NULL, NULL, napi_enumerable, NULL},
      {"syrk", NULL, Syrk, NULL, NULL, NULL, napi_enumerable, NULL},
      {"trsm", NULL, Trsm, NULL, NULL, NULL, napi_enumerable, NULL},
      {"potrf", NULL, Potrf, NULL, NULL, NULL, napi_enumerable, NULL},
      {"getrfNoPiv", NULL, GetrfNoPiv, NULL, NULL, NULL, napi_enumerable, NULL},
      {"getrf", NULL, Getrf, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setThreads", NULL, SetThreads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"info", NULL, Info, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
