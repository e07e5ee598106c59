#!/usr/bin/env bash
# Bring Signet up locally: PostgreSQL, build, migrate, demo account + key + document,
# then signet-api and signet-worker in the background. Stop them with scripts/down.sh.
# Environment: SIGNET_DATA_DIR (default ./data, relative to the repo root); BIND_ADDR,
# WORKER_ADMIN_ADDR, PUBLIC_URL, DATABASE_URL and the other variables of .env.example are passed through to the binaries.
# Only the final summary goes to stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

# Everything it needs, checked before anything is built or written: a half-made demo account
# or a second demo document is worse than a clear refusal at the start.
command -v cargo >/dev/null || die "cargo not found: install the Rust toolchain (https://rustup.rs) first"
command -v cc >/dev/null || apt_install gcc # some crates build C code
for tool in curl jq; do
    command -v "$tool" >/dev/null || apt_install "$tool"
done

SIGNET_DATA_DIR="${SIGNET_DATA_DIR:-./data}"
export BIND_ADDR="${BIND_ADDR:-127.0.0.1:8080}"
export WORKER_ADMIN_ADDR="${WORKER_ADMIN_ADDR:-127.0.0.1:9091}"
# A previous run's processes are stopped first; then both ports must be free.
stop_services
for address in "$BIND_ADDR" "$WORKER_ADMIN_ADDR"; do
    host=${address%:*}
    [[ $host == 0.0.0.0 || -z $host ]] && host=127.0.0.1
    if (exec 3<>"/dev/tcp/${host//[\[\]]/}/${address##*:}") 2>/dev/null; then
        die "something already listens on $address; stop it, or set BIND_ADDR / WORKER_ADMIN_ADDR to free addresses"
    fi
done

ensure_postgres

# SIGNET_SKIP_BUILD=1 uses the binaries already in target/debug (the test suite sets it: a build
# inside the suite would replace binaries that other tests are running).
if [[ ${SIGNET_SKIP_BUILD:-} != 1 ]]; then
    log "building (cargo build --workspace --bins)"
    cargo build --workspace --bins >&2
fi

mkdir -p "$SIGNET_DATA_DIR"/{files,mail,sms,logs,run}
SIGNET_DATA_DIR="$(cd "$SIGNET_DATA_DIR" && pwd)"
export SIGNET_DATA_DIR
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
    account_created=1
fi

# The console password is set once and kept in $password_file; a run that finds it already set
# for this account leaves it (and so every signed-in console session) alone. SIGNET_NEW_PASSWORD=1
# makes a new one, which signs every session out.
password_file="$SIGNET_DATA_DIR/demo-password"
password_for="$SIGNET_DATA_DIR/demo-password.account"
if [[ ${SIGNET_NEW_PASSWORD:-} == 1 || ! -s $password_file ]]; then
    rm -f "$password_file" "$password_for"
    (umask 077 && od -An -tx1 -N12 /dev/urandom | tr -d ' \n' >"$password_file")
fi
if [[ ! -s $password_for || "$(<"$password_for")" != "$account_id" ]]; then
    signs_out="; this signs out its console sessions"
    [[ -n ${account_created:-} ]] && signs_out=""
    log "setting the demo account's console password (kept in $password_file$signs_out)"
    "$api" account set-password --id "$account_id" <"$password_file" >/dev/null
    echo "$account_id" >"$password_for"
else
    log "keeping the demo account's console password ($password_file) and its console sessions"
fi

