#!/usr/bin/env bash
# Run the whole test suite: a local PostgreSQL (DATABASE_URL is the admin URL the tests use to
# create one database per test), then cargo nextest. Extra arguments go to `cargo nextest run`.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

ensure_postgres

if ! cargo nextest --version >/dev/null 2>&1; then
    log "installing cargo-nextest"
    cargo install cargo-nextest --locked
fi

# The end-to-end tests start the real binaries from target/debug.
log "building the binaries"
cargo build --workspace --bins

log "cargo nextest run --workspace $*"
exec cargo nextest run --workspace "$@"
