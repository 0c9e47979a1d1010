#!/usr/bin/env bash
# The Node matrix of `make test`: the security suite, the conformance suite (every environment but Docker,
# see below), the packed-consumer suite and the image's isolated-vm layout on each Node that
# scripts/node-matrix.json pins, with the isolated-vm version pinned beside it, built from source against
# that Node's headers. The machine's own
# Node runs every suite (make unit); this adds the Nodes users run.
#
# Everything is cached under .node-matrix/ (ignored by git), one folder per Node, and a second run reuses it:
#   isolated-vm/  a project that installs only isolated-vm (built with npm_config_nodedir = that Node)
#   tree/         a copy of the sources and tests, whose node_modules links every package of this
#                 checkout's node_modules except isolated-vm, which links the one built above. Node's ESM
#                 and createRequire resolve a package from the real path of the importing file, so only a
#                 copy of the sources (not links to them) finds the right isolated-vm; the copy is made
#                 afresh on every run.
#   install.log, vitest.log
#
# The Docker environment is not run here: its sandboxes run inside the sandbox image, on the Node and the
# isolated-vm that `make image` copied from this machine, whatever Node the agent runs on, so it would test
# none of the pairs this matrix is for (make unit runs it on the machine's Node). The script says so each run.
#
# Usage: scripts/node-matrix.sh [major ...]   (default: every Node of scripts/node-matrix.json not marked pending)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$here/.node-matrix"
pins="$here/scripts/node-matrix.json"
# (and the files of isolated-vm the sandbox image copies, whose layout changed with isolated-vm 6), and
# the OpenAI and AI SDK adapters against both majors of each SDK (the 7s declare Node 22 and later).
suites=(test/security test/conformance test/packed.test.ts test/docker/isolated-vm-files.test.ts
  test/providers/openai.test.ts test/providers/ai-sdk.test.ts)
# What a copy of the checkout needs to run those suites (and `npm pack`, which the packed suite runs).
copied=(package.json README.md tsconfig.json tsconfig.build.json vitest.config.ts dist common scripts src sandbox environments test)

[ -f "$here/dist/index.js" ] || { echo "node-matrix: dist/ is not built: run make build first" >&2; exit 1; }
[ -d "$here/node_modules/vitest" ] || { echo "node-matrix: node_modules/ is not installed: run make setup first" >&2; exit 1; }

