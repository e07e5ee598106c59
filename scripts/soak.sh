#!/usr/bin/env bash
# The soak (issue #36; docs/reliability.md): a deployment of the release binaries on a
# PostgreSQL cluster of its own, under complete signing journeys at a steady rate while a fault
# injector kills, restarts, pauses and cuts its processes and peers on a seeded schedule; then
# every invariant checked. Exits non-zero on any violation and prints the seed to replay.
#
#   scripts/soak.sh                               30 minutes, S3 store, a seed from the clock
#   scripts/soak.sh --minutes 5 --seed 7 --store local
#   scripts/soak.sh --help                        every option
#
# Needs no running PostgreSQL (it starts its own cluster from /usr/lib/postgresql/<v>/bin,
# as the postgres user when run as root); installs what is missing. Logs, final PDFs and
# summary.txt go to --out (default target/soak/<date-time>).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
    apt_install postgresql
fi
python3 -c 'import aiosmtpd' 2>/dev/null || pip_install aiosmtpd
command -v moto_server >/dev/null || pip_install 'moto[server]'
if ! command -v pdftotext >/dev/null || ! command -v pdfsig >/dev/null; then
    apt_install poppler-utils
fi

log "building the release binaries and the soak"
cargo build --release -p signet-api -p signet-worker -p signet-tests --bin signet-api --bin signet-worker --bin soak

# moto's S3 server for the S3 store; the soak puts a proxy of its own in front of it.
start_moto

args=("$@")
[[ " $* " == *" --out "* ]] || args=(--out "target/soak/$(date +%Y%m%d-%H%M%S)" "$@")
target/release/soak "${args[@]}"
