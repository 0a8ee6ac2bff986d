#!/usr/bin/env bash
# Records test/fixtures/starpu-sirocco/darts-cholesky.json (issue 24): StarPU master's DARTS+LUF
# (STARPU_SCHED=darts, its LUF victim selector) on StarPU's sampled sirocco in SimGrid, tiled
# Cholesky (examples/cholesky/cholesky_implicit, tiles of 960) at N = 30, 40, 50, 60, 80 tiles,
# with FxT; each run's figures and trace statistics (bench/sirocco/starpu-stats.ts) go into the
# fixture with the command and settings. SimGrid runs are deterministic: the machine's load does
# not change them. Needs a StarPU build configured --enable-simgrid --with-fxt (STARPU_SIMGRID_BUILD,
# its src, tools and examples/cholesky/cholesky_implicit built) and StarPU's sampling
# (STARPU_SAMPLING, its tools/perfmodels/sampling). StarPU master 3f3cc82a6 needs two one-line
# fixes to src/sched_policies/darts.c to run this (a NULL guard on returned_handle->sched_data in
# darts_victim_selector, and the GPU index x instead of i passed to
# push_data_not_used_yet_random_spot); STARPU_DARTS_FIXED=1 says they are applied.
#   STARPU_SIMGRID_BUILD=... STARPU_SAMPLING=... STARPU_DARTS_FIXED=1 bash scripts/record-starpu-sirocco.sh
set -euo pipefail
cd "$(dirname "$0")/.."
S=${STARPU_SIMGRID_BUILD:?set STARPU_SIMGRID_BUILD to a StarPU build configured --enable-simgrid --with-fxt}
P=${STARPU_SAMPLING:?set STARPU_SAMPLING to the sampling folder of StarPU, tools/perfmodels/sampling}
[ "${STARPU_DARTS_FIXED:-}" = 1 ] || { echo "record-starpu-sirocco: apply the two darts.c fixes (see the header) and set STARPU_DARTS_FIXED=1" >&2; exit 2; }
[ -x "$S/examples/cholesky/cholesky_implicit" ] || { echo "record-starpu-sirocco: no $S/examples/cholesky/cholesky_implicit" >&2; exit 2; }
ENV="STARPU_HOSTNAME=sirocco STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_LIMIT_CUDA_MEM=500 STARPU_SIMGRID_CUDA_MALLOC_COST=0 STARPU_MINIMUM_CLEAN_BUFFERS=0 STARPU_TARGET_CLEAN_BUFFERS=0 STARPU_NTASKS_THRESHOLD=30 STARPU_CUDA_PIPELINE=4 STARPU_SCHED_READY=1 STARPU_SCHED=darts"
out=$(mktemp -d)
for n in ${SIZES:-30 40 50 60 80}; do
  d=$out/n$n
  mkdir -p "$d"
  (cd "$S/examples/cholesky" && env $ENV STARPU_PERF_MODEL_DIR="$P" STARPU_HOME="$d/home" STARPU_BUS_STATS=1 \
    STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$d/" ./cholesky_implicit -size $((n * 960)) -nblocks "$n" -niter 1 >"$d/stdout" 2>&1)
  (cd "$d" && LD_LIBRARY_PATH="$S/src/.libs" "$S/tools/.libs/starpu_fxt_tool" -i prof_file_0 -o paje.trace >/dev/null 2>&1)
  node --import tsx bench/sirocco/starpu-stats.ts "$d" "$d/stdout" > "$out/$n.json"
  echo "N = $n recorded" >&2
  rm -rf "$d"
done
mkdir -p test/fixtures/starpu-sirocco
OUT="$out" ENV="$ENV" node -e '
const fs = require("node:fs");
const runs = {};
for (const f of fs.readdirSync(process.env.OUT).filter((f) => f.endsWith(".json")).sort((a, b) => parseInt(a) - parseInt(b)))
  runs[parseInt(f)] = JSON.parse(fs.readFileSync(process.env.OUT + "/" + f, "utf8"));
const fixture = {
  what: "StarPU master DARTS+LUF, tiled Cholesky (cholesky_implicit, tiles of 960, single) on StarPU sampled sirocco in SimGrid 3.32, recorded by scripts/record-starpu-sirocco.sh",
  starpu: "master 3f3cc82a6 with the two darts.c fixes of issue 24, configured --enable-simgrid --with-fxt",
  env: process.env.ENV,
  command: "cholesky_implicit -size N*960 -nblocks N -niter 1",
  runs,
};
fs.writeFileSync("test/fixtures/starpu-sirocco/darts-cholesky.json", JSON.stringify(fixture, null, 1) + "\n");
'
rm -rf "$out"
# The repository's formatter (npm run lint checks the fixture too).
npx biome format --write test/fixtures/starpu-sirocco/darts-cholesky.json >/dev/null
echo "wrote test/fixtures/starpu-sirocco/darts-cholesky.json" >&2
