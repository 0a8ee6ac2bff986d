#!/usr/bin/env bash
# The device check (docs/device-check.md): on a machine with a GPU and no package registry,
# unpacks what the session carried (.gl: the Vulkan loader's .debs; .device/node.xz: a Node
# binary; .device/nm.tar.xz: the runtime's node_modules) where the machine lacks them, then
# runs scripts/device-check.mjs, which writes one JSON ($OUT/device-check.json). Arguments go
# to device-check.mjs (--quick: lavapipe-sized steps).
set -uo pipefail
cd "$(dirname "$0")/.."
unxz_to() { # file.xz dest
  if command -v xz >/dev/null; then xz -dc "$1" >"$2"; else
    python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$1" "$2"; fi
}
if [ -d .gl ] && ! ldconfig -p | grep -q libvulkan.so.1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nv_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$nv_icd" ]; then export VK_DRIVER_FILES="$nv_icd"; fi
if ! command -v node >/dev/null && [ -f .device/node.xz ]; then
  mkdir -p /tmp/locus-node/bin
  unxz_to .device/node.xz /tmp/locus-node/bin/node && chmod +x /tmp/locus-node/bin/node
  export PATH="/tmp/locus-node/bin:$PATH"
fi
if [ ! -d node_modules ] && [ -f .device/nm.tar.xz ]; then
  unxz_to .device/nm.tar.xz /tmp/locus-nm.tar && tar -xf /tmp/locus-nm.tar && rm -f /tmp/locus-nm.tar
fi
if ! command -v node >/dev/null; then echo "device-check: no node on the PATH and no .device/node.xz to unpack" >&2; exit 2; fi
if [ ! -f dist/index.js ]; then echo "device-check: dist/ is not built: run npm run build (and carry dist)" >&2; exit 2; fi
command -v nvidia-smi >/dev/null && nvidia-smi -L
exec node scripts/device-check.mjs "$@"
