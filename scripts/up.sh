#!/usr/bin/env bash
# Bring Signet up locally: PostgreSQL, build, migrate, demo account + key + document,
# then signet-api and signet-worker in the background. Stop them with scripts/down.sh.
# Environment: SIGNET_DATA_DIR (default ./data, relative to the repo root); BIND_ADDR, PUBLIC_URL,
# DATABASE_URL and the other variables of .env.example are passed through to the binaries.
# Only the final summary goes to stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

ensure_postgres

# SIGNET_SKIP_BUILD=1 uses the binaries already in target/debug (the test suite sets it: a build
# inside the suite would replace binaries that other tests are running).
if [[ ${SIGNET_SKIP_BUILD:-} != 1 ]]; then
    log "building (cargo build --workspace --bins)"
    cargo build --workspace --bins >&2
fi

SIGNET_DATA_DIR="${SIGNET_DATA_DIR:-./data}"
mkdir -p "$SIGNET_DATA_DIR"/{files,mail,sms,logs,run}
SIGNET_DATA_DIR="$(cd "$SIGNET_DATA_DIR" && pwd)"
export SIGNET_DATA_DIR
export BIND_ADDR="${BIND_ADDR:-127.0.0.1:8080}"
export PUBLIC_URL="${PUBLIC_URL:-http://localhost:${BIND_ADDR##*:}}"
export FILE_STORE_DIR="${FILE_STORE_DIR:-$SIGNET_DATA_DIR/files}"
export MAIL_DIR="${MAIL_DIR:-$SIGNET_DATA_DIR/mail}"
# SMS to recipients with a phone number are written as text files (SMS_PROVIDER=file).
export SMS_DIR="${SMS_DIR:-$SIGNET_DATA_DIR/sms}"
# A local development setup: webhooks to receivers on this machine are allowed.
export WEBHOOK_ALLOW_PRIVATE="${WEBHOOK_ALLOW_PRIVATE:-true}"

secret_file="$SIGNET_DATA_DIR/file-url-secret"
if [[ ! -s $secret_file ]]; then
    log "generating FILE_URL_SECRET in $secret_file"
    (umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$secret_file")
fi
export FILE_URL_SECRET="${FILE_URL_SECRET:-$(<"$secret_file")}"

api=target/debug/signet-api

# The seal of final PDFs: the operator's (SEAL_KEY_FILE, SEAL_CERT_FILE), or a development seal
# kept in $SIGNET_DATA_DIR/seal (made once; its root is seal-root.pem; never for production).
worker=target/debug/signet-worker

if [[ -z ${SEAL_KEY_FILE:-} && -z ${SEAL_CERT_FILE:-} ]]; then
    if [[ ! -s $SIGNET_DATA_DIR/seal/seal-key.pem ]]; then
        log "making a DEVELOPMENT seal in $SIGNET_DATA_DIR/seal (not trusted by anyone; set SEAL_KEY_FILE and SEAL_CERT_FILE in production)"
        rm -rf "$SIGNET_DATA_DIR/seal"
        "$api" seal create-development --dir "$SIGNET_DATA_DIR/seal" >/dev/null
    fi
    export SEAL_KEY_FILE="$SIGNET_DATA_DIR/seal/seal-key.pem"
    export SEAL_CERT_FILE="$SIGNET_DATA_DIR/seal/seal-chain.pem"
fi

log "migrating"
"$api" migrate >&2

demo_email=demo@example.com
if account_id=$("$api" account show --email "$demo_email" 2>/dev/null | jq -er .id); then
    log "reusing the demo account $account_id ($demo_email)"
else
    log "creating the demo account ($demo_email)"
    account_id=$("$api" account create --name "Demo account" --email "$demo_email" | jq -er .id)
fi

password_file="$SIGNET_DATA_DIR/demo-password"
if [[ ! -s $password_file ]]; then
    (umask 077 && od -An -tx1 -N12 /dev/urandom | tr -d ' \n' >"$password_file")
fi
log "setting the demo account's console password (kept in $password_file)"
"$api" account set-password --id "$account_id" <"$password_file" >/dev/null

log "generating an API key for account $account_id (any previous key stops working)"
key_json=$("$api" key generate --account "$account_id")
api_key=$(jq -er .key <<<"$key_json")

log "uploading demo/demo-agreement.pdf"
document_id=$("$api" document upload --account "$account_id" --file demo/demo-agreement.pdf \
    --title "Demo services agreement" | jq -er .id)

stop_services
if curl -fsS -o /dev/null --max-time 2 "$PUBLIC_URL/healthz" 2>/dev/null; then
    die "something already answers at $PUBLIC_URL; stop it or set BIND_ADDR / PUBLIC_URL"
fi

logs="$SIGNET_DATA_DIR/logs"
run="$SIGNET_DATA_DIR/run"
log "starting signet-api on $BIND_ADDR (log: $logs/api.log)"
NO_COLOR=1 nohup "$api" serve >"$logs/api.log" 2>&1 </dev/null &
echo $! >"$run/api.pid"
log "starting signet-worker (log: $logs/worker.log)"
NO_COLOR=1 nohup "$worker" >"$logs/worker.log" 2>&1 </dev/null &
echo $! >"$run/worker.pid"

log "waiting for $PUBLIC_URL/healthz"
waited=0
until curl -fsS -o /dev/null --max-time 2 "$PUBLIC_URL/healthz" 2>/dev/null; do
    if ! kill -0 "$(<"$run/api.pid")" 2>/dev/null || ((waited >= 60)); then
        tail -n 30 "$logs/api.log" >&2
        stop_services
        die "signet-api did not become healthy at $PUBLIC_URL/healthz (log above: $logs/api.log)"
    fi
    sleep 1
    waited=$((waited + 1))
done
if ! kill -0 "$(<"$run/worker.pid")" 2>/dev/null; then
    tail -n 30 "$logs/worker.log" >&2
    stop_services
    die "signet-worker exited (log above: $logs/worker.log)"
fi
sms_to="$SMS_DIR"
case "${SMS_PROVIDER:-file}" in
twilio) sms_to="${SMS_TWILIO_BASE_URL:-https://api.twilio.com}" ;;
none | off) sms_to="nowhere (SMS_PROVIDER=none)" ;;
esac
log "Signet is up; e-mails go to ${SMTP_URL:-$MAIL_DIR}, SMS to $sms_to"

