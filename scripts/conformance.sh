#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios against `cordon mcp --http` (the built dist/)
# and compares every scenario's result with test/mcp/conformance/expected.json: any difference fails; then its
# client auth scenarios against cordon's OAuth client for remote upstreams, compared with expected-client.json.
# The suite needs Node 22: it comes from the npm registry (scripts/fetch-node.sh), and the suite is installed
# from test/mcp/conformance/suite/package-lock.json into .conformance/ (ignored by git); a second run reuses both.
# cordon itself runs on this machine's node, as the rest of the tests do.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$here/.conformance"
pinned="$here/test/mcp/conformance/suite"
project_node="$(command -v node)"
cd "$here"

[ -f dist/src/cli/bin.js ] || { echo "conformance: dist/ is not built: run make build first" >&2; exit 1; }
node22="$("$here/scripts/fetch-node.sh" 22)"

mkdir -p "$work"
if ! cmp -s "$pinned/package-lock.json" "$work/package-lock.json" || [ ! -d "$work/node_modules/@modelcontextprotocol/conformance" ]; then
  echo "conformance: installing the suite (test/mcp/conformance/suite/package-lock.json) for Node $("$node22/bin/node" --version)"
  cp "$pinned/package.json" "$pinned/package-lock.json" "$work/"
  # The suite is plain JavaScript: no install scripts run, so nothing needs approving.
  (cd "$work" && PATH="$node22/bin:$PATH" npm ci --no-audit --no-fund --ignore-scripts >/dev/null)
fi
suite=("$node22/bin/node" "$work/node_modules/@modelcontextprotocol/conformance/dist/index.js")
version="$("$node22/bin/node" -p "require('$work/node_modules/@modelcontextprotocol/conformance/package.json').version")"

log="$work/cordon.log"
results="$work/results"
rm -rf "$results" "$log"
# One upstream serves the resources, templates and prompts the suite asks for, by the suite's own names:
# cordon offers them under its namespace (cordon://suite/<uri>, suite__<prompt>), which is what the
# resources and prompts scenarios meet.
upstream="suite=$project_node --import tsx $here/test/mcp/fixtures/resource-server.ts suite"
"$project_node" --no-node-snapshot dist/src/cli/bin.js mcp --http 0 --tools test/mcp/fixtures/gated-tools.ts \
  --upstream "$upstream" 2>"$log" &
cordon=$!
trap 'kill "$cordon" 2>/dev/null || true; wait "$cordon" 2>/dev/null || true' EXIT
url=""
for _ in $(seq 300); do
  url="$(grep -o 'serving on http://[^ ]*/mcp' "$log" | head -1 | cut -d' ' -f3 || true)"
  [ -n "$url" ] && break
  kill -0 "$cordon" 2>/dev/null || { echo "conformance: cordon mcp --http exited before serving:" >&2; cat "$log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "conformance: cordon mcp --http printed no URL within 30 s:" >&2; cat "$log" >&2; exit 1; }

echo "conformance: running the suite's server scenarios (all, pending included) against $url"
"${suite[@]}" list --server >"$work/scenarios.txt"
# The suite exits non-zero when any scenario fails; the expectations, not its exit code, decide.
"${suite[@]}" server --url "$url" --suite all -o "$results" >"$work/suite.log" 2>&1 || true
"$project_node" --import tsx scripts/conformance-compare.ts "$results" "$work/scenarios.txt" "$version" || {
  echo "conformance: the suite's own log is $work/suite.log; its per-scenario checks are under $results/" >&2
  exit 1
}

# The suite's client auth scenarios run against cordon's OAuth client for remote upstreams: for each one the
# suite starts its own MCP server and authorization server, and runs scripts/conformance-client.ts,
# which drives the built `cordon mcp --upstream s=<its URL>` over stdio and opens the authorization URL
# cordon logs as a person's browser would. The results are compared with expected-client.json.
client_results="$work/client-results"
rm -rf "$client_results" "$work/client-suite.log"
"${suite[@]}" list --client | grep -E '^\s*- auth/' >"$work/client-scenarios.txt"
echo "conformance: running the suite's client auth scenarios against cordon mcp --upstream"
harness="$project_node --import tsx $here/scripts/conformance-client.ts"
while read -r _ scenario _; do
  # Each scenario exits non-zero when any check fails; the expectations decide.
  "${suite[@]}" client --command "$harness" --scenario "$scenario" -o "$client_results" \
    >>"$work/client-suite.log" 2>&1 || true
done <"$work/client-scenarios.txt"
"$project_node" --import tsx scripts/conformance-compare.ts "$client_results" "$work/client-scenarios.txt" "$version" client || {
  echo "conformance: the suite's own log is $work/client-suite.log; its per-scenario checks are under $client_results/" >&2
  exit 1
}
