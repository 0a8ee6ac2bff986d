#!/usr/bin/env bash
# Writes test/fixtures/taskbench/deps.txt: Task Bench's own dependency sets (its core library,
# core/core.cc, through scripts/taskbench-deps.cc) for every dependence pattern on a 4 x 4 and
# a 7 x 5 graph (steps x width), which test/taskbench.test.ts compares Locus's taskbench
# workload with. Needs a Task Bench checkout (TASK_BENCH=dir, default ../task-bench) and g++.
#   bash scripts/taskbench-deps.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TB=${TASK_BENCH:-../task-bench}
[ -f "$TB/core/core.cc" ] || { echo "taskbench-deps: no Task Bench checkout at $TB (set TASK_BENCH)" >&2; exit 2; }
make -C "$TB/core" -s >/dev/null
out=$(mktemp -d)
g++ -O1 -std=c++11 scripts/taskbench-deps.cc -I"$TB/core" "$TB/core/libcore.a" -o "$out/deps"
{
  echo "# Task Bench's dependencies (scripts/taskbench-deps.sh): 't x: y...' = point x of timestep t"
  echo "# reads the outputs of points y of timestep t-1."
  for p in trivial no_comm stencil_1d stencil_1d_periodic dom tree fft all_to_all nearest spread random_nearest; do
    for sw in "4 4" "7 5"; do
      set -- $sw
      extra=""
      [ "$p" = spread ] && extra="-period 2"
      echo "## $p steps=$1 width=$2 $extra"
      # shellcheck disable=SC2086
      "$out/deps" -steps "$1" -width "$2" -type "$p" $extra
    done
  done
} > test/fixtures/taskbench/deps.txt
rm -rf "$out"
echo "wrote test/fixtures/taskbench/deps.txt"
