#!/usr/bin/env bash
# Sets up and runs bench/ts7/ts7.mjs: the type check of bench/typecheck.ts with TypeScript 5's JavaScript
# API (cordon's checker) and with TypeScript 7's native compiler through its `typescript/unstable/sync`
# API, on the same files in the same run. TypeScript 7 is not a dependency of cordon: it is installed
# from the npm registry, at the version pinned below, into .bench-ts7/ (ignored by git; a second run
# reuses it). The checked files are written there from cordon's own modules (bench/ts7/write-inputs.ts,
# run with this checkout's Node and typescript 5), so both compilers read the same text.
set -euo pipefail
TYPESCRIPT7_VERSION=7.0.2
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$here/.bench-ts7"
mkdir -p "$work"
cd "$work"

cat > package.json <<JSON
{
  "name": "cordon-bench-ts7",
  "private": true,
  "type": "module",
  "dependencies": { "typescript": "$TYPESCRIPT7_VERSION" }
}
JSON
if [ "$(node -p "try { require('./node_modules/typescript/package.json').version } catch { '' }")" != "$TYPESCRIPT7_VERSION" ]; then
  echo "bench-ts7: installing typescript@$TYPESCRIPT7_VERSION (the native compiler) into $work"
  npm install --no-audit --no-fund --no-save --yes "typescript@$TYPESCRIPT7_VERSION" >/dev/null
fi
(cd "$here" && node --no-node-snapshot --import tsx bench/ts7/write-inputs.ts "$work")
cp "$here/bench/ts7/ts7.mjs" .
# tsgo prints "context canceled" to stderr when the API closes it; that line is not a failure.
node --no-node-snapshot ts7.mjs "$work" 2> >(grep -v '^context canceled$' >&2)
