#!/usr/bin/env bash
# Writes test/fixtures/starpu-rec/starpu-replay.json: StarPU's own replayer (tools/starpu_replay of
# a StarPU build configured --enable-simgrid, STARPU_SIMGRID_BUILD) on the two SimGrid records of
# test/fixtures/starpu-rec (Cholesky on sirocco, dmdar and eager), with the settings that recorded
# them (STARPU_SAMPLING: the sampling of StarPU; STARPU_COMMIT names the source when it is no git checkout), so that bench/replay-starpu.ts puts
# starpu_replay's makespans beside `locus replay`'s. SimGrid's times: deterministic.
#   STARPU_COMMIT=3f3cc82a6 STARPU_SIMGRID_BUILD=/opt/starpu-src/build-simgrid STARPU_SAMPLING=/opt/starpu-src/tools/perfmodels/sampling \
#     bash scripts/record-starpu-replay.sh
set -euo pipefail
cd "$(dirname "$0")/.."
S=${STARPU_SIMGRID_BUILD:?set STARPU_SIMGRID_BUILD to a StarPU build configured --enable-simgrid}
[ -x "$S/tools/starpu_replay" ] || { echo "record-starpu-replay: no $S/tools/starpu_replay" >&2; exit 2; }
: "${STARPU_SAMPLING:?set STARPU_SAMPLING to the tools/perfmodels/sampling of StarPU}"
commit=${STARPU_COMMIT:-$(git -C "$S/.." rev-parse --short=9 HEAD 2>/dev/null || echo unknown)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=()
for sched in dmdar eager; do
  zcat "test/fixtures/starpu-rec/cholesky-simgrid-sirocco-$sched.rec.gz" > "$tmp/$sched.rec"
  line=$(cd "$tmp" && STARPU_PERF_MODEL_DIR=$STARPU_SAMPLING STARPU_HOSTNAME=sirocco STARPU_HOME=$tmp/home \
    STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_LIMIT_CUDA_MEM=500 STARPU_SIMGRID_CUDA_MALLOC_COST=0 \
    STARPU_SCHED=$sched STARPU_SILENT=1 "$S/tools/starpu_replay" "$tmp/$sched.rec" 2>/dev/null | grep -E '^[0-9.]+ ms' | tail -1)
  out+=("$sched" "${line%% ms*}")
done
node -e '
const [commit, simgrid, ...pairs] = process.argv.slice(1);
const runs = [];
for (let i = 0; i < pairs.length; i += 2)
  runs.push({ record: `cholesky-simgrid-sirocco-${pairs[i]}`, scheduler: pairs[i], makespanMs: Number(pairs[i + 1]) });
const settings = "STARPU_HOSTNAME=sirocco STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_LIMIT_CUDA_MEM=500 STARPU_SIMGRID_CUDA_MALLOC_COST=0";
process.stdout.write(JSON.stringify({ tool: "starpu_replay", starpuCommit: commit, simgrid, settings, runs }, null, 1) + "\n");
' "$commit" "$(pkg-config --modversion simgrid 2>/dev/null || echo unknown)" "${out[@]}" > test/fixtures/starpu-rec/starpu-replay.json
npx biome format --write test/fixtures/starpu-rec/starpu-replay.json >/dev/null
echo "wrote test/fixtures/starpu-rec/starpu-replay.json"
