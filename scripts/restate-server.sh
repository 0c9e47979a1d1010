#!/usr/bin/env bash
# Starts the Restate server cordon's Restate tests use, fetching it first from the npm registry (the
# @restatedev/restate-server-linux-<arch> package that @restatedev/restate-server installs, at the version
# pinned below) into .restate/ (ignored by git). It listens on 127.0.0.1 only, on ports of its own (not
# Restate's defaults, so a developer's own server can run beside it), with its data, config and log in
# .restate/. A server of ours that already answers is left as it is. Prints the two addresses it serves.
# Usage: scripts/restate-server.sh [start|stop]
# Ports: CORDON_RESTATE_INGRESS_PORT (18080), CORDON_RESTATE_ADMIN_PORT (19070), CORDON_RESTATE_NODE_PORT (15122).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
version=1.7.12
work="$here/.restate"
ingress_port="${CORDON_RESTATE_INGRESS_PORT:-18080}"
admin_port="${CORDON_RESTATE_ADMIN_PORT:-19070}"
node_port="${CORDON_RESTATE_NODE_PORT:-15122}"
# The cluster name tells our server from another Restate server on the same port.
cluster=cordon-tests
admin="http://127.0.0.1:$admin_port"
ingress="http://127.0.0.1:$ingress_port"
pidfile="$work/server.pid"
log="$work/server.log"

ours_answers() {
  curl -sf --max-time 2 "$admin/cluster-health" 2>/dev/null | grep -q "\"cluster_name\":\"$cluster\"" &&
    curl -sf --max-time 2 "$ingress/restate/health" >/dev/null 2>&1
}

stop_server() {
  local pid
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
    echo "restate-server: not running"
    rm -f "$pidfile"
    return
  fi
  kill "$pid"
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  rm -f "$pidfile"
  echo "restate-server: stopped"
}

case "${1:-start}" in
  start) ;;
  stop) stop_server; exit 0 ;;
  *) echo "usage: scripts/restate-server.sh [start|stop]" >&2; exit 2 ;;
esac

if ours_answers; then
  echo "restate-server: already running (ingress $ingress, admin $admin)"
  exit 0
fi
if curl -s --max-time 2 "$admin/health" >/dev/null 2>&1; then
  echo "restate-server: another server answers on $admin (not cluster $cluster): stop it, or set CORDON_RESTATE_ADMIN_PORT and CORDON_RESTATE_INGRESS_PORT to free ports" >&2
  exit 1
fi

case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "restate-server: no Restate server package on the npm registry for this machine ($(uname -m))" >&2; exit 1 ;;
esac
package="@restatedev/restate-server-linux-$arch@$version"
dir="$work/restate-server-$version-linux-$arch"
bin="$dir/bin/restate-server"

mkdir -p "$work"
if [ ! -x "$bin" ]; then
  echo "restate-server: fetching $package from the npm registry"
  # Unpacked beside the cache and moved in whole, so an interrupted fetch leaves nothing half there.
  staging="$(mktemp -d "$work/.fetch.XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  tarball="$(cd "$staging" && npm pack --silent "$package")"
  tar xzf "$staging/$tarball" -C "$staging"
  rm -rf "$dir"
  mv "$staging/package" "$dir"
fi
actual="$("$bin" --version 2>/dev/null)" || { echo "restate-server: $bin does not run on this machine" >&2; exit 1; }
[ "$actual" = "restate-server $version" ] || { echo "restate-server: $bin is $actual, not $version: delete $dir and run again" >&2; exit 1; }

# Every listener on 127.0.0.1; no telemetry; a small footprint (the machine is shared).
cat >"$work/config.toml" <<EOF
node-name = "cordon"
cluster-name = "$cluster"
disable-telemetry = true
default-num-partitions = 4
rocksdb-total-memory-size = "256 MiB"
log-disable-ansi-codes = true
bind-address = "127.0.0.1:$node_port"
advertised-address = "http://127.0.0.1:$node_port/"

[admin]
bind-address = "127.0.0.1:$admin_port"

[ingress]
bind-address = "127.0.0.1:$ingress_port"
EOF

echo "restate-server: starting Restate $version (data: $work/data, log: $log)"
# A clean environment: RESTATE_* variables of the caller's shell would override the config.
env -i PATH=/usr/bin:/bin HOME="$work" nohup setsid "$bin" --config-file "$work/config.toml" \
  --base-dir "$work/data" --listen-mode tcp --no-logo >"$log" 2>&1 &
pid=$!
echo "$pid" >"$pidfile"
for _ in $(seq 1 600); do
  if ours_answers; then
    echo "restate-server: ready (ingress $ingress, admin $admin)"
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || { echo "restate-server: the server exited; its log:" >&2; tail -n 30 "$log" >&2; exit 1; }
  sleep 0.1
done
echo "restate-server: the server did not answer within 60 s; its log:" >&2
tail -n 30 "$log" >&2
exit 1
