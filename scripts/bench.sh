#!/usr/bin/env bash
# Signet's benchmark: the release binaries under wrk next to pgbench running the SQL a
# well-designed service would need for the same answer, in the same run, as a ratio. Seeds its
# own database (signet_bench, dropped and created again) on the local PostgreSQL and prints a
# Markdown table for docs/performance.md. Settings: see the top of scripts/bench/bench.py
# (BENCH_SECONDS, BENCH_ROUNDS, BENCH_SIZES, BENCH_ONLY, ...). Takes about 15 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

ensure_postgres
command -v wrk >/dev/null || apt_install wrk
command -v pgbench >/dev/null || apt_install postgresql-contrib
command -v pdfunite >/dev/null || apt_install poppler-utils
# Postfix's smtp-sink and smtp-source: the SMTP peer of the queue case, faster than the dispatch.
command -v smtp-sink >/dev/null || { echo "postfix postfix/main_mailer_type select No configuration" | as_root debconf-set-selections; apt_install postfix; }
if ! python3 -c 'import aiosmtpd' 2>/dev/null; then
    log "installing aiosmtpd (the benchmark's loopback SMTP server)"
    pip_install aiosmtpd
fi

log "building the release binaries"
cargo build --release --bins --example queue_ceiling --example seal_timing --example expiry_batches

exec python3 scripts/bench/bench.py "$@"
