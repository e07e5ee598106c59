#!/usr/bin/env bash
# Stop the signet-api and signet-worker started by scripts/up.sh. Safe to run twice.
# PostgreSQL is left running. Uses SIGNET_DATA_DIR (default ./data) like up.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

stop_services
log "Signet stopped"