# The API key is kept in $key_file (mode 600) and reused while it is the account's active key.
# A new one is made (revoking the old) only when the account has none, or with SIGNET_NEW_KEY=1.
# An active key this script did not make (say, one generated in the console) is left working.
key_file="$SIGNET_DATA_DIR/demo-api-key"
mask() { local body=${1#sk_}; printf 'sk_%s…%s' "${body:0:4}" "${body: -4}"; }
active_key=$("$api" account show --id "$account_id" | jq -r '.apiKey // empty')
api_key=""
if [[ ${SIGNET_NEW_KEY:-} == 1 || -z $active_key ]]; then
    log "generating an API key for account $account_id (kept in $key_file${active_key:+; the previous key $active_key stops working})"
    api_key=$("$api" key generate --account "$account_id" | jq -er .key)
    (umask 077 && printf '%s\n' "$api_key" >"$key_file.tmp")
    mv "$key_file.tmp" "$key_file"
elif [[ -s $key_file && "$(mask "$(<"$key_file")")" == "$active_key" ]]; then
    log "reusing the API key kept in $key_file ($active_key)"
    api_key=$(<"$key_file")
else
    log "the account's active key $active_key was not made by this script: it keeps working and the commands below use \$KEY; set KEY to it, or run again with SIGNET_NEW_KEY=1 for a new key"
fi

log "uploading demo/demo-agreement.pdf"
document_id=$("$api" document upload --account "$account_id" --file demo/demo-agreement.pdf \
    --title "Demo services agreement" | jq -er .id)


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
if [[ -n $api_key ]]; then
    key_line="$api_key  (kept in $key_file; SIGNET_NEW_KEY=1 replaces it)"
    auth="-H 'X-API-KEY: $api_key'"
else
    key_line="\$KEY  (this account's active key, $active_key, is yours: KEY=sk_... before the commands below)"
    auth='-H "X-API-KEY: $KEY"'
fi
json="-H 'Content-Type: application/json'"
expiry=$(date -u -d '+7 days' +%Y-%m-%dT%H:%M:%SZ)
recipients='[{"name":"Alice Signer","email":"alice@example.com","role":"SIGNER","countryCode":"+44","phoneNumber":"07911 123456"},{"name":"Victor Viewer","email":"victor@example.com","role":"VIEWER"}]'
# Fields are in PDF points from the page's top-left corner (docs/api.md). demo/demo-agreement.pdf
# (US Letter, 612 x 792) has on page 2 "Signature: ____" with its line from x 130 to 343 at
# y 633, and "Date: ____" with its line from x 104 to 211 at y 663 (pdftotext -bbox): each box
# stands on its line. The contract lets no recipient go without a field, viewers included
# (POST /send's preconditions); Victor's, a TEXT box beside the signature line, is never filled:
# a viewer's signing page offers nothing to fill, and an empty field stamps nothing.
fields='[{"recipientEmail":"alice@example.com","type":"SIGNATURE","page":2,"x":130,"y":593,"width":213,"height":40},{"recipientEmail":"alice@example.com","type":"DATE","page":2,"x":104,"y":637,"width":107,"height":26},{"recipientEmail":"victor@example.com","type":"TEXT","page":2,"x":380,"y":593,"width":160,"height":40}]'
send='{"message":"Please review and sign the demo services agreement.","description":"Sent by scripts/up.sh","expiryDate":"'"$expiry"'"}'

cat <<EOF

API key:     $key_line
Document id: $document_id
Console:     $PUBLIC_URL/app  (sign in as $demo_email / $(<"$password_file"); kept in $password_file)

# List documents, show the demo document, add recipients and fields, send it, read the audit trail:
curl -sS $auth '$base/documents'
curl -sS $auth '$doc'
curl -sS -X POST $auth $json -d '$recipients' '$doc/recipients'
curl -sS -X POST $auth $json -d '$fields' '$doc/fields'
curl -sS -X POST $auth $json -d '$send' '$doc/send'
curl -sS $auth '$doc/audit'

# For the walkthroughs of the README and docs/ (the API root, the key, the demo document, the account):
export SIGNET=$base ${api_key:+KEY=$api_key }DOC=$document_id ACCOUNT=$account_id

# After the send, each recipient's e-mail is a file in $MAIL_DIR (no SMTP_URL set); each one's signing link:
#   awk '{sub(/\r\$/, "")} /^To:/ {to = substr(\$0, 5)} /^Subject:/ {subject = substr(\$0, 10)} /\/sign\// && !seen[FILENAME]++ {print to " | " subject "\n    " \$0}' \$(ls -tr $MAIL_DIR/*.eml)
# Alice has a phone number, so her link also comes by SMS, a text file in $SMS_DIR (SMS_PROVIDER=file):
#   cat $SMS_DIR/*.txt
# Open it in a browser and sign; then the detail's filePath serves the signed PDF with its certificate.
# The final PDF is sealed (a PAdES signature); check it offline, trusting the development root:
#   curl -sS -o $SIGNET_DATA_DIR/final.pdf "\$(curl -sS $auth '$doc' | jq -r .data.filePath)"
#   $api document verify --file $SIGNET_DATA_DIR/final.pdf --trust $SIGNET_DATA_DIR/seal/seal-root.pem
#   pdfsig $SIGNET_DATA_DIR/final.pdf

# Webhooks: README, "Receiving webhooks" (a receiver, then a document of its own to send and sign).
# Running scripts/up.sh again keeps this key and password (and console sessions) and uploads a new
# demo document; SIGNET_NEW_KEY=1 / SIGNET_NEW_PASSWORD=1 replace them.
# Stop everything: scripts/down.sh
EOF
