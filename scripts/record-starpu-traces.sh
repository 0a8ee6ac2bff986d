#!/usr/bin/env bash
# Records the StarPU task records of test/fixtures/starpu-rec (see the README there): StarPU's
# Cholesky, LU and SGEMM examples run CPU-only on 2 workers under dmdar, their performance
# models calibrated by 4 untraced runs first, then one run with FxT, whose trace starpu_fxt_tool
# turns into tasks.rec, gzipped into the fixture folder. Run it on a quiet machine: the records
# hold the measured times. Needs a StarPU build configured --with-fxt (STARPU_BUILD, default
# ../starpu/build-fxt; its examples and tools built).
#   bash scripts/record-starpu-traces.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B=${STARPU_BUILD:-../starpu/build-fxt}
[ -x "$B/tools/.libs/starpu_fxt_tool" ] || { echo "record-starpu-traces: no FxT build of StarPU at $B (set STARPU_BUILD)" >&2; exit 2; }
out=$(mktemp -d)
export STARPU_HOME=$out/home STARPU_NCPU=2 STARPU_NCUDA=0 STARPU_NOPENCL=0 OPENBLAS_NUM_THREADS=1 STARPU_SCHED=dmdar STARPU_SILENT=1
record() { # fixture-name example-dir example args...
  local name=$1 dir=$2 ex=$3; shift 3
  for _ in 1 2 3 4; do (cd "$B/examples/$dir" && "./$ex" "$@" >/dev/null); done
  mkdir -p "$out/$name"
  (cd "$B/examples/$dir" && STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$out/$name/" "./$ex" "$@" >/dev/null)
  (cd "$out/$name" && LD_LIBRARY_PATH="$B/src/.libs" "$B/tools/.libs/starpu_fxt_tool" -i prof_file_0 -o paje.trace >/dev/null)
  gzip -9 -c "$out/$name/tasks.rec" > "test/fixtures/starpu-rec/$name.rec.gz"
  echo "wrote test/fixtures/starpu-rec/$name.rec.gz"
}
record cholesky-cpu2-dmdar cholesky cholesky_implicit -size 3840 -nblocks 12
record lu-cpu2-dmdar lu lu_implicit_example_float -size 3072 -nblocks 8
record sgemm-cpu2-dmdar mult sgemm -x 2048 -y 2048 -z 2048 -nblocks 4 -iter 1
# StarPU's SimGrid mode on its sampled sirocco (2 GPUs capped at 500 MiB), when a SimGrid build
# is given (STARPU_SIMGRID_BUILD, configured --enable-simgrid --with-fxt) with StarPU's sampling
# (STARPU_SAMPLING, its tools/perfmodels/sampling).
if [ -n "${STARPU_SIMGRID_BUILD:-}" ]; then
  S=$STARPU_SIMGRID_BUILD
  for sched in dmdar eager; do
    d=$out/sg-$sched
    mkdir -p "$d"
    (cd "$S/examples/cholesky" && STARPU_PERF_MODEL_DIR=${STARPU_SAMPLING:?set STARPU_SAMPLING} STARPU_HOSTNAME=sirocco \
      STARPU_HOME=$d/home STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_LIMIT_CUDA_MEM=500 STARPU_SIMGRID_CUDA_MALLOC_COST=0 \
      STARPU_SCHED=$sched STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$d/" ./cholesky_implicit -size 9600 -nblocks 10 >/dev/null)
    (cd "$d" && LD_LIBRARY_PATH="$S/src/.libs" "$S/tools/.libs/starpu_fxt_tool" -i prof_file_0 -o paje.trace >/dev/null)
    gzip -9 -c "$d/tasks.rec" > "test/fixtures/starpu-rec/cholesky-simgrid-sirocco-$sched.rec.gz"
    echo "wrote test/fixtures/starpu-rec/cholesky-simgrid-sirocco-$sched.rec.gz"
  done
fi
rm -rf "$out"
