#!/usr/bin/env bash
# Prints the directory of a Node taken from the npm registry (the node-linux-<arch> package, which also
# carries the headers native addons build against), fetching it into .nodes/ (ignored by git) on first use.
# The argument is a major (22, 24, 26): the exact version is the one scripts/node-matrix.json pins, so
# every tool that asks for Node 22 (bench-peers.sh, conformance.sh, node-matrix.sh) gets the same one.
# Usage: node22="$(scripts/fetch-node.sh 22)"; PATH="$node22/bin:$PATH" ...
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
major="${1:?usage: scripts/fetch-node.sh <major>, one of those scripts/node-matrix.json pins}"
pins="$here/scripts/node-matrix.json"

version="$(node -e '
  const [pins, major] = process.argv.slice(1);
  const pin = require(pins).nodes.find((entry) => entry.node.split(".")[0] === major);
  if (pin) console.log(pin.node);
' "$pins" "$major")"
[ -n "$version" ] || { echo "fetch-node: scripts/node-matrix.json pins no Node $major; add it there" >&2; exit 1; }

case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "fetch-node: no Node package on the npm registry for this machine ($(uname -m)); install Node $version by hand" >&2; exit 1 ;;
esac
cache="$here/.nodes"
dir="$cache/node-v$version-linux-$arch"

if [ ! -x "$dir/bin/node" ]; then
  echo "fetch-node: fetching Node $version from the npm registry (node-linux-$arch@$version)" >&2
  mkdir -p "$cache"
  # Unpacked beside the cache and moved in whole, so an interrupted fetch leaves nothing half there.
  staging="$(mktemp -d "$cache/.fetch.XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  tarball="$(cd "$staging" && npm pack --silent "node-linux-$arch@$version")"
  tar xzf "$staging/$tarball" -C "$staging"
  rm -rf "$dir"
  mv "$staging/package" "$dir"
fi
actual="$("$dir/bin/node" --version)" || { echo "fetch-node: $dir/bin/node does not run on this machine" >&2; exit 1; }
[ "$actual" = "v$version" ] || { echo "fetch-node: $dir/bin/node is $actual, not v$version: delete $dir and run again" >&2; exit 1; }
echo "$dir"
