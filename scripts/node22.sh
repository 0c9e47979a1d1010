#!/usr/bin/env bash
# Prints the directory of a Node 22 taken from the npm registry (the node-linux-<arch> package, which also
# carries the headers native addons build against), fetching it into .node22/ (ignored by git) on first use.
# For the tools that need Node 22 while the project runs on Node 20: bench-peers.sh, conformance.sh.
# Usage: node22="$(scripts/node22.sh)"; PATH="$node22/bin:$PATH" ...
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="$here/.node22"

case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node22: no Node 22 package on the npm registry for this machine ($(uname -m)); install Node 22 by hand" >&2; exit 1 ;;
esac
dir="$cache/$arch/package"

if [ ! -x "$dir/bin/node" ]; then
  echo "node22: fetching Node 22 from the npm registry (node-linux-$arch@22)" >&2
  mkdir -p "$cache"
  # Unpacked beside the cache and moved in whole, so an interrupted fetch leaves nothing half there.
  staging="$(mktemp -d "$cache/.fetch.XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  tarball="$(cd "$staging" && npm pack --silent "node-linux-$arch@22")"
  tar xzf "$staging/$tarball" -C "$staging"
  rm -rf "${cache:?}/$arch"
  mkdir -p "$cache/$arch"
  mv "$staging/package" "$dir"
fi
"$dir/bin/node" --version >/dev/null || { echo "node22: $dir/bin/node does not run on this machine" >&2; exit 1; }
echo "$dir"
