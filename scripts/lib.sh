#!/usr/bin/env bash
# Shared helpers for the operator scripts. Source it; do not run it.
#   ensure_postgres   make a local PostgreSQL with role/database "signet" usable, export DATABASE_URL
#   stop_services     stop the signet-api / signet-worker started by scripts/up.sh
#   pip_install       install Python packages from PyPI
#   start_moto        start moto's S3 server for this script's lifetime
#   ensure_promtool   install promtool (Debian's prometheus package, its server not started)
#   install_pgbouncer install Debian's PgBouncer, leaving its system service stopped
#   start_pgbouncer   start a PgBouncer in front of DATABASE_URL's server for this script's lifetime
set -euo pipefail

SIGNET_DB_URL="postgres://signet:signet@127.0.0.1:5432/signet"
PG_SOCKET_DIR="/var/run/postgresql"

log() { echo "==> $*" >&2; }
die() { echo "error: $*" >&2; exit 1; }

# Run a command as root (directly, or through sudo).
as_root() {
    if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# Run a command as the postgres OS user, from a directory it can read.
as_postgres() {
    if [[ $EUID -eq 0 ]]; then
        (cd / && runuser -u postgres -- "$@")
    else
        (cd / && sudo -u postgres "$@")
    fi
}

# pip install, where the system Python allows it or (Debian 12+) where it must be told to.
pip_install() {
    python3 -m pip install --quiet "$@" >&2 ||
        python3 -m pip install --quiet --break-system-packages "$@" >&2
}

# moto's S3 server on a free loopback port until this script exits, its URL exported as
# SIGNET_TEST_S3_ENDPOINT (left as it is when already set).
start_moto() {
    [[ -n "${SIGNET_TEST_S3_ENDPOINT:-}" ]] && return
    moto_log=$(mktemp)
    moto_server -H 127.0.0.1 -p 0 2>"$moto_log" >/dev/null &
    moto_pid=$!
    at_exit 'kill "$moto_pid" 2>/dev/null || true; rm -f "$moto_log"'
    for _ in $(seq 1 100); do
        SIGNET_TEST_S3_ENDPOINT=$(sed -n 's/.*Running on \(http[^ ]*\).*/\1/p' "$moto_log" | head -n 1)
        [[ -n "$SIGNET_TEST_S3_ENDPOINT" ]] && break
        sleep 0.1
    done
    [[ -n "$SIGNET_TEST_S3_ENDPOINT" ]] || die "moto_server did not start: $(cat "$moto_log")"
    export SIGNET_TEST_S3_ENDPOINT
    log "S3 server (moto) at $SIGNET_TEST_S3_ENDPOINT"
}

# Commands run when the script exits, in order (one EXIT trap for all of them).
EXIT_COMMANDS=()
at_exit() {
    EXIT_COMMANDS+=("$1")
    trap 'for c in "${EXIT_COMMANDS[@]}"; do eval "$c"; done' EXIT
}

# Debian's PgBouncer (1.18 on bookworm). The tests start PgBouncers of their own (own port, ini
# and user list); the package's service, which a fresh install may start on port 6432, is
# stopped and disabled.
install_pgbouncer() {
    [[ -x /usr/sbin/pgbouncer ]] && return
    apt_install pgbouncer
    if command -v systemctl >/dev/null && [[ -d /run/systemd/system ]]; then
        as_root systemctl disable --now pgbouncer >&2 || true
    else
        as_root service pgbouncer stop >&2 2>/dev/null || true
    fi
}

# A PgBouncer in session mode in front of DATABASE_URL's server, on a free loopback port, as
# the postgres OS user when run as root, until this script exits; its port exported as
# SIGNET_TEST_PGBOUNCER_PORT, which makes the test support route every database URL the
# applications under test get (not the tests' own connections) through it.
start_pgbouncer() {
    install_pgbouncer
    local dir user password host port listen
    dir=$(mktemp -d /tmp/signet-pgbouncer-XXXXXX)
    user=$(python3 -c 'import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).username or "postgres")' "$DATABASE_URL")
    password=$(python3 -c 'import sys, urllib.parse as u; print(u.unquote(u.urlsplit(sys.argv[1]).password or ""))' "$DATABASE_URL")
    host=$(python3 -c 'import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).hostname or "127.0.0.1")' "$DATABASE_URL")
    port=$(python3 -c 'import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).port or 5432)' "$DATABASE_URL")
    listen=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    printf '"%s" "%s"\n' "$user" "$password" >"$dir/userlist.txt"
    cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$host port=$port
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $listen
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = session
default_pool_size = 20
max_client_conn = 5000
ignore_startup_parameters = extra_float_digits
server_idle_timeout = 10
logfile = $dir/pgbouncer.log
INI
    chmod 600 "$dir/userlist.txt"
    if [[ $EUID -eq 0 ]]; then
        chown -R postgres:postgres "$dir"
        runuser -u postgres -- /usr/sbin/pgbouncer "$dir/pgbouncer.ini" >/dev/null 2>&1 &
    else
        /usr/sbin/pgbouncer "$dir/pgbouncer.ini" >/dev/null 2>&1 &
    fi
    pgbouncer_pid=$!
    at_exit 'pkill -TERM -P "$pgbouncer_pid" 2>/dev/null; kill "$pgbouncer_pid" 2>/dev/null || true'
    for _ in $(seq 1 100); do
        (echo >"/dev/tcp/127.0.0.1/$listen") 2>/dev/null && break
        sleep 0.1
    done
    export SIGNET_TEST_PGBOUNCER_PORT=$listen
    log "PgBouncer (session pooling) on 127.0.0.1:$listen in front of $host:$port; log $dir/pgbouncer.log"
}

apt_install() {
    command -v apt-get >/dev/null || die "apt-get not found; install PostgreSQL yourself and set DATABASE_URL"
    log "installing $* with apt-get"
    as_root apt-get update >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >&2
}

# promtool, from Debian's prometheus package (the only one that ships it), for the checks of
# deploy/observability/prometheus. The package's maintainer script starts a Prometheus server
# through invoke-rc.d on machines without systemd; a policy-rc.d that refuses every start stops
# that (one already there, as in container images, is kept and left alone). Without
# recommends: no node exporter either. On systemd machines the unit is enabled by the package
# and stopped and disabled here.
ensure_promtool() {
    command -v promtool >/dev/null && return
    local policy=/usr/sbin/policy-rc.d made_policy=
    if [[ ! -e "$policy" ]]; then
        printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
        as_root chmod 755 "$policy"
        made_policy=1
    fi
    local status=0
    apt_install --no-install-recommends prometheus || status=$?
    if [[ -n "$made_policy" ]]; then
        as_root rm -f "$policy"
    fi
    [[ $status -eq 0 ]] || die "installing prometheus (for promtool) failed"
    if [[ -d /run/systemd/system ]]; then
        as_root systemctl disable --now prometheus >/dev/null 2>&1 || true
    fi
    command -v promtool >/dev/null || die "the prometheus package did not install promtool"
}

pg_answers() {
    command -v pg_isready >/dev/null && pg_isready -q -h 127.0.0.1 -p 5432
}

# psql as the PostgreSQL superuser on the local server: over TCP as "postgres" (works with trust
# auth), else as the postgres OS user over the Unix socket (works with Debian's default peer auth).
# Connects to database postgres; a -d among the arguments overrides that.
pg_super() {
    if psql -X -w -q -h 127.0.0.1 -p 5432 -U postgres -d postgres -c 'select 1' >/dev/null 2>&1; then
        psql -X -w -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p 5432 -U postgres -d postgres "$@"
    else
        as_postgres psql -X -w -q -v ON_ERROR_STOP=1 -h "$PG_SOCKET_DIR" -p 5432 -d postgres "$@"
    fi
}

# Start a local PostgreSQL on port 5432: install it if missing, create a cluster if there is none,
# start the clusters on port 5432 that are down, then wait until it answers.
start_local_postgres() {
    local version name waited=0
    if ! command -v pg_lsclusters >/dev/null || ! compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null; then
        apt_install postgresql postgresql-contrib
    fi
    if [[ -z "$(pg_lsclusters -h)" ]]; then
        version=$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)
        log "creating PostgreSQL cluster $version/main"
        as_root pg_createcluster "$version" main >&2
    fi
    while read -r version name; do
        log "starting PostgreSQL cluster $version/$name"
        as_root pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start </dev/null >&2
    done < <(pg_lsclusters -h | awk '$3 == 5432 && $4 ~ /^down/ { print $1, $2 }')

    until pg_answers; do
        ((waited < 30)) || die "PostgreSQL does not answer on 127.0.0.1:5432 after 30 s (see pg_lsclusters and /var/log/postgresql/)"
        sleep 1
        waited=$((waited + 1))
    done
}