base="$PUBLIC_URL/external/api/v1"
doc="$base/documents/$document_id"
auth="X-API-KEY: $api_key"
json="Content-Type: application/json"
expiry=$(date -u -d '+7 days' +%Y-%m-%dT%H:%M:%SZ)
recipients='[{"name":"Alice Signer","email":"alice@example.com","role":"SIGNER","countryCode":"+44","phoneNumber":"07911 123456"},{"name":"Victor Viewer","email":"victor@example.com","role":"VIEWER"}]'
fields='[{"recipientEmail":"alice@example.com","type":"SIGNATURE","page":1,"x":72,"y":600,"width":200,"height":50},{"recipientEmail":"alice@example.com","type":"DATE","page":1,"x":320,"y":600,"width":150,"height":50},{"recipientEmail":"victor@example.com","type":"TEXT","page":1,"x":72,"y":680,"width":200,"height":30}]'
send='{"message":"Please review and sign the demo services agreement.","description":"Sent by scripts/up.sh","expiryDate":"'"$expiry"'"}'

cat <<EOF

API key:     $api_key
Document id: $document_id
Console:     $PUBLIC_URL/app  (sign in as $demo_email / $(<"$password_file"))

# List documents, show the demo document, add recipients and fields, send it, read the audit trail:
curl -sS -H '$auth' '$base/documents'
curl -sS -H '$auth' '$doc'
curl -sS -X POST -H '$auth' -H '$json' -d '$recipients' '$doc/recipients'
curl -sS -X POST -H '$auth' -H '$json' -d '$fields' '$doc/fields'
curl -sS -X POST -H '$auth' -H '$json' -d '$send' '$doc/send'
curl -sS -H '$auth' '$doc/audit'

# After the send, each recipient's e-mail is a file in $MAIL_DIR (no SMTP_URL set). Alice's signing link:
#   grep -h -A1 'to sign:' $MAIL_DIR/*.eml
# Alice has a phone number, so her link also comes by SMS, a text file in $SMS_DIR (SMS_PROVIDER=file):
#   cat $SMS_DIR/*.txt
# Open it in a browser and sign; then the detail's filePath serves the signed PDF with its certificate.
# The final PDF is sealed (a PAdES signature); check it offline, trusting the development root:
#   $api document verify --file final.pdf --trust $SIGNET_DATA_DIR/seal/seal-root.pem
#   pdfsig final.pdf

# Webhooks (README, "Receiving webhooks"): start demo/webhook-receiver.py with the secret from
#   target/debug/signet-api webhook secret --account $account_id
# then: WEBHOOK_ALLOW_PRIVATE=true target/debug/signet-api account update --id $account_id --webhook-url http://127.0.0.1:9000/hooks

# Stop everything: scripts/down.sh
EOF
