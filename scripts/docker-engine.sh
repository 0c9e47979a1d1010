#!/usr/bin/env bash
# Starts the Docker engines cordon's tests use, installing Debian's docker.io first where dockerd is
# missing: the default engine (/var/run/docker.sock) and, with --second, a second engine with its own
# socket, data root and exec root (CORDON_SECOND_DOCKER_SOCKET), for the tests of several engines.
# Engines that already answer are left as they are. No registry is needed or used.
set -euo pipefail

SECOND_DIR=/run/cordon-docker-2
SECOND_SOCKET=$SECOND_DIR/docker.sock

if ! command -v dockerd >/dev/null 2>&1; then
  echo "docker-engine: installing docker.io (Debian's Docker engine)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi

# start_engine NAME SOCKET LOG [extra dockerd flags...]: starts dockerd unless the socket answers.
start_engine() {
  local name=$1 socket=$2 log=$3
  shift 3
  if docker -H "unix://$socket" info >/dev/null 2>&1; then
    echo "docker-engine: $name engine already running on $socket"
    return
  fi
  echo "docker-engine: starting the $name engine on $socket (log: $log)"
  mkdir -p "$(dirname "$log")"
  # No bridge and no iptables: sandbox containers have no network, and this machine allows none.
  nohup dockerd --bridge=none --iptables=false --ip6tables=false -H "unix://$socket" "$@" >"$log" 2>&1 &
  for _ in $(seq 1 60); do
    if docker -H "unix://$socket" info >/dev/null 2>&1; then
      echo "docker-engine: $name engine ready"
      return
    fi
    sleep 1
  done
  echo "docker-engine: the $name engine did not start within 60 s; its log:" >&2
  tail -n 20 "$log" >&2
  exit 1
}

start_engine default /var/run/docker.sock /var/log/cordon-dockerd.log
if [ "${1:-}" = "--second" ]; then
  mkdir -p "$SECOND_DIR"
  start_engine second "$SECOND_SOCKET" /var/log/cordon-dockerd-2.log \
    --data-root /var/lib/cordon-docker-2 --exec-root "$SECOND_DIR/exec" --pidfile "$SECOND_DIR/docker.pid"
fi
