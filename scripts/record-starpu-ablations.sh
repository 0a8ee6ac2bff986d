#!/usr/bin/env bash
# Records test/fixtures/starpu-sirocco/darts-ablations.json (issue 24): StarPU master's DARTS+LUF
# on StarPU's sampled sirocco in SimGrid, tiled Cholesky at N tiles (default 60), with issue 24's
# environment (scripts/record-starpu-sirocco.sh) and then with one setting changed at a time
# (darts.c's STARPU_DARTS_* knobs, the FIFO's STARPU_SCHED_READY, the queue depth and pipeline),
# to learn which of StarPU's mechanisms account for its GFlop/s. Each run's GFlop/s, time and
# bytes per direction come from cholesky_implicit's output and STARPU_BUS_STATS (whose "GB" are
# GiB: converted to bytes). No FxT needed. SimGrid runs are deterministic. Same StarPU build and
# darts.c fixes as record-starpu-sirocco.sh (about 25 s per run at N = 60 on one core):
#   STARPU_SIMGRID_BUILD=... STARPU_SAMPLING=... STARPU_DARTS_FIXED=1 bash scripts/record-starpu-ablations.sh
set -euo pipefail
cd "$(dirname "$0")/.."
S=${STARPU_SIMGRID_BUILD:?set STARPU_SIMGRID_BUILD to a StarPU build configured --enable-simgrid}
P=${STARPU_SAMPLING:?set STARPU_SAMPLING to the sampling folder of StarPU, tools/perfmodels/sampling}
[ "${STARPU_DARTS_FIXED:-}" = 1 ] || { echo "record-starpu-ablations: apply the two darts.c fixes (see record-starpu-sirocco.sh) and set STARPU_DARTS_FIXED=1" >&2; exit 2; }
N=${TILES:-60}
ENV="STARPU_HOSTNAME=sirocco STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_LIMIT_CUDA_MEM=500 STARPU_SIMGRID_CUDA_MALLOC_COST=0 STARPU_MINIMUM_CLEAN_BUFFERS=0 STARPU_TARGET_CLEAN_BUFFERS=0 STARPU_NTASKS_THRESHOLD=30 STARPU_CUDA_PIPELINE=4 STARPU_SCHED_READY=1 STARPU_SCHED=darts"
# One change per line ("" = issue 24's environment as it is).
CHANGES=(
  ""
  "STARPU_DARTS_APP=0"
  "STARPU_DARTS_PRIO=0"
  "STARPU_DARTS_APP=0 STARPU_DARTS_PRIO=0"
  "STARPU_DARTS_DOPT_SELECTION_ORDER=0"
  "STARPU_DARTS_DOPT_SELECTION_ORDER=1"
  "STARPU_DARTS_HIGHEST_PRIORITY_TASK_RETURNED_IN_DEFAULT_CASE=0"
  "STARPU_DARTS_EVICTION_STRATEGY_DARTS=0"
  "STARPU_DARTS_PUSH_FREE_TASK_ON_GPU_WITH_LEAST_TASK_IN_PLANNED_TASK=0"
  "STARPU_DARTS_FREE_PUSHED_TASK_POSITION=0"
  "STARPU_SCHED_READY=0"
  "STARPU_CUDA_PIPELINE=1"
  "STARPU_NTASKS_THRESHOLD=1"
  "STARPU_NTASKS_THRESHOLD=4"
)
out=$(mktemp -d)
i=0
for change in "${CHANGES[@]}"; do
  d=$out/r$i
  mkdir -p "$d/home"
  # shellcheck disable=SC2086 # ENV and change are lists of VAR=value words
  (cd "$S/examples/cholesky" && env $ENV $change STARPU_PERF_MODEL_DIR="$P" STARPU_HOME="$d/home" STARPU_BUS_STATS=1 \
    ./cholesky_implicit -size $((N * 960)) -nblocks "$N" -niter 1 >"$d/stdout" 2>&1)
  printf '%s' "$change" >"$d/change"
  echo "run $i (${change:-as in issue 24}) recorded" >&2
  i=$((i + 1))
done
mkdir -p test/fixtures/starpu-sirocco
OUT="$out" ENV="$ENV" N="$N" node -e '
const fs = require("node:fs");
const GiB = 2 ** 30;
const runs = [];
for (let i = 0; fs.existsSync(`${process.env.OUT}/r${i}`); i++) {
  const dir = `${process.env.OUT}/r${i}`;
  const text = fs.readFileSync(`${dir}/stdout`, "utf8");
  const perf = text.match(/^(\d+)\t(\d+)\t([\d.]+)$/m);
  if (!perf) throw new Error(`no GFlop/s line in run ${i}:\n${text}`);
  const link = (from, to) => {
    const m = text.match(new RegExp(`\\t${from} -> ${to}\\t([\\d.]+) GB`));
    return m ? Math.round(Number(m[1]) * GiB) : 0;
  };
  const gpus = ["CUDA 0", "CUDA 1"];
  runs.push({
    change: fs.readFileSync(`${dir}/change`, "utf8"),
    gflops: Number(perf[3]),
    makespanMs: Number(perf[2]),
    bytesToGpus: gpus.reduce((s, g) => s + link("NUMA 0", g), 0),
    bytesToHost: gpus.reduce((s, g) => s + link(g, "NUMA 0"), 0),
    bytesGpuToGpu: link("CUDA 0", "CUDA 1") + link("CUDA 1", "CUDA 0"),
  });
}
const fixture = {
  what: "StarPU master DARTS+LUF ablations: tiled Cholesky (cholesky_implicit, tiles of 960, single) on StarPU sampled sirocco in SimGrid 3.32, one setting changed per run, recorded by scripts/record-starpu-ablations.sh",
  starpu: "master 3f3cc82a6 with the two darts.c fixes of issue 24, configured --enable-simgrid",
  env: process.env.ENV,
  tiles: Number(process.env.N),
  command: `cholesky_implicit -size ${Number(process.env.N) * 960} -nblocks ${process.env.N} -niter 1`,
  runs,
};
fs.writeFileSync("test/fixtures/starpu-sirocco/darts-ablations.json", JSON.stringify(fixture, null, 1) + "\n");
'
rm -rf "$out"
npx biome format --write test/fixtures/starpu-sirocco/darts-ablations.json >/dev/null
echo "wrote test/fixtures/starpu-sirocco/darts-ablations.json" >&2
