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
    pip_install aiosmtpd
fi
# pyHanko: a PDF signature validator that shares no code with Signet, for the seal's tests.
if ! python3 -c 'import pyhanko.sign.validation, pyhanko_certvalidator' 2>/dev/null; then
    log "installing pyHanko (the validator the seal's tests use)"
    pip_install pyhanko
fi
# moto's server mode: a real S3 API on loopback, which the `suite_s3` test binary runs the
# whole suite against (a bucket per test).
if ! command -v moto_server >/dev/null; then
    log "installing moto[server] (the S3-compatible server the suite_s3 tests store files in)"
    pip_install 'moto[server]'
fi
# schemathesis: checks the OpenAPI document against the real binary. Pinned: the contract test
# runs it with a fixed seed, so one version generates the same requests on every machine.
SCHEMATHESIS_VERSION=4.32.5
if [[ "$(schemathesis --version 2>/dev/null)" != *"$SCHEMATHESIS_VERSION"* ]]; then
    log "installing schemathesis $SCHEMATHESIS_VERSION (the OpenAPI contract test)"
    pip_install "schemathesis==$SCHEMATHESIS_VERSION"
fi
# The docs' walkthroughs (tests/suite/walkthroughs.rs) use what a reader has after scripts/up.sh.
for tool in curl jq; do
    command -v "$tool" >/dev/null || apt_install "$tool"
done
if ! command -v openssl >/dev/null; then
    apt_install openssl # an operator's RSA seal is made with it in the seal's tests
fi
if ! command -v pdftotext >/dev/null || ! command -v pdfsig >/dev/null; then
    apt_install poppler-utils
fi
# Real PDFs made by tools that share no code with Signet: reportlab writes text for the tags
# and anchors tests (split runs, TrueType subsets with ToUnicode maps), pages of several sizes
# and AcroForm fields; qpdf turns and crops pages.
if ! command -v qpdf >/dev/null; then
    apt_install qpdf
fi
if ! python3 -c 'import reportlab.pdfbase.acroform' 2>/dev/null; then
    log "installing reportlab (the tags, anchors, placement and form tests' PDFs)"
    pip_install reportlab
fi
# LibreOffice (headless, no GUI) makes a form of every kind from an HTML page for the form
# import test: a PDF form written by a tool that shares no code with Signet.
if ! command -v soffice >/dev/null; then
    apt_install --no-install-recommends libreoffice-writer-nogui
fi
# promtool checks and unit-tests the Prometheus rules of deploy/observability (operator_kit.rs).
ensure_promtool
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

# Debian's PgBouncer: the pooler and replica tests start PgBouncers of their own.
install_pgbouncer

# The end-to-end tests start the real binaries from target/debug. Built together with the tests
# (`--tests`): the dependencies' features are then those nextest builds with, so its build below
# reuses everything instead of compiling the whole dependency tree a second time.
log "building the binaries and the tests"
cargo build --workspace --bins --tests

# One S3 server for the whole run (each test makes its own bucket), stopped when the run ends.
start_moto
# SIGNET_TEST_PGBOUNCER=1: the applications under test reach PostgreSQL through a PgBouncer
# (session pooling) for this run; docs/operations.md names the part of the suite run so.
if [[ "${SIGNET_TEST_PGBOUNCER:-}" == 1 ]]; then
    start_pgbouncer
fi

log "cargo nextest run --workspace $*"
cargo nextest run --workspace "$@"
