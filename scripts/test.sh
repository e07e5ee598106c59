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

# Real peers the tests talk to: an SMTP server (aiosmtpd), pdftotext to read final PDFs and
# pdfsig and pyHanko to validate their seal.
if ! python3 -c 'import aiosmtpd' 2>/dev/null; then
    log "installing aiosmtpd (the SMTP server the tests deliver to)"
    python3 -m pip install --quiet aiosmtpd >&2 ||
        python3 -m pip install --quiet --break-system-packages aiosmtpd >&2
fi
# pyHanko: a PDF signature validator that shares no code with Signet, for the seal's tests.
if ! python3 -c 'import pyhanko.sign.validation, pyhanko_certvalidator' 2>/dev/null; then
    log "installing pyHanko (the validator the seal's tests use)"
    python3 -m pip install --quiet pyhanko >&2 ||
        python3 -m pip install --quiet --break-system-packages pyhanko >&2
fi
if ! command -v openssl >/dev/null; then
    apt_install openssl # an operator's RSA seal is made with it in the seal's tests
fi
if ! command -v pdftotext >/dev/null || ! command -v pdfsig >/dev/null; then
    apt_install poppler-utils
fi
# The browser test: Debian's Chromium driven by playwright-core (no browser download).
if [[ ! -x /usr/bin/chromium ]]; then
    apt_install chromium
fi
if ! command -v npm >/dev/null; then
    apt_install nodejs npm
fi
if [[ ! -d tests/browser/node_modules/playwright-core ]]; then
    log "installing playwright-core for the browser test"
    npm ci --prefix tests/browser --no-audit --no-fund >&2
fi

# The end-to-end tests start the real binaries from target/debug.
log "building the binaries"
cargo build --workspace --bins

log "cargo nextest run --workspace $*"
exec cargo nextest run --workspace "$@"