# Make PostgreSQL usable by Signet and export DATABASE_URL. Idempotent.
ensure_postgres() {
    if [[ -n "${DATABASE_URL:-}" ]]; then
        command -v psql >/dev/null || apt_install postgresql-client
        log "checking DATABASE_URL from the environment"
        psql -X -w -q "$DATABASE_URL" -c 'select 1' >/dev/null || die "DATABASE_URL is set but the database is not reachable"
        return 0
    fi

    if pg_answers; then
        log "PostgreSQL answers on 127.0.0.1:5432"
    else
        start_local_postgres
        log "PostgreSQL is up on 127.0.0.1:5432"
    fi

    log "ensuring role signet (LOGIN CREATEDB) and database signet"
    pg_super -f - >&2 <<'SQL' || die "cannot run SQL as the PostgreSQL superuser; set DATABASE_URL to a database you can use instead"
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'signet') THEN
        CREATE ROLE signet LOGIN CREATEDB PASSWORD 'signet';
    ELSIF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'signet' AND rolcanlogin AND rolcreatedb) THEN
        ALTER ROLE signet LOGIN CREATEDB;
    END IF;
END
$$;
SELECT 'CREATE DATABASE signet OWNER signet'
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'signet')\gexec
SQL

    # The migrations create hstore and pgcrypto (apalis) and pg_trgm (title search), from contrib.
    local available version_num db
    available=$(pg_super -Atc "SELECT count(*) FROM pg_available_extensions WHERE name IN ('hstore', 'pg_trgm', 'pgcrypto')")
    if [[ $available != 3 ]]; then
        apt_install postgresql-contrib
    fi
    # From PostgreSQL 13 they are trusted, so the database owner creates them. Before that,
    # create them as superuser in template1 (per-test databases copy it) and in signet.
    version_num=$(pg_super -Atc 'SHOW server_version_num')
    if ((version_num < 130000)); then
        log "PostgreSQL < 13: creating hstore, pg_trgm and pgcrypto as superuser"
        for db in template1 signet; do
            pg_super -d "$db" -c 'CREATE EXTENSION IF NOT EXISTS hstore' \
                -c 'CREATE EXTENSION IF NOT EXISTS pg_trgm' -c 'CREATE EXTENSION IF NOT EXISTS pgcrypto' >&2
        done
    fi

    export DATABASE_URL="$SIGNET_DB_URL"
    if ! psql -X -w -q "$DATABASE_URL" -c 'select 1' >/dev/null 2>&1; then
        log "cannot log in as signet; resetting its password to 'signet'"
        pg_super -c "ALTER ROLE signet PASSWORD 'signet'" >&2
        psql -X -w -q "$DATABASE_URL" -c 'select 1' >/dev/null || die "cannot connect to $DATABASE_URL (check pg_hba.conf)"
    fi
    log "DATABASE_URL=$DATABASE_URL"
}

# Stop one process recorded in a pid file if it is still the named program. Idempotent.
stop_pidfile() {
    local pidfile=$1 program=$2 pid
    [[ -f $pidfile ]] || return 0
    pid=$(<"$pidfile")
    if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && grep -qa "$program" "/proc/$pid/cmdline" 2>/dev/null; then
        log "stopping $program (pid $pid)"
        kill -TERM "$pid"
        local waited=0
        while kill -0 "$pid" 2>/dev/null && ((waited < 60)); do
            sleep 0.5
            waited=$((waited + 1))
        done
        if kill -0 "$pid" 2>/dev/null; then
            log "$program (pid $pid) did not stop in 30 s; killing it"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$pidfile"
}

# Stop the processes scripts/up.sh started (pid files under $SIGNET_DATA_DIR/run).
stop_services() {
    local run_dir="${SIGNET_DATA_DIR:-./data}/run"
    stop_pidfile "$run_dir/worker.pid" signet-worker
    stop_pidfile "$run_dir/api.pid" signet-api
}
