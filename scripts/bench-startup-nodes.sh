#!/usr/bin/env bash
# Times `cordon run` of the shop example (bench/startup.ts) on each Node that scripts/node-matrix.json
# pins, each in the tree `make node-matrix` laid out for it (.node-matrix/<version>/tree: this checkout's
# package with node_modules linking its packages and isolated-vm built for that Node). The tree's dist/
# and examples/ are refreshed from this checkout first, so the figures are of the code as built now.
# Usage: scripts/bench-startup-nodes.sh [major ...]   (make bench-startup-nodes: every pinned Node)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
pins="$here/scripts/node-matrix.json"

[ -f "$here/dist/src/cli/bin.js" ] || { echo "bench-startup-nodes: dist/ is not built: run make build first" >&2; exit 1; }

mapfile -t versions < <(node -e '
  const [pins, ...majors] = process.argv.slice(1);
  for (const { node, pending } of require(pins).nodes) {
    if (!pending && (majors.length === 0 || majors.includes(node.split(".")[0]))) console.log(node);
  }
' "$pins" "$@")
[ "${#versions[@]}" -gt 0 ] || { echo "bench-startup-nodes: scripts/node-matrix.json pins none of: $*" >&2; exit 1; }

for version in "${versions[@]}"; do
  tree="$here/.node-matrix/$version/tree"
  [ -d "$tree/node_modules" ] || {
    echo "bench-startup-nodes: no tree for Node $version in .node-matrix/: run make node-matrix first" >&2
    exit 1
  }
  rm -rf "$tree/dist" "$tree/examples"
  cp -R "$here/dist" "$tree/dist"
  cp -R "$here/examples" "$tree/examples"
  node_dir="$("$here/scripts/fetch-node.sh" "${version%%.*}")"
  (cd "$here" && CORDON_BENCH_NODE="$node_dir/bin/node" CORDON_BENCH_TREE="$tree" \
    TSX_TSCONFIG_PATH=tsconfig.build.json node --no-node-snapshot --import tsx bench/startup.ts)
done
