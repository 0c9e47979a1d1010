#!/usr/bin/env bash
# Starts the Postgres server cordon's tests and benchmarks use (the Postgres journal of durable runs),
# installing Debian's postgresql package first where it is missing. The server is a cluster of its own:
# its data in /var/lib/cordon-postgres (owned by the postgres user), listening on 127.0.0.1:54329 and on
# a unix socket in /run/cordon-postgres only, with a role and database `cordon` for the tests. A server
# that already answers is left as it is. Prints the URL the tests use (they read CORDON_POSTGRES_URL, and
# this URL when it is unset). Installs iproute2 too where `ip` is missing: the fleet test's workers reach
# this server from network namespaces, through a relay the test runs (the server stays on 127.0.0.1).
# Only Debian's mirror is needed.
set -euo pipefail

DATA=/var/lib/cordon-postgres
SOCKET_DIR=/run/cordon-postgres
PORT=54329
LOG=/var/log/cordon-postgres.log
URL="postgres://cordon:cordon@127.0.0.1:$PORT/cordon"

# The newest installed server's programs (Debian keeps each major in /usr/lib/postgresql/<major>/bin).
server_bin() {
  find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1
}

if [ -z "$(server_bin)" ] || [ ! -x "$(server_bin)/initdb" ]; then
  echo "postgres: installing postgresql (Debian's Postgres server)"
  apt-get update -qq
  # The package makes a cluster of its own (main, port 5432): not the one started here.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
BIN=$(server_bin)

# The fleet test (test/durable/fleet.test.ts) runs its workers in network namespaces: iproute2's ip.
if ! command -v ip >/dev/null 2>&1; then
  echo "postgres: installing iproute2 (ip netns, for the fleet test's hosts)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null
fi
as_postgres() { runuser -u postgres -- "$@"; }

# The socket directory is in /run, which a reboot empties: made on every start.
mkdir -p "$SOCKET_DIR"
chown postgres:postgres "$SOCKET_DIR"

if [ ! -s "$DATA/PG_VERSION" ]; then
  echo "postgres: creating the cluster in $DATA"
  mkdir -p "$DATA"
  chown postgres:postgres "$DATA"
  chmod 700 "$DATA"
  as_postgres "$BIN/initdb" -D "$DATA" -U postgres -E UTF8 --locale=C \
    --auth-local=peer --auth-host=scram-sha-256 >/dev/null
  # Local only, and durable: a commit returns once its WAL is flushed (the journal's promise).
  cat >>"$DATA/postgresql.conf" <<EOF

# cordon (scripts/postgres.sh)
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$SOCKET_DIR'
fsync = on
synchronous_commit = on
max_connections = 200
EOF
fi

if as_postgres "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  echo "postgres: already running on 127.0.0.1:$PORT"
else
  echo "postgres: starting the server on 127.0.0.1:$PORT (log: $LOG)"
  touch "$LOG"
  chown postgres:postgres "$LOG"
  if ! as_postgres "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start >/dev/null; then
    echo "postgres: the server did not start within 60 s; its log:" >&2
    tail -n 20 "$LOG" >&2
    exit 1
  fi
  echo "postgres: server ready"
fi

# The tests' role and database, made once (CREATEDB: engines such as DBOS make their own databases).
as_postgres "$BIN/psql" -h "$SOCKET_DIR" -p "$PORT" -d postgres -v ON_ERROR_STOP=1 -q <<'SQL'
SELECT 'CREATE ROLE cordon LOGIN CREATEDB PASSWORD ''cordon'''
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'cordon') \gexec
SELECT 'CREATE DATABASE cordon OWNER cordon'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'cordon') \gexec
SQL
echo "postgres: $URL"