# "<node version> <isolated-vm version>" for each pinned Node that make test runs (one marked "pending"
# is left out, and says why), or for the majors asked for, pending or not.
mapfile -t pairs < <(node -e '
  const [pins, ...majors] = process.argv.slice(1);
  for (const { node, isolatedVm, pending } of require(pins).nodes) {
    const asked = majors.includes(node.split(".")[0]);
    if (majors.length === 0 && pending) console.error(`node-matrix: Node ${node} is left out: ${pending}`);
    else if (majors.length === 0 || asked) console.log(`${node} ${isolatedVm}`);
  }
' "$pins" "$@")
[ "${#pairs[@]}" -gt 0 ] || { echo "node-matrix: scripts/node-matrix.json pins none of: $*" >&2; exit 1; }

# Installs the pinned isolated-vm for one Node into $1/isolated-vm, built from source (once per pair).
install_isolated_vm() {
  local dir="$1" node="$2" version="$3" ivm="$4"
  local target="$dir/isolated-vm" stamp="node $version isolated-vm $ivm built from source"
  if [ "$(cat "$target/.installed" 2>/dev/null)" = "$stamp" ]; then return 0; fi
  echo "node-matrix: Node $version: building isolated-vm $ivm from source against its headers (a few minutes, once; log in $dir/install.log)"
  rm -rf "$target"
  mkdir -p "$target"
  cat >"$target/package.json" <<JSON
{ "name": "cordon-node-matrix-isolated-vm", "private": true, "allowScripts": { "isolated-vm": true } }
JSON
  # node-gyp-build loads a prebuilt binary when one matches; npm_config_build_from_source makes it build
  # (npm warns that it does not know the setting: it is node-gyp-build's, read from the environment).
  if ! (cd "$target" && PATH="$node/bin:$PATH" npm_config_nodedir="$node" npm_config_build_from_source=true \
    npm install --no-audit --no-fund --no-save "isolated-vm@$ivm") >"$dir/install.log" 2>&1; then
    tail -20 "$dir/install.log" >&2
    echo "node-matrix: Node $version: installing isolated-vm $ivm failed (log above, whole in $dir/install.log)" >&2
    return 1
  fi
  [ -f "$target/node_modules/isolated-vm/build/Release/isolated_vm.node" ] || {
    echo "node-matrix: Node $version: isolated-vm $ivm installed without building from source" >&2
    return 1
  }
  echo "$stamp" >"$target/.installed"
}

# Lays out $1/tree: a fresh copy of the sources and tests, and node_modules linking this checkout's
# packages with isolated-vm replaced.
lay_out_tree() {
  local dir="$1" tree="$1/tree"
  rm -rf "$tree"
  mkdir -p "$tree/node_modules"
  for path in "${copied[@]}"; do cp -R "$here/$path" "$tree/$path" || return 1; done
  for entry in "$here"/node_modules/* "$here"/node_modules/.bin; do
    ln -s "$(readlink -f "$entry")" "$tree/node_modules/$(basename "$entry")" || return 1
  done
  rm -f "$tree/node_modules/isolated-vm"
  ln -s "$dir/isolated-vm/node_modules/isolated-vm" "$tree/node_modules/isolated-vm"
}

# Prepares one Node: fetches it, builds its isolated-vm, lays out its tree, and checks that what runs is
# what is pinned (the table of tested versions in docs/install.md is made from the pins). Prints that Node's folder.
prepare_node() {
  local version="$1" ivm="$2" dir="$work/$1"
  mkdir -p "$dir"
  # Called as a condition, where set -e does not apply: each step returns on failure by hand.
  local node
  node="$("$here/scripts/fetch-node.sh" "${version%%.*}")" || return 1
  install_isolated_vm "$dir" "$node" "$version" "$ivm" >&2 || return 1
  lay_out_tree "$dir" || return 1
  local ran
  ran="$(cd "$dir/tree" && "$node/bin/node" --no-node-snapshot -e '
    const ivm = require("isolated-vm");
    const isolate = new ivm.Isolate({ memoryLimit: 8 });
    const two = isolate.compileScriptSync("1 + 1").runSync(isolate.createContextSync());
    console.log(`${process.versions.node} ${require("isolated-vm/package.json").version} ${two}`);
  ')" || return 1
  [ "$ran" = "$version $ivm 2" ] || {
    echo "node-matrix: Node $version: expected Node $version with isolated-vm $ivm running 1 + 1 = 2, got \"$ran\"" >&2
    return 1
  }
  echo "$node"
}

# Runs the suites on one prepared Node; "passed|failed <seconds>" goes to its folder's result file.
# One Node after another, two test files at a time: on this project's 2-core machine that took 212 s for
# three Nodes, while all three at once (one file at a time each) took 159 s but starved vitest's own
# messages into a timeout ("Timeout calling onTaskUpdate") that failed a run whose tests all passed.
run_suites() {
  local version="$1" node="$2" dir="$work/$1" started=$SECONDS status=failed
  # CORDON_SKIP_DOCKER leaves out the Docker environment (see above); CORDON_REQUIRE_DOCKER=1, which
  # make unit exports, would contradict it.
  # NO_COLOR: the log is read back below, and colour codes at the start of its lines hid every summary.
  if (cd "$dir/tree" && PATH="$node/bin:$PATH" NO_COLOR=1 CORDON_REQUIRE_DOCKER=0 CORDON_SKIP_DOCKER=1 \
    "$node/bin/node" --no-node-snapshot node_modules/vitest/vitest.mjs run --maxWorkers=2 "${suites[@]}") >"$dir/vitest.log" 2>&1; then
    status=passed
  fi
  echo "$status $((SECONDS - started))" >"$dir/result"
}

# A log as text, without colour codes.
plain() { sed 's/\x1b\[[0-9;]*m//g' "$1"; }

started=$SECONDS
failed=()
ready=()
for pair in "${pairs[@]}"; do
  read -r version ivm <<<"$pair"
  if node="$(prepare_node "$version" "$ivm")"; then
    ready+=("$version $ivm $node")
  else
    failed+=("Node $version (setting up isolated-vm $ivm)")
  fi
done
echo "node-matrix: $((SECONDS - started)) s to prepare; running ${suites[*]} on Node ${ready[*]%% *}" \
  "(every environment but Docker: its containers run the image's Node, see scripts/node-matrix.sh)"
suites_started=$SECONDS
for entry in "${ready[@]}"; do
  read -r version ivm node <<<"$entry"
  rm -f "$work/$version/result"
  run_suites "$version" "$node"
done
for entry in "${ready[@]}"; do
  read -r version ivm node <<<"$entry"
  status=failed seconds=0
  [ -f "$work/$version/result" ] && read -r status seconds <"$work/$version/result"
  log="$work/$version/vitest.log"
  summary="$(plain "$log" | grep -E '^ +(Test Files|Tests|Errors) ' | sed 's/^ *//' | tr -s ' ' | paste -sd ';' || true)"
  echo "node-matrix: Node $version, isolated-vm $ivm: $status in $seconds s: ${summary:-no summary in the log}"
  if [ "$status" != passed ]; then
    # What failed and why: vitest's "Failed Tests" (or suites, or unhandled errors) sections, else the end.
    details="$(plain "$log" | sed -n '/⎯ \(Failed Tests\|Failed Suites\|Unhandled Errors\)/,$p' | head -150)"
    [ -n "$details" ] || details="$(plain "$log" | tail -60)"
    echo "$details" >&2
    failed+=("Node $version with isolated-vm $ivm (log: .node-matrix/$version/vitest.log)")
  fi
done
echo "node-matrix: the suites took $((SECONDS - suites_started)) s, $((SECONDS - started)) s in all"
if [ "${#failed[@]}" -gt 0 ]; then
  for what in "${failed[@]}"; do echo "node-matrix: FAILED on $what" >&2; done
  exit 1
fi
