#!/usr/bin/env bash
# The runtime matrix: cordon's core (tools, the dispatcher, code mode) with the QuickJS environment on
# Bun, on Deno and in a workerd Worker, each runtime from the npm registry (scripts/fetch-runtime.sh,
# versions pinned in scripts/runtime-matrix.json). Each runs the environment conformance cases
# (test/conformance/cases.ts, the very cases vitest runs on Node against every environment) that apply
# to it, and the checks of test/runtimes/checks.ts: the model's error line in plain JavaScript, the memory
# limit's name, TypeScript and what the model is told about it, JSON Schema tools (each refused with a
# clear message in workerd, where esbuild cannot run and Ajv may not generate code), the Node-only sandbox
# host, and the default environment (in workerd: its message saying how to give QuickJS its wasm). One
# line per case and check, one per case that does not apply there with why (in workerd, the case about
# TypeScript's lines: no esbuild); exit code 1 when any failed. Part of `make test`.
#
# What runs is the built package (dist/), as a user's program gets it: .runtime-matrix/consumer/ is a
# project whose node_modules links this checkout's packages and cordon itself, laid out afresh each run.
#
# Usage: scripts/runtime-matrix.sh [bun|deno|workerd ...]   (default: all three)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$here/.runtime-matrix"
consumer="$work/consumer"
runtimes=("$@")
[ "${#runtimes[@]}" -gt 0 ] || runtimes=(bun deno workerd)

for runtime in "${runtimes[@]}"; do
  case "$runtime" in bun | deno | workerd) ;; *) echo "runtime-matrix: no runtime named $runtime (bun, deno, workerd)" >&2; exit 1 ;; esac
done
[ -f "$here/dist/index.js" ] || { echo "runtime-matrix: dist/ is not built: run make build first" >&2; exit 1; }
[ -d "$here/node_modules/esbuild" ] || { echo "runtime-matrix: node_modules/ is not installed: run make setup first" >&2; exit 1; }

started=$SECONDS
rm -rf "$consumer"
mkdir -p "$consumer/node_modules"
echo '{ "name": "cordon-runtime-matrix", "private": true, "type": "module" }' >"$consumer/package.json"
for entry in "$here"/node_modules/*; do ln -s "$(readlink -f "$entry")" "$consumer/node_modules/$(basename "$entry")"; done
ln -s "$here" "$consumer/node_modules/cordon"
node "$here/scripts/bundle-runtime-checks.mjs" "$consumer"
echo "runtime-matrix: $((SECONDS - started)) s to lay out and bundle (the Worker is $(cat "$consumer/workerd/size.txt") bytes of JavaScript)"

failed=()
# workerd serves while its checks run; it is stopped (by its id) however the script ends.
workerd_pid=
trap '[ -z "$workerd_pid" ] || kill "$workerd_pid" 2>/dev/null || true' EXIT
# Each runs one runtime's checks (its executable is $1), their lines as they come; fails when one failed.
run_bun() { (cd "$consumer" && "$1" check.mjs); }
# Deno runs with the narrowest permissions that work: reading one file, QuickJS's wasm (its loader reads
# it with node:fs), and starting one program, esbuild's binary (it strips TypeScript as a process of its
# own). The environment is allowed whole: esbuild reads ESBUILD_BINARY_PATH and ESBUILD_WORKER_THREADS,
# and Deno's node:child_process reads every variable to hand them to the process it starts (with only
# those two allowed, the spawn fails asking for env access). No network, no writes, no other program.
run_deno() {
  local wasm esbuild
  wasm="$(cd "$consumer" && node -p 'require("node:fs").realpathSync(require.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"))')"
  esbuild="$(cd "$consumer" && node -p 'require("node:fs").realpathSync(require.resolve(`@esbuild/${process.platform}-${process.arch}/bin/esbuild`))')"
  (cd "$consumer" && "$1" run --allow-read="$wasm" --allow-env --allow-run="$esbuild" check.mjs)
}
run_workerd() {
  local binary="$1" port status
  port="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
  "$binary" serve "$consumer/workerd/workerd.capnp" --socket-addr "http=127.0.0.1:$port" >"$work/workerd.log" 2>&1 &
  workerd_pid=$!
  # The checks answer one request; node fetches it once workerd listens (it says so within seconds).
  status=0
  node -e '
    const url = process.argv[1];
    const deadline = Date.now() + 30_000;
    (async () => {
      for (;;) {
        try {
          // The checks take seconds; a Worker that never answers fails the run instead of hanging it.
          const response = await fetch(url, { signal: AbortSignal.timeout(120_000) });
          process.stdout.write(await response.text());
          process.exit(response.status === 200 ? 0 : 1);
        } catch (error) {
          if (error.name === "TimeoutError" || Date.now() > deadline) { console.error(`runtime-matrix: workerd did not answer on ${url}: ${error.message}`); process.exit(1); }
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    })();
  ' "http://127.0.0.1:$port/" || status=$?
  kill "$workerd_pid" 2>/dev/null || true
  wait "$workerd_pid" 2>/dev/null || true
  workerd_pid=
  if [ "$status" -ne 0 ]; then echo "runtime-matrix: workerd's log:" >&2; tail -40 "$work/workerd.log" >&2; fi
  return "$status"
}

summary=()
for runtime in "${runtimes[@]}"; do
  binary="$("$here/scripts/fetch-runtime.sh" "$runtime")"
  version="$("$binary" --version 2>&1 | sed -n 1p)"
  echo "runtime-matrix: $runtime ($version)"
  one_started=$SECONDS
  if "run_$runtime" "$binary"; then status=passed; else status=failed; failed+=("$runtime"); fi
  summary+=("$runtime: $status in $((SECONDS - one_started)) s")
done
for line in "${summary[@]}"; do echo "runtime-matrix: $line"; done
echo "runtime-matrix: $((SECONDS - started)) s in all"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "runtime-matrix: FAILED on ${failed[*]}" >&2
  exit 1
fi
