"""Signet's benchmark: the release binaries under load next to pgbench running the SQL a
well-designed service would need for the same answer, in the same run, as a ratio.

Run through scripts/bench.sh, which builds the release binaries and installs wrk, pgbench and
aiosmtpd first. Settings (environment):

  BENCH_SECONDS      length of one measurement (default 5)
  BENCH_ROUNDS       measurements per case; the median is reported (default 3)
  BENCH_CONNECTIONS  wrk's open connections to the API (default 32)
  BENCH_SIZES        documents in the list accounts (default 100,100000,1000000)
  BENCH_ONLY         comma-separated case groups to run: lists (search: only its searches),
                     hot,detail,send,sms,seal,email,completion,expiry,bulk,events,queue,
                     replicas (default all)
  BENCH_REPLICA_DOCUMENTS  documents of the replicas case's account (default 100000)
  BENCH_BULK_ROWS    rows of the bulk case's bulk send (default 10000)
  BENCH_EVENTS       events in the event feed case's account (default 10000)
  BENCH_BACKLOG      queued invitations of one account in the queue case (default 100000)
  BENCH_MESSAGES     queued SMS and webhook deliveries in the queue case (default 20000)
  BENCH_EXPIRY_DOCUMENTS  due documents of the expiry case (default 100000)
  BENCH_EXPIRY_BATCHES    comma-separated batch sizes the expiry case also measures the sweep
                     alone with (`--example expiry_batches`; 0: the sweep before issue #35;
                     default none)
  DATABASE_URL       admin URL; the benchmark creates and drops its own database signet_bench
  BENCH_DATABASE     that database's name instead (benchmarks run at once on one server must
                     not share it: each drops it when it starts)
  DATABASE_MAX_CONNECTIONS  the API's and worker's pool (default 8); pgbench gets as many

Timing lives here, never in the test suite.
"""

import base64
import http.server
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / "target" / "release"
FIXTURES = ROOT / "tests" / "fixtures" / "pdf"
SECONDS = int(os.environ.get("BENCH_SECONDS", "5"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "32"))
SIZES = [int(s) for s in os.environ.get("BENCH_SIZES", "100,100000,1000000").split(",")]
POOL = int(os.environ.get("DATABASE_MAX_CONNECTIONS", "8"))
ONLY = set(filter(None, os.environ.get("BENCH_ONLY", "").split(",")))
ADMIN_URL = os.environ.get("DATABASE_URL", "postgres://signet:signet@127.0.0.1:5432/signet")
BULK_ROWS = int(os.environ.get("BENCH_BULK_ROWS", "10000"))
EVENTS = int(os.environ.get("BENCH_EVENTS", "10000"))
BACKLOG = int(os.environ.get("BENCH_BACKLOG", "100000"))
MESSAGES = int(os.environ.get("BENCH_MESSAGES", "20000"))
EXPIRY_DOCUMENTS = int(os.environ.get("BENCH_EXPIRY_DOCUMENTS", "100000"))
REPLICA_DOCUMENTS = int(os.environ.get("BENCH_REPLICA_DOCUMENTS", "100000"))
# The sweep alone, for each batch size × batches at once: "4000" or "4000x1,4000x2" (× the
# sweep's own number of batches at once when not given).
EXPIRY_BATCHES = [tuple(int(n) for n in s.split("x")) + (None,) if "x" not in s
                  else tuple(int(n) for n in s.split("x"))
                  for s in os.environ.get("BENCH_EXPIRY_BATCHES", "").split(",") if s]
WORK = Path(tempfile.mkdtemp(prefix="signet-bench-"))

results = []  # (group, case, api figure, sql figure, ratio, note)


def wanted(group):
    return not ONLY or group in ONLY


def log(message):
    print(f"--> {message}", file=sys.stderr, flush=True)


def db_url(name):
    parts = urllib.parse.urlsplit(ADMIN_URL)
    return urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))


BENCH_DATABASE = os.environ.get("BENCH_DATABASE", "signet_bench")
BENCH_URL = db_url(BENCH_DATABASE)


def psql(sql, url=BENCH_URL):
    out = subprocess.run(
        ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", url, "-c", sql],
        capture_output=True, text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"psql failed: {out.stderr.strip()}\n{sql}")
    return out.stdout.strip()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pids):
    """User + system CPU time of the processes, in seconds."""
    total = 0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def postgres_pids():
    return subprocess.run(["pgrep", "-x", "postgres"], capture_output=True, text=True).stdout.split()


def median(values):
    return statistics.median(values) if values else float("nan")


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


# --- processes -------------------------------------------------------------------------------


def base_env(**extra):
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": BENCH_URL,
        "DATABASE_MAX_CONNECTIONS": str(POOL),
        "FILE_STORE_DIR": str(WORK / "files"),
        "MAIL_DIR": str(WORK / "mail"),
        "FILE_URL_SECRET": "bench-0123456789abcdef0123456789abcdef",
        "RUST_LOG": "warn",
        "API_USAGE_DEFAULT_LIMIT": "2000000000",
        # SMS are written to files (the send-sms case queues them; no worker sends them there).
        "SMS_DIR": str(WORK / "sms"),
        "SMS_DAILY_CAP_PER_ACCOUNT": "2000000000",
    })
    env.update({k: str(v) for k, v in extra.items()})
    return env


class Process:
    """A child process, stopped when the benchmark ends however it ends."""

    running = []

    def __init__(self, args, env, name):
        self.log_path = WORK / f"{name}.log"
        self.proc = subprocess.Popen(
            args, env=env, stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT,
        )
        Process.running.append(self)

    def peak_rss_mib(self):
        try:
            for line in open(f"/proc/{self.proc.pid}/status"):
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def cli(*args):
    out = subprocess.run(
        [str(RELEASE / "signet-api"), *args], env=base_env(), check=True,
        capture_output=True, text=True,
    )
    return json.loads(out.stdout)


def wait_http(url, within=120):
    deadline = time.time() + within
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{url} did not answer 200 within {within} s")


class Api:
    def __init__(self, **extra):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = Process(
            [str(RELEASE / "signet-api"), "serve"],
            base_env(BIND_ADDR=f"127.0.0.1:{self.port}", PUBLIC_URL=self.base, **extra),
            f"api-{self.port}",
        )
        wait_http(f"{self.base}/readyz")

    def call(self, method, path, key, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.base}/external/api/v1{path}", data=data, method=method,
            headers={"X-API-KEY": key, "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def url(self, path):
        return f"{self.base}/external/api/v1{path}"


def start_worker(smtp_port, **extra):
    port = free_port()
    worker = Process(
        [str(RELEASE / "signet-worker")],
        base_env(SMTP_URL=f"smtp://127.0.0.1:{smtp_port}", WORKER_ADMIN_ADDR=f"127.0.0.1:{port}",
                 PUBLIC_URL="http://127.0.0.1:1", **extra),
        "worker",
    )
    wait_http(f"http://127.0.0.1:{port}/readyz")
    return worker


class SmtpSink:
    def __init__(self):
        self.port = free_port()
        self.log_path = WORK / f"smtp-{self.port}.log"
        self.log_path.touch()
        self.process = Process(
            [sys.executable, str(Path(__file__).parent / "smtp_sink.py"), str(self.port),
             str(self.log_path)], os.environ, f"smtp-{self.port}",
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the SMTP sink did not start")

    def lines(self):
        return [line.split(" ") for line in self.log_path.read_text().splitlines()]

    def accepted(self):
        """Message-ID -> time of acceptance."""
        seen = {}
        for at, message_id, _token in self.lines():
            seen.setdefault(message_id, float(at))
        return seen

    def links(self):
        """Message-ID -> the signing token in the message."""
        return {message_id: token for _at, message_id, token in self.lines() if token != "-"}


# --- load generators -------------------------------------------------------------------------


def wrk(url, keys, method="GET", body=None, ids=None, seconds=SECONDS):
    """Requests per second answered 2xx, and latency p50/p95/p99 in ms."""
    script = WORK / "wrk.lua"
    lua_keys = ",".join(f'"{k}"' for k in keys)
    lua_ids = ",".join(f'"{i}"' for i in ids or [])
    script.write_text(f"""
local keys = {{{lua_keys}}}
local ids = {{{lua_ids}}}
local threads, counter, thread_count = {{}}, 0, 2
thread_index = 0  -- set per thread by setup(); a global, so that thread:set reaches it
function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_index", #threads - 1)
end
function init(args)
  thread_count = 2
  counter = 0
end
request = function()
  local key = keys[math.random(#keys)]
  local path = "{urllib.parse.urlsplit(url).path}?{urllib.parse.urlsplit(url).query}"
  if #ids > 0 then
    local i = thread_index + 1 + counter * thread_count
    counter = counter + 1
    path = string.gsub(path, "ID", ids[((i - 1) % #ids) + 1])
  end
  local headers = {{["X-API-KEY"] = key, ["Content-Type"] = "application/json"}}
  return wrk.format("{method}", path, headers, {"[[" + json.dumps(body) + "]]" if body else "nil"})
end
-- wrk's --latency prints 50/75/90/99 only.
function done(summary, latency, requests)
  print(string.format("p95_us %d", latency:percentile(95.0)))
end
""")
    out = subprocess.run(
        ["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{seconds}s", "--latency", "-s", str(script), url],
        check=True, capture_output=True, text=True,
    ).stdout
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    took = float(re.search(r"requests in ([\d.]+)s", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    ok = requests - (int(non2xx.group(1)) if non2xx else 0)

    def ms(label):
        m = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)", out)
        if not m:
            return float("nan")
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    p95 = re.search(r"p95_us (\d+)", out)
    return {"rps": ok / took, "p50": ms("50"), "p95": int(p95.group(1)) / 1000 if p95 else float("nan"),
            "p99": ms("99"), "errors": requests - ok}


def pgbench(sql, seconds=SECONDS, clients=POOL):
    script = WORK / "pgbench.sql"
    script.write_text(sql)
    env = dict(os.environ, PGOPTIONS="-c synchronous_commit=off")
    out = subprocess.run(
        ["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", "2", "-T", str(seconds),
         "-f", str(script), BENCH_URL],
        check=True, capture_output=True, text=True, env=env,
    ).stdout
    tps = float(re.search(r"tps = ([\d.]+)", out).group(1))
    latency = re.search(r"latency average = ([\d.]+) ms", out)
    return {"tps": tps, "avg": float(latency.group(1)) if latency else float("nan")}


def compare(group, case, api_load, sql, note=""):
    """Alternates the API and pgbench ROUNDS times; records the medians and their ratio."""
    api_runs, sql_runs = [], []
    for _ in range(ROUNDS):
        api_runs.append(api_load())
        if sql:
            sql_runs.append(pgbench(sql))
    api_rps = median([r["rps"] for r in api_runs])
    p50 = median([r["p50"] for r in api_runs])
    p95 = median([r["p95"] for r in api_runs])
    p99 = median([r["p99"] for r in api_runs])
    errors = sum(r["errors"] for r in api_runs)
    api_text = f"{api_rps:,.0f} req/s (p50 {p50:.1f} ms, p95 {p95:.1f} ms, p99 {p99:.1f} ms)"
    if errors:
        api_text += f", {errors} non-2xx"
    if sql:
        tps = median([r["tps"] for r in sql_runs])
        sql_text, ratio = f"{tps:,.0f} tps", f"{api_rps / tps:.2f}"
    else:
        sql_text, ratio = "-", "-"
    results.append((group, case, api_text, sql_text, ratio, note))
    log(f"{case}: {api_text} | {sql_text} | {ratio}")
    return api_rps


def record(group, case, figure, note=""):
    results.append((group, case, figure, "-", "-", note))
    log(f"{case}: {figure}")


# --- data ------------------------------------------------------------------------------------


def account(name, documents=0):
    created = cli("account", "create", "--name", name, "--email", f"{name}@bench.test",
                  "--usage-limit", "2000000000")
    key = cli("key", "generate", "--account", created["id"])["key"]
    key_hash = psql(
        f"SELECT encode(key_hash, 'hex') FROM api_keys WHERE account_id = '{created['id']}'"
        " AND revoked_at IS NULL")
    if documents:
        seed_documents(created["id"], documents)
    return {"id": created["id"], "key": key, "hash": key_hash}


TITLES = "ARRAY['Lease', 'NDA', 'Invoice', 'Employment contract', 'Purchase order', " \
         "'Service agreement', 'Loan', 'Consent form']"


def seed_documents(account_id, n, url=None):
    """n documents in the shape of a real account: 20 % DRAFT, 30 % SENT, 40 % COMPLETED,
    10 % declined, expired or cancelled; titles '<kind> <7-digit number>'. In the database at
    `url` (default the benchmark's)."""
    url = url or BENCH_URL
    started = time.time()
    psql(f"""
        INSERT INTO documents (id, account_id, code, title, status, file_key, sha256, pages,
                               page_sizes, created_at, updated_at)
        SELECT gen_random_uuid(), '{account_id}',
               'B' || lpad(upper(to_hex(nextval('bench_codes'))), 7, '0'),
               ({TITLES})[1 + i % 8] || ' ' || lpad(i::text, 7, '0'),
               CASE WHEN i % 10 < 2 THEN 'DRAFT' WHEN i % 10 < 5 THEN 'SENT'
                    WHEN i % 10 < 9 THEN 'COMPLETED'
                    ELSE (ARRAY['DECLINED', 'EXPIRED', 'CANCELLED'])[1 + (i / 10) % 3] END,
               'bench/none.pdf', repeat('0', 64), 1, '[{{"width": 612, "height": 792}}]',
               now() - ({n} - i) * interval '1 second',
               now() - ({n} - i) * interval '1 second' + (i % 97) * interval '1 minute'
        FROM generate_series(1, {n}) i""", url)
    # As autovacuum would have by the time anyone lists them.
    psql("VACUUM ANALYZE documents", url)
    psql("VACUUM ANALYZE document_counts", url)
    log(f"seeded {n:,} documents in {time.time() - started:.1f} s")


def auth_sql(acct):
    return (f"UPDATE accounts SET api_usage_count = api_usage_count + 1 WHERE id = "
            f"(SELECT account_id FROM api_keys WHERE key_hash = '\\x{acct['hash']}' "
            f"AND revoked_at IS NULL) AND api_usage_count < api_usage_limit RETURNING id;\n")


DOC_COLUMNS = ("id, account_id, code, title, status, file_key, sha256, pages, page_sizes, "
               "created_at, updated_at, sent_at, expiry_date, completed_at")


def list_sql(acct, order="created_at DESC, id DESC", status=None, search=None, kept=False):
    """The page and its total. A search's total counts its matches, or, for a term whose
    counts are kept (`kept`: one matching 1,000 documents or more, once searched), sums them."""
    where = f"account_id = '{acct['id']}'"
    counted = f"SELECT sum(documents) FROM document_counts WHERE account_id = '{acct['id']}'"
    if status:
        statuses = ",".join(f"'{s}'" for s in status)
        where += f" AND status IN ({statuses})"
        counted += f" AND status IN ({statuses})"
    if search:
        where += f" AND title ILIKE '%{search}%'"
        if kept:
            counted = counted.replace("FROM document_counts", "FROM document_search_counts") \
                .replace(" WHERE ", f" WHERE pattern = '%{search}%' AND ", 1)
        else:
            counted = f"SELECT count(*) FROM documents WHERE {where}"
    return (auth_sql(acct)
            + f"SELECT {DOC_COLUMNS} FROM documents WHERE {where} ORDER BY {order} LIMIT 10;\n"
            + counted + ";\n")


# --- cases -----------------------------------------------------------------------------------


def lists(api, accounts):
    """Every list case; with BENCH_ONLY=search, only the searches at the largest size."""
    for size in SIZES if wanted("lists") else []:
        acct = accounts[size]
        compare("lists", f"GET /documents?limit=10, {size:,} documents",
                lambda: wrk(api.url("/documents?limit=10"), [acct["key"]]), list_sql(acct))
    acct = accounts[max(SIZES)]
    size = f"{max(SIZES):,} documents"
    variants = [
        ("sortBy=documentName&sortOrder=ASC", dict(order="title ASC, id ASC")),
        ("sortBy=dateModified", dict(order="updated_at DESC, id DESC")),
        ("status=SENT", dict(status=["SENT"])),
        ("status=TRASH", dict(status=["DECLINED", "EXPIRED", "CANCELLED"])),
        ("page=500", dict()),
        ("search=0424242 (1 match)", dict(search="0424242")),
        ("search=Invoice (1 in 8 match)", dict(search="Invoice", kept=True)),
    ]
    # The common term's first search counts its 125,000 matches once and keeps the counts.
    started = time.time()
    status, body = api.call("GET", "/documents?limit=10&search=Invoice", acct["key"])
    assert status == 200 and body["data"]["total"] == max(SIZES) // 8, (status, body)
    record("lists", f"first GET /documents?search=Invoice, {size} (counts kept)",
           f"{(time.time() - started) * 1000:.0f} ms", "once per term")
    for query, sql in variants:
        if not wanted("lists") and "search" not in query:
            continue
        path = query.split(" (")[0]
        offset = " OFFSET 4990" if path == "page=500" else ""
        compare("lists", f"GET /documents?{query}, {size}",
                lambda: wrk(api.url(f"/documents?limit=10&{path}"), [acct["key"]]),
                list_sql(acct, **sql).replace("LIMIT 10;", f"LIMIT 10{offset};"))


def hot_row(api, accounts, many):
    single = compare("hot", "GET /documents?limit=10, one account (100 documents)",
                     lambda: wrk(api.url("/documents?limit=10"), [accounts[min(SIZES)]["key"]]),
                     None)
    spread = compare("hot", f"GET /documents?limit=10, {len(many)} accounts (100 documents each)",
                     lambda: wrk(api.url("/documents?limit=10"), [a["key"] for a in many]), None)
    record("hot", "one account ÷ many accounts", f"{single / spread:.2f}",
           "the usage counter is one row per account")


def pdf_with_pages(pages):
    """A real multi-page PDF: pdfunite (poppler) of the pdflatex fixture."""
    source = FIXTURES / "pdflatex-4-pages.pdf"
    out = WORK / f"{pages}-pages.pdf"
    parts = [str(source)] * (pages // 4)
    subprocess.run(["pdfunite", *parts, str(out)], check=True)
    return out


def prepared_document(api, acct, pdf, signers, fields_per_signer, pages=1):
    doc = cli("document", "upload", "--account", acct["id"], "--file", str(pdf),
              "--title", "Bench document")["id"]
    recipients = [{"name": f"Signer {i}", "email": f"s{i}.{doc[:8]}@bench.test", "role": "SIGNER"}
                  for i in range(signers)]
    status, body = api.call("POST", f"/documents/{doc}/recipients", acct["key"], recipients)
    assert status == 200, body
    fields = [{"recipientEmail": r["email"], "type": "SIGNATURE" if f % 2 == 0 else "TEXT",
               "page": 1 + (f % pages), "x": 50 + (f % 5) * 100, "y": 60 + (f // 5 % 10) * 60,
               "width": 90, "height": 30}
              for r in recipients for f in range(fields_per_signer)]
    status, body = api.call("POST", f"/documents/{doc}/fields", acct["key"], fields)
    assert status == 200, body
    return doc


def detail(api):
    acct = account("detail")
    doc = prepared_document(api, acct, FIXTURES / "pdflatex-4-pages.pdf", 20, 5, pages=4)
    sql = (auth_sql(acct)
           + f"SELECT {DOC_COLUMNS} FROM documents WHERE id = '{doc}' AND account_id = '{acct['id']}';\n"
           + f"SELECT * FROM recipients WHERE document_id = '{doc}' ORDER BY position;\n"
           + f"SELECT * FROM fields WHERE document_id = '{doc}' ORDER BY created_at, id;\n")
    compare("detail", "GET /documents/{id}, 20 recipients and 100 fields",
            lambda: wrk(api.url(f"/documents/{doc}"), [acct["key"]]), sql)


def seed_drafts(template, acct, n, phone=False):
    """n DRAFT copies of a prepared one-signer document, each with its signer and field; with
    `phone`, each signer has a UK mobile number of its own (so no per-number cap applies)."""
    e164 = "'+447' || lpad((400000000 + nextval('bench_codes'))::text, 9, '0')" if phone else "NULL"
    psql(f"""
        WITH docs AS (
            INSERT INTO documents (id, account_id, code, title, status, file_key, sha256, pages, page_sizes)
            SELECT gen_random_uuid(), '{acct['id']}',
                   'S' || lpad(upper(to_hex(nextval('bench_codes'))), 7, '0'),
                   'Send ' || i, 'DRAFT', file_key, sha256, pages, page_sizes
            FROM documents, generate_series(1, {n}) i WHERE id = '{template}'
            RETURNING id),
        recips AS (
            INSERT INTO recipients (id, account_id, document_id, name, email, role, color_code, position, phone_e164)
            SELECT gen_random_uuid(), '{acct['id']}', id, 'Signer', 'signer@bench.test', 'SIGNER', '#3366ff', 0, {e164}
            FROM docs RETURNING id, document_id)
        INSERT INTO fields (id, account_id, document_id, recipient_id, type, page, x, y, width, height)
        SELECT gen_random_uuid(), '{acct['id']}', document_id, id, 'SIGNATURE', 1, 50, 60, 200, 50
        FROM recips""")
    return psql(f"SELECT id FROM documents WHERE account_id = '{acct['id']}' AND status = 'DRAFT' "
                f"AND id <> '{template}'").split()


SEND_BODY = {"message": "Please sign", "description": "Benchmark",
             "expiryDate": (datetime.now(timezone.utc) + timedelta(days=30))
             .strftime("%Y-%m-%dT%H:%M:%S.000Z")}


def send_sql(pg_acct, sms=False):
    """What a send must write, at least: count it, lock the DRAFT, check recipients and fields,
    mark it SENT, give the signer a token, append the audit entry (after reading the chain's
    last hash), put the invitation in the outbox and its job in the queue. With `sms`, what an
    SMS adds: the signer's number, the account's and the number's daily counts under their row
    locks, the SMS outbox row and its job."""
    account_id = pg_acct["id"]
    sms_sql = f"""SELECT phone_e164 AS phone FROM recipients WHERE document_id = :doc AND phone_e164 IS NOT NULL \\gset
INSERT INTO sms_daily_counts AS c (account_id, number, day, queued) VALUES ('{account_id}', '', current_date, 1) ON CONFLICT (account_id, number, day) DO UPDATE SET queued = c.queued + 1;
INSERT INTO sms_daily_counts AS c (account_id, number, day, queued) VALUES ('{account_id}', :phone, current_date, 1) ON CONFLICT (account_id, number, day) DO UPDATE SET queued = c.queued + 1 WHERE c.queued < 10;
INSERT INTO outbound_sms (id, account_id, document_id, recipient_id, kind, to_e164, link_token) SELECT gen_random_uuid(), account_id, document_id, id, 'INVITATION', phone_e164, md5(random()::text) FROM recipients WHERE document_id = :doc;
INSERT INTO apalis.jobs (id, job_type, job, status, attempts, max_attempts, run_at, priority) VALUES (gen_random_uuid()::text, 'bench.discard', '\\x7b7d', 'Pending', 0, 5, now(), 0);
""" if sms else ""
    return auth_sql(pg_acct) + f"""BEGIN;
SELECT id AS doc FROM documents WHERE account_id = '{account_id}' AND status = 'DRAFT' LIMIT 1 FOR UPDATE SKIP LOCKED \\gset
SELECT count(*) FROM recipients r WHERE document_id = :doc AND NOT EXISTS (SELECT 1 FROM fields f WHERE f.recipient_id = r.id);
UPDATE documents SET status = 'SENT', sent_at = now(), updated_at = now(), expiry_date = now() + interval '30 days', send_message = 'Please sign', send_description = 'Benchmark' WHERE id = :doc;
UPDATE recipients SET signing_token_hash = sha256(gen_random_uuid()::text::bytea) WHERE document_id = :doc;
SELECT hash FROM audit_entries WHERE document_id = :doc ORDER BY seq DESC LIMIT 1;
INSERT INTO audit_entries (id, account_id, document_id, event, message, ip_address, user_agent, created_at, prev_hash, hash, format) VALUES (gen_random_uuid(), '{account_id}', :doc, 'SENT', 'Document sent', '127.0.0.1', 'bench', now(), '\\x00', sha256(gen_random_uuid()::text::bytea), 2);
INSERT INTO outbound_emails (id, account_id, document_id, recipient_id, kind, message_id, link_token, status) SELECT gen_random_uuid(), account_id, document_id, id, 'INVITATION', gen_random_uuid()::text || '@bench', md5(random()::text), 'WITHDRAWN' FROM recipients WHERE document_id = :doc;
INSERT INTO apalis.jobs (id, job_type, job, status, attempts, max_attempts, run_at, priority) VALUES (gen_random_uuid()::text, 'bench.discard', '\\x7b7d', 'Pending', 0, 5, now(), 0);
{sms_sql}COMMIT;
"""


def send(api):
    acct = account("send")
    template = prepared_document(api, acct, FIXTURES / "pdflatex-4-pages.pdf", 1, 1)
    ids = seed_drafts(template, acct, 4000 * ROUNDS)
    # Each round sends DRAFTs no earlier round has sent.
    rounds = iter([ids[i::ROUNDS] for i in range(ROUNDS)])
    pg_acct = account("send-sql")
    seed_drafts(template, pg_acct, 10000 * ROUNDS)
    sql = send_sql(pg_acct)
    compare("send", "POST /documents/{id}/send (1 signer, 1 field)",
            lambda: wrk(api.url("/documents/ID/send"), [acct["key"]], method="POST",
                        body=SEND_BODY, ids=next(rounds)),
            sql, "each request sends another DRAFT")


def send_sms(api):
    """The send of a document whose signer has a phone number: the send case plus the SMS
    outbox row, its job and the daily caps (the account's count row is locked to the commit)."""
    acct = account("send-sms")
    template = prepared_document(api, acct, FIXTURES / "pdflatex-4-pages.pdf", 1, 1)
    ids = seed_drafts(template, acct, 4000 * ROUNDS, phone=True)
    rounds = iter([ids[i::ROUNDS] for i in range(ROUNDS)])
    pg_acct = account("send-sms-sql")
    seed_drafts(template, pg_acct, 10000 * ROUNDS, phone=True)
    sql = send_sql(pg_acct, sms=True)
    compare("send", "POST /documents/{id}/send (1 signer with a phone number: + SMS)",
            lambda: wrk(api.url("/documents/ID/send"), [acct["key"]], method="POST",
                        body=SEND_BODY, ids=next(rounds)),
            sql, "each request sends another DRAFT; one account, so every send takes its SMS count row in turn")


def seal_timing():
    """The seal on a 100-page final PDF (release build): render once, seal five times."""
    pdf = pdf_with_pages(100)
    out = subprocess.run([str(RELEASE / "examples" / "seal_timing"), str(pdf), "5"],
                         check=True, capture_output=True, text=True).stdout
    figures = json.loads(out.strip().splitlines()[-1])
    record("seal", f"seal a {figures['pages']}-page final PDF ({figures['bytes'] // 1024} KiB), median of {figures['runs']}",
           f"{figures['seal_median_ms']:.0f} ms (slowest {figures['seal_max_ms']:.0f} ms)",
           f"rendering it took {figures['render_ms']:.0f} ms")
    record("seal", f"add long-term validation data (a DSS update) to it, median of {figures['runs']}",
           f"{figures['dss_median_ms']:.0f} ms", "PAdES B-LT, without the network time")


def queue_ceiling(jobs=20000, accounts=1):
    """No-op messages through the outbox machinery (examples/queue_ceiling.rs)."""
    out = subprocess.run(
        [str(RELEASE / "examples" / "queue_ceiling")],
        env=base_env(QUEUE_CEILING_JOBS=str(jobs), QUEUE_CEILING_ACCOUNTS=str(accounts)),
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


class PostfixSink:
    """Postfix's smtp-sink on loopback (Debian's `postfix` package): accepts every message and
    keeps none; ~3,000 messages/s on this machine, faster than the dispatch it takes."""

    def __init__(self):
        self.port = free_port()
        self.process = Process(["smtp-sink", "-u", "nobody", f"127.0.0.1:{self.port}", "1024"],
                               os.environ, f"smtp-sink-{self.port}")
        wait_port(self.port)

    def ceiling(self, messages=20000, sessions=32):
        """Messages/s that Postfix's smtp-source (32 sessions) gets the sink to take."""
        started = time.time()
        subprocess.run(["smtp-source", "-s", str(sessions), "-m", str(messages), "-l", "2000",
                        "-f", "bench@signet.test", "-t", "sink@signet.test",
                        f"127.0.0.1:{self.port}"], check=True, capture_output=True)
        return messages / (time.time() - started)


class HttpSink:
    """scripts/bench/http_sink.py: answers every request at once with 201 (Twilio's shape)."""

    def __init__(self):
        self.port = free_port()
        self.process = Process([sys.executable, str(Path(__file__).parent / "http_sink.py"),
                                str(self.port)], os.environ, f"http-sink-{self.port}")
        wait_port(self.port)


def wait_port(port, within=30):
    deadline = time.time() + within
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on port {port}")


def seed_queued(acct, template, n, sms=False):
    """n SENT documents of `acct`, each with its signer's invitation queued in the outbox (as a
    send leaves it), written in SQL: an e-mail each, or with `sms` an SMS each."""
    seed_drafts(template, acct, n, phone=sms)
    psql(f"UPDATE documents SET status = 'SENT', sent_at = now() "
         f"WHERE account_id = '{acct['id']}' AND status = 'DRAFT' AND id <> '{template}'")
    if sms:
        psql(f"""INSERT INTO outbound_sms (id, account_id, document_id, recipient_id, kind, to_e164, link_token)
                 SELECT gen_random_uuid(), account_id, document_id, id, 'INVITATION', phone_e164,
                        'bench' || replace(id::text, '-', '')
                 FROM recipients WHERE account_id = '{acct['id']}' AND document_id <> '{template}'""")
    else:
        psql(f"""INSERT INTO outbound_emails (id, account_id, document_id, recipient_id, kind, message_id, link_token)
                 SELECT gen_random_uuid(), account_id, document_id, id, 'INVITATION',
                        '<' || gen_random_uuid() || '@bench.test>', 'bench' || replace(id::text, '-', '')
                 FROM recipients WHERE account_id = '{acct['id']}' AND document_id <> '{template}'""")
    psql("VACUUM ANALYZE outbound_emails, outbound_sms, documents, recipients")


def drain_rate(table, where, started, done_status):
    """Waits until no row of `table` matching `where` is PENDING; rows/s from the worker's start
    to the last outcome written, and the seconds that took."""
    while int(psql(f"SELECT count(*) FROM {table} WHERE {where} AND status = 'PENDING'")) > 0:
        if time.time() - started > 1800:
            raise SystemExit(f"{table} did not drain within 30 minutes")
        time.sleep(0.25)
    stamp = "updated_at" if table == "webhook_deliveries" else "sent_at"
    n, last = psql(f"SELECT count(*), extract(epoch FROM max({stamp})) FROM {table} "
                   f"WHERE {where} AND status = '{done_status}'").split("|")
    took = float(last) - started
    return int(n) / took, took


def queue(api):
    """The job queue at volume (issue #35): the no-op ceiling of the outbox machinery, e-mail
    dispatch to Postfix's smtp-sink, another account's single sends while one account's backlog
    of BACKLOG invitations drains, and SMS and webhook dispatch to a loopback HTTP receiver.
    Every worker runs with its defaults (pools of DATABASE_MAX_CONNECTIONS, default
    concurrency)."""
    ceilings = {}
    for accounts in (1, 100):
        ceiling = queue_ceiling(accounts=accounts)
        ceilings[accounts] = ceiling["jobs_per_sec"]
        record("queue", f"no-op outbox messages, {ceiling['jobs']:,} of {accounts} account(s) (the queue's ceiling)",
               f"{ceiling['jobs_per_sec']:,.0f} jobs/s",
               f"claimed, run by apalis and recorded; concurrency {ceiling['concurrency']}")
    noop = ceilings[1]  # the backlog below is one account's
    sink = PostfixSink()
    sink_rate = sink.ceiling()
    record("queue", "Postfix smtp-sink's own ceiling (smtp-source, 32 sessions, 20,000 messages)",
           f"{sink_rate:,.0f} messages/s", "`smtp-sink -u nobody 127.0.0.1:PORT 1024`")

    backlog = account("backlog")
    template = prepared_document(api, backlog, FIXTURES / "pdflatex-4-pages.pdf", 1, 1)
    log(f"queueing {BACKLOG:,} invitations")
    seed_queued(backlog, template, BACKLOG)
    other = account("single-sends")
    other_template = prepared_document(api, other, FIXTURES / "pdflatex-4-pages.pdf", 1, 1)
    drafts = seed_drafts(other_template, other, 2000)
    started = time.time()
    worker = start_worker(sink.port)
    pg = postgres_pids()
    cpu_before = {"worker": cpu_seconds([worker.proc.pid]), "smtp-sink": cpu_seconds([sink.process.proc.pid]),
                  "postgres": cpu_seconds(pg)}
    singles = 0
    while int(psql(f"SELECT count(*) FROM outbound_emails WHERE account_id = '{backlog['id']}' "
                   f"AND status = 'PENDING'")) > BACKLOG // 50:
        status, body = api.call("POST", f"/documents/{drafts[singles]}/send", other["key"], SEND_BODY)
        assert status == 200, body
        singles += 1
        time.sleep(0.2)
    rate, took = drain_rate("outbound_emails", f"account_id = '{backlog['id']}'", started, "SENT")
    cpu = {"worker": cpu_seconds([worker.proc.pid]) - cpu_before["worker"],
           "smtp-sink": cpu_seconds([sink.process.proc.pid]) - cpu_before["smtp-sink"],
           "postgres": cpu_seconds(pg) - cpu_before["postgres"]}
    drain_rate("outbound_emails", f"account_id = '{other['id']}'", started, "SENT")
    waits = [float(v) * 1000 for v in psql(
        f"SELECT extract(epoch FROM sent_at - created_at) FROM outbound_emails "
        f"WHERE account_id = '{other['id']}'").split()]
    record("queue", f"dispatch of {BACKLOG:,} queued invitations of one account to smtp-sink",
           f"{rate:,.0f} e-mails/s ({took:.1f} s)",
           "worker started → last outcome written; default concurrency and pools")
    record("queue", "e-mail dispatch ÷ no-op outbox throughput (1 account)", f"{rate / noop:.2f}")
    record("queue", "CPU during the dispatch (cores)",
           ", ".join(f"{name} {seconds / took:.2f}" for name, seconds in cpu.items()), "of 2")
    record("queue", f"another account's send → sent, while the backlog drains ({len(waits)} sends, 0.2 s apart)",
           f"p50 {percentile(waits, 50):,.0f} ms, p95 {percentile(waits, 95):,.0f} ms, "
           f"max {max(waits):,.0f} ms", "outbox row created → its outcome written (after smtp-sink's 250)")
    record("memory", "signet-worker peak RSS after the e-mail backlog", f"{worker.peak_rss_mib():.0f} MiB")
    worker.stop()

    receiver = HttpSink()
    texting = account("texting")
    sms_template = prepared_document(api, texting, FIXTURES / "pdflatex-4-pages.pdf", 1, 1)
    seed_queued(texting, sms_template, MESSAGES, sms=True)
    started = time.time()
    worker = start_worker(sink.port, SMS_PROVIDER="twilio", TWILIO_ACCOUNT_SID="ACbench",
                          TWILIO_AUTH_TOKEN="bench", SMS_FROM="+15005550006",
                          SMS_TWILIO_BASE_URL=f"http://127.0.0.1:{receiver.port}/",
                          SMS_PROVIDER_ALLOW_PRIVATE="true", WORKER_JOBS="sms")
    rate, took = drain_rate("outbound_sms", f"account_id = '{texting['id']}'", started, "SENT")
    record("queue", f"dispatch of {MESSAGES:,} queued SMS to a loopback Twilio-shaped receiver",
           f"{rate:,.0f} SMS/s ({took:.1f} s)", "`--jobs sms`, default concurrency; scripts/bench/http_sink.py")
    worker.stop()

    hooked = account("hooked")
    psql(f"UPDATE accounts SET webhook_url = 'http://127.0.0.1:{receiver.port}/hook' WHERE id = '{hooked['id']}'")
    psql(f"""INSERT INTO webhook_deliveries (id, account_id, event_id, event_type, payload)
             SELECT gen_random_uuid(), '{hooked['id']}', 'evt_' || replace(gen_random_uuid()::text, '-', ''),
                    'document.sent', '{{"type":"document.sent","data":{{}}}}'
             FROM generate_series(1, {MESSAGES})""")
    psql("VACUUM ANALYZE webhook_deliveries")
    started = time.time()
    worker = start_worker(sink.port, WEBHOOK_ALLOW_PRIVATE="true", WORKER_JOBS="webhook")
    rate, took = drain_rate("webhook_deliveries", f"account_id = '{hooked['id']}'", started, "DELIVERED")
    record("queue", f"delivery of {MESSAGES:,} queued webhook events to a loopback receiver",
           f"{rate:,.0f} deliveries/s ({took:.1f} s)", "`--jobs webhook`, default concurrency; each with its attempt row")
    record("memory", "signet-worker peak RSS after the webhook case", f"{worker.peak_rss_mib():.0f} MiB")
    worker.stop()


def send_and_await_invitation(api, acct, doc, sink, within=60):
    """Sends a one-signer document and waits until the sink has its invitation; its Message-ID."""
    status, body = api.call("POST", f"/documents/{doc}/send", acct["key"], SEND_BODY)
    assert status == 200, body
    message_id = psql(f"SELECT message_id FROM outbound_emails WHERE document_id = '{doc}'").strip("<>")
    deadline = time.time() + within
    while message_id not in sink.accepted():
        if time.time() > deadline:
            raise SystemExit(f"the invitation {message_id} did not arrive within {within} s")
        time.sleep(0.005)
    return message_id


def send_to_smtp_ms(api, acct, doc, sink):
    """Sends a one-signer document; milliseconds from its outbox row to the sink's acceptance."""
    message_id = send_and_await_invitation(api, acct, doc, sink)
    created_at = float(psql(
        f"SELECT extract(epoch FROM created_at) FROM outbound_emails WHERE document_id = '{doc}'"))
    return (sink.accepted()[message_id] - created_at) * 1000


def email(api):
    """Dispatch of every invitation the send case queued, then single sends on an idle worker."""
    pending = int(psql("SELECT count(*) FROM outbound_emails WHERE status = 'PENDING'"))
    if pending < 500:
        acct = account("mail")
        template = prepared_document(api, acct, FIXTURES / "pdflatex-4-pages.pdf", 1, 1)
        for doc in seed_drafts(template, acct, 2000):
            api.call("POST", f"/documents/{doc}/send", acct["key"], SEND_BODY)
        pending = int(psql("SELECT count(*) FROM outbound_emails WHERE status = 'PENDING'"))
    sink = SmtpSink()
    ceiling = SmtpSink()
    sink_rate = float(subprocess.run(
        [sys.executable, str(Path(__file__).parent / "smtp_clients.py"), str(ceiling.port), "8", "250"],
        check=True, capture_output=True, text=True).stdout)
    ceiling.process.stop()
    started = time.time()
    worker = start_worker(sink.port)
    pg = postgres_pids()
    cpu_before = {"worker": cpu_seconds([worker.proc.pid]), "sink": cpu_seconds([sink.process.proc.pid]),
                  "postgres": cpu_seconds(pg)}
    while int(psql("SELECT count(*) FROM outbound_emails WHERE status = 'PENDING'")) > 0:
        if time.time() - started > 900:
            raise SystemExit("e-mail dispatch did not finish within 15 minutes")
        time.sleep(0.25)
    took = time.time() - started
    cpu = {"worker": cpu_seconds([worker.proc.pid]) - cpu_before["worker"],
           "sink": cpu_seconds([sink.process.proc.pid]) - cpu_before["sink"],
           "postgres": cpu_seconds(pg) - cpu_before["postgres"]}
    accepted = sink.accepted()
    times = sorted(accepted.values())
    rate = len(times) / max(times[-1] - started, 1e-9)
    created = dict(line.split("|") for line in psql(
        "SELECT trim(message_id, '<>'), extract(epoch FROM created_at) FROM outbound_emails"
        " WHERE status = 'SENT'").splitlines())
    record("email", f"dispatch of {pending:,} queued e-mails to a loopback SMTP server",
           f"{rate:,.0f} e-mails/s", "worker started → last accepted; e-mail concurrency "
           + os.environ.get("WORKER_EMAIL_CONCURRENCY", "default (the jobs pool)"))
    record("email", "CPU during the dispatch (cores)",
           ", ".join(f"{name} {seconds / took:.2f}" for name, seconds in cpu.items()),
           "of 2; the rest is wrk-free idle or the kernel")
    record("email", "the SMTP sink's own ceiling (8 smtplib clients, 2,000 messages)",
           f"{sink_rate:,.0f} messages/s", "aiosmtpd in one Python process")
    ceiling = queue_ceiling()
    record("email", "no-op outbox messages on the same database (the queue's ceiling)",
           f"{ceiling['jobs_per_sec']:,.0f} jobs/s", f"{ceiling['jobs']} jobs, concurrency {ceiling['concurrency']}")
    record("email", "e-mail dispatch ÷ no-op job throughput", f"{rate / ceiling['jobs_per_sec']:.2f}")
    # Idle: one invitation at a time, send → SMTP accepted.
    acct = account("mail-idle")
    template = prepared_document(api, acct, FIXTURES / "pdflatex-4-pages.pdf", 1, 1)
    latencies = []
    for doc in seed_drafts(template, acct, 30):
        latencies.append(send_to_smtp_ms(api, acct, doc, sink))
        time.sleep(0.1)
    record("email", "send → SMTP accepted, idle worker (30 sends, one at a time)",
           f"p50 {percentile(latencies, 50):.0f} ms, p95 {percentile(latencies, 95):.0f} ms, "
           f"p99 {percentile(latencies, 99):.0f} ms")
    bulk = [(accepted[m] - float(c)) * 1000 for m, c in created.items() if m in accepted]
    record("email", "send → SMTP accepted during the bulk dispatch",
           f"p50 {percentile(bulk, 50):,.0f} ms, p95 {percentile(bulk, 95):,.0f} ms, "
           f"p99 {percentile(bulk, 99):,.0f} ms", "dominated by time in the queue")
    return worker, sink


def completion(api, sink):
    """Sign → COMPLETED with the worker idle: one document at a time, its link from the sink."""
    acct = account("completion")
    pdf = pdf_with_pages(20)
    timings = []
    for _ in range(ROUNDS):
        doc = prepared_document(api, acct, pdf, 1, 50, pages=20)
        message_id = send_and_await_invitation(api, acct, doc, sink)
        link = f"{api.base}/sign/{sink.links()[message_id]}"
        with urllib.request.urlopen(urllib.request.Request(f"{link}/session")) as r:
            fields = json.loads(r.read())["data"]["fields"]
        given = [{"id": f["id"], "value": "Bench Signer"} for f in fields]
        consent = urllib.request.Request(
            f"{link}/consent", data=b'{"language": "en"}', method="POST",
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(consent) as r:
            assert r.status == 200
        request = urllib.request.Request(
            f"{link}/submit", data=json.dumps({"fields": given}).encode(), method="POST",
            headers={"Content-Type": "application/json"})
        submitted = time.time()
        with urllib.request.urlopen(request) as r:
            assert r.status == 200
        while psql(f"SELECT status FROM documents WHERE id = '{doc}'") != "COMPLETED":
            if time.time() - submitted > 300:
                raise SystemExit("completion did not finish within 5 minutes")
            time.sleep(0.02)
        done = float(psql(f"SELECT extract(epoch FROM completed_at) FROM documents WHERE id = '{doc}'"))
        timings.append((done - submitted) * 1000)
    record("completion", "sign → COMPLETED, 20 pages and 50 fields (stamped PDF and certificate)",
           f"median {median(timings):,.0f} ms", f"{ROUNDS} documents, one at a time")


class WebhookSink:
    """A loopback webhook receiver that answers every delivery 204, in this process."""

    def __init__(self):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/signet"


def seed_due(api, name, n, webhook_url):
    """An account with n SENT documents a day past their expiry, each with one invited signer
    (so the expiry sends a notice) and a webhook URL (so it delivers an event)."""
    acct = account(name)
    template = prepared_document(api, acct, FIXTURES / "pdflatex-4-pages.pdf", 1, 1)
    seed_drafts(template, acct, n)
    psql(f"UPDATE documents SET status = 'SENT', sent_at = now() - interval '2 days', "
         f"expiry_date = now() - interval '1 day' WHERE account_id = '{acct['id']}' AND id <> '{template}'")
    psql(f"UPDATE recipients SET invited_at = now() - interval '2 days' WHERE account_id = '{acct['id']}'")
    psql(f"UPDATE accounts SET webhook_url = '{webhook_url}' WHERE id = '{acct['id']}'")
    # The whole database, as autovacuum would have it between two such bursts. The suite's
    # cluster runs with autovacuum off, so without this each round would also wade through the
    # dead rows of the rounds before: their 200,000 outbox rows sent or withdrawn under the
    # partial claim indexes (docs/performance.md, "Expiry at volume").
    psql("VACUUM ANALYZE")
    return acct


def check_expired(acct, n):
    """Every document expired once, with its audit entry, notice, event and delivery."""
    counts = psql(f"""
        SELECT (SELECT count(*) FROM audit_entries WHERE account_id = '{acct['id']}' AND event = 'EXPIRED'),
               (SELECT count(*) FROM outbound_emails WHERE account_id = '{acct['id']}' AND kind = 'EXPIRED'),
               (SELECT count(*) FROM events WHERE account_id = '{acct['id']}' AND event_type = 'document.expired'),
               (SELECT count(*) FROM webhook_deliveries WHERE account_id = '{acct['id']}'
                  AND event_type = 'document.expired')""")
    assert counts.split("|") == [str(n)] * 4, counts


def forget_queued():
    """Nothing left to send: the jobs, and the outbox rows (their own queue) still PENDING."""
    psql("DELETE FROM apalis.jobs")
    psql("UPDATE outbound_emails SET status = 'WITHDRAWN' WHERE status = 'PENDING'")
    psql("UPDATE outbound_sms SET status = 'WITHDRAWN' WHERE status = 'PENDING'")
    psql("UPDATE webhook_deliveries SET status = 'FAILED' WHERE status = 'PENDING'")


def expiry(api):
    """EXPIRY_DOCUMENTS due documents (each with one invited signer, in an account with a
    webhook URL) expired by a worker started with every job kind, ROUNDS times: worker started
    → none left SENT, while the same worker sends the notices and delivers the events. Then,
    for each of EXPIRY_BATCHES, the sweep alone (`--example expiry_batches`) at that batch size."""
    n = EXPIRY_DOCUMENTS
    hooks = WebhookSink()
    sink = SmtpSink()
    took = []
    for round_ in range(ROUNDS):
        acct = seed_due(api, f"expiry{round_}", n, hooks.url)
        started = time.time()
        worker = start_worker(sink.port, EXPIRY_SWEEP_CRON="* * * * * *")
        while int(psql(f"SELECT count(*) FROM documents WHERE account_id = '{acct['id']}' AND status = 'SENT'")) > 0:
            if time.time() - started > 1800:
                raise SystemExit("expiry did not finish within 30 minutes")
            time.sleep(0.2)
        took.append(time.time() - started)
        worker.stop()
        check_expired(acct, n)
        # The next round starts without this round's notices and deliveries still to send.
        forget_queued()
        log(f"expiry round {round_ + 1}: {took[-1]:.1f} s")
    if took:
        t = median(took)
        record("expiry", f"expiry of {n:,} due documents (each with one invited signer; webhook URL)",
               f"{t:.1f} s ({n / t:,.0f} documents/s)",
               f"median of {ROUNDS} ({', '.join(f'{x:.1f}' for x in took)} s); worker started → none left SENT; "
               "notices, events and deliveries queued in the same transactions, and sent meanwhile")
    for i, (batch, at_once) in enumerate(EXPIRY_BATCHES):
        acct = seed_due(api, f"expiry-batch{i}-{batch}", n, hooks.url)
        settings = {"EXPIRY_BATCH": str(batch)}
        if at_once is not None:
            settings["EXPIRY_BATCHES_AT_ONCE"] = str(at_once)
        out = subprocess.run(
            [str(RELEASE / "examples" / "expiry_batches")],
            env=base_env(**settings), check=True, capture_output=True, text=True,
        ).stdout
        result = json.loads(out.strip().splitlines()[-1])
        check_expired(acct, n)
        forget_queued()
        label = f"batches of {batch:,}" if batch else "one document at a time (before issue #35)"
        if batch and at_once is not None:
            label += f", {at_once} at once"
        record("expiry", f"the sweep alone, {label}",
               f"{result['seconds']:.1f} s ({result['documents_per_sec']:,.0f} documents/s)",
               f"`{' '.join(f'{k}={v}' for k, v in settings.items())} --example expiry_batches`, "
               f"nothing else running; {i} earlier sweeps' and {ROUNDS} rounds' documents in the database")


def bulk(api):
    """A bulk send of BULK_ROWS rows from a one-signer template, created and sent by the `bulk`
    kind and dispatched to a loopback SMTP sink, while another account sends one document at a
    time: rows/s, and the other account's send → SMTP accepted while the bulk send runs."""
    acct = account("bulk")
    draft = prepared_document(api, acct, FIXTURES / "pdflatex-4-pages.pdf", 1, 1)
    status, body = api.call("POST", "/templates", acct["key"], {"documentId": draft})
    assert status == 200, body
    template = body["data"]["id"]
    status, body = api.call("GET", f"/templates/{template}", acct["key"])
    role = body["data"]["roles"][0]["name"]
    rows = [{f"{role}.name": f"Bulk Signer {i}", f"{role}.email": f"bulk{i}@bench.test"}
            for i in range(BULK_ROWS)]
    other = account("bulk-other")
    other_template = prepared_document(api, other, FIXTURES / "pdflatex-4-pages.pdf", 1, 1)
    singles = iter(seed_drafts(other_template, other, 2000))
    sink = SmtpSink()
    worker = start_worker(sink.port)
    started = time.time()
    status, body = api.call("POST", f"/templates/{template}/bulk-sends", acct["key"],
                            {"rows": rows, **SEND_BODY})
    assert status == 202, body
    accepted_in = time.time() - started
    bulk_id = body["data"]["id"]
    latencies = []
    while True:
        status, body = api.call("GET", f"/bulk-sends/{bulk_id}", acct["key"])
        assert status == 200, body
        progress = body["data"]
        if progress["status"] != "RUNNING":
            made = time.time()
            break
        if time.time() - started > 1800:
            raise SystemExit("the bulk send did not finish within 30 minutes")
        latencies.append(send_to_smtp_ms(api, other, next(singles), sink))
        time.sleep(0.2)
    assert progress["sent"] == BULK_ROWS, progress
    while int(psql(f"SELECT count(*) FROM outbound_emails WHERE account_id = '{acct['id']}'"
                   " AND status = 'PENDING'")) > 0:
        if time.time() - started > 1800:
            raise SystemExit("the bulk send's invitations did not leave within 30 minutes")
        latencies.append(send_to_smtp_ms(api, other, next(singles), sink))
        time.sleep(0.2)
    delivered = time.time()
    record("bulk", f"POST /templates/{{id}}/bulk-sends, {BULK_ROWS:,} JSON rows (checked, stored, queued)",
           f"{accepted_in * 1000:,.0f} ms")
    record("bulk", f"bulk send of {BULK_ROWS:,} rows: documents made and sent",
           f"{BULK_ROWS / (made - started):,.0f} rows/s", "POST → status COMPLETED; the worker's default kinds")
    record("bulk", f"bulk send of {BULK_ROWS:,} rows: invitations accepted by the SMTP sink",
           f"{BULK_ROWS / (delivered - started):,.0f} e-mails/s", "POST → the last invitation accepted")
    record("bulk", f"another account's send → SMTP accepted while the bulk send runs ({len(latencies)} sends)",
           f"p50 {percentile(latencies, 50):,.0f} ms, p95 {percentile(latencies, 95):,.0f} ms, "
           f"max {max(latencies):,.0f} ms", "one at a time, 0.2 s apart; the bulk lane is taken after them")
    worker.stop()
    sink.process.stop()


def event_feed(api):
    """GET /events on an account of EVENTS events (issue #34): the first page, the middle one and
    the last, 100 events each; each is one range of the (account_id, txid, position) index, so
    the three should cost the same. Bodies of about 1.5 KiB, as a document's detail is."""
    acct = account("events")
    other = account("events-neighbour")
    started = time.time()
    for chunk in range(10):
        for who, n in [(acct, EVENTS // 10), (other, EVENTS // 10)]:
            psql(f"""
                INSERT INTO events (id, account_id, event_type, payload)
                SELECT gen_random_uuid(), '{who['id']}', 'document.signed',
                       json_build_object('type', 'document.signed', 'timestamp', now(),
                                         'data', json_build_object('n', {chunk * n} + i,
                                                                   'detail', repeat('x', 1500)))::text
                FROM generate_series(1, {n}) i ORDER BY i""")
    psql("VACUUM ANALYZE events")
    log(f"seeded {2 * EVENTS:,} events in {time.time() - started:.1f} s")
    # The cursors where the middle and the last page start, as an integrator gets them.
    cursors, after, pages = [None], None, EVENTS // 100
    for page in range(pages):
        query = "/events?limit=100" + (f"&after={after}" if after else "")
        status, body = api.call("GET", query, acct["key"])
        assert status == 200 and len(body["data"]["items"]) == 100, body
        after = body["data"]["nextCursor"]
        if page + 1 in (pages // 2, pages - 1):
            cursors.append(after)
    assert len(cursors) == 3, cursors
    for label, cursor in zip(["first", "middle", "last"], cursors):
        path = "/events?limit=100" + (f"&after={cursor}" if cursor else "")
        where = ""
        if cursor:
            raw = cursor + "=" * (-len(cursor) % 4)
            decoded = base64.urlsafe_b64decode(raw)
            txid = int.from_bytes(decoded[1:9], "big")
            position = int.from_bytes(decoded[9:17], "big", signed=True)
            where = f" AND (txid, position) > ('{txid}'::xid8, {position})"
        else:
            where = " AND (txid, position) > ('0'::xid8, 0)"
        sql = (auth_sql(acct)
               + "SELECT id, event_type, payload, created_at, txid::text AS txid_text, position FROM events"
               + f" WHERE account_id = '{acct['id']}'{where}"
               + " AND txid < pg_snapshot_xmin(pg_current_snapshot())"
               + " ORDER BY events.txid, events.position LIMIT 101;\n")
        compare("events", f"GET /events?limit=100, {label} page of {EVENTS:,} events",
                lambda: wrk(api.url(path), [acct["key"]]), sql)


# --- read replicas (issue #37) ---------------------------------------------------------------


class LocalCluster:
    """A PostgreSQL cluster of the benchmark's own on a free loopback port (initdb, or
    pg_basebackup -R of `primary`: a streaming replica), run as the postgres OS user when the
    benchmark runs as root; stopped when the benchmark ends."""

    running = []

    def __init__(self, primary=None):
        bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                      key=lambda p: int(p.parent.parent.name))
        if not bins:
            raise SystemExit("no initdb under /usr/lib/postgresql (apt-get install postgresql)")
        self.bin = bins[-1].parent
        self.dir = Path(tempfile.mkdtemp(prefix="signet-bench-pg-"))
        if os.geteuid() == 0:
            subprocess.run(["chown", "postgres:postgres", str(self.dir)], check=True)
        self.data = self.dir / "data"
        self.port = free_port()
        if primary is None:
            self.run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E",
                     "UTF8", "--no-sync", "--no-instructions")
        else:
            self.run("pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U",
                     "postgres", "-D", str(self.data), "-R", "-X", "stream", "--no-sync")
        options = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                   f"-c max_connections=200 -c shared_buffers=256MB")
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.dir / "server.log"), "-o",
                 options, "-w", "-t", "120", "start")
        LocalCluster.running.append(self)

    def run(self, program, *args):
        command = [str(self.bin / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, cwd="/")

    def url(self, database):
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def stop(self):
        if self in LocalCluster.running:
            LocalCluster.running.remove(self)
            self.run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")


def replicas():
    """List throughput with one primary, then with the primary and a streaming replica of it
    (`DATABASE_READ_URL`), the same API release binary and account: both clusters of the
    benchmark's own on this machine (they share its CPUs, as the API and wrk do)."""
    primary = LocalCluster()
    try:
        replica = LocalCluster(primary)
        try:
            replicas_on(primary, replica)
        finally:
            replica.stop()
    finally:
        primary.stop()


def replicas_on(primary, replica):
    name = "signet_bench_replicas"
    psql(f"CREATE DATABASE {name}", primary.url("postgres"))
    url, read_url = primary.url(name), replica.url(name)
    env = base_env(DATABASE_URL=url)
    subprocess.run([str(RELEASE / "signet-api"), "migrate"], env=env, check=True,
                   capture_output=True)
    psql("CREATE SEQUENCE bench_codes", url)

    def cli_on(*args):
        out = subprocess.run([str(RELEASE / "signet-api"), *args], env=env, check=True,
                             capture_output=True, text=True)
        return json.loads(out.stdout)

    created = cli_on("account", "create", "--name", "replicas", "--email",
                     "replicas@bench.test", "--usage-limit", "2000000000")
    key = cli_on("key", "generate", "--account", created["id"])["key"]
    seed_documents(created["id"], REPLICA_DOCUMENTS, url)
    # The replica has everything before the first measurement.
    target = psql("SELECT pg_current_wal_lsn()", url)
    deadline = time.time() + 300
    while psql(f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn", read_url) != "t":
        if time.time() > deadline:
            raise SystemExit("the replica did not catch up within 5 minutes")
        time.sleep(0.2)
    case = f"GET /documents?limit=10, {REPLICA_DOCUMENTS:,} documents"
    for label, extra in [("one primary", {}),
                         ("primary + 1 streaming replica", {"DATABASE_READ_URL": read_url})]:
        api = Api(DATABASE_URL=url, **extra)
        try:
            compare("replicas", f"{case}, {label}",
                    lambda: wrk(api.url("/documents?limit=10"), [key]), None,
                    "both clusters on this machine")
            if extra:
                with urllib.request.urlopen(f"{api.base}/metrics", timeout=10) as r:
                    metrics = r.read().decode()
                served = {m.group(1): float(m.group(2)) for m in re.finditer(
                    r'signet_db_reads_total\{served_by="(\w+)"\} ([\d.e+]+)', metrics)}
                record("replicas", "reads served by the replica / the primary",
                       f"{served.get('replica', 0):,.0f} / {served.get('primary', 0):,.0f}",
                       "DATABASE_READ_MAX_LAG_MS default")
        finally:
            api.process.stop()


def main():
    log(f"work directory {WORK}")
    psql(f"DROP DATABASE IF EXISTS {BENCH_DATABASE} WITH (FORCE)", ADMIN_URL)
    psql(f"CREATE DATABASE {BENCH_DATABASE}", ADMIN_URL)
    subprocess.run([str(RELEASE / "signet-api"), "migrate"], env=base_env(), check=True,
                   capture_output=True)
    psql("CREATE SEQUENCE bench_codes")  # unique document codes for seeded documents
    api = Api()
    try:
        if wanted("lists") or wanted("search"):
            accounts = {size: account(f"size{size}", size) for size in SIZES}
        elif wanted("hot"):
            accounts = {min(SIZES): account(f"size{min(SIZES)}", min(SIZES))}
        if wanted("lists") or wanted("search"):
            lists(api, accounts)
        if wanted("hot"):
            many = [account(f"many{i}", 100) for i in range(CONNECTIONS)]
            hot_row(api, accounts, many)
        if wanted("detail"):
            detail(api)
        if wanted("send"):
            send(api)
        if wanted("sms"):
            send_sms(api)
        if wanted("seal"):
            seal_timing()
        if wanted("email") or wanted("completion"):
            worker, sink = email(api)
            if wanted("completion"):
                completion(api, sink)
            record("memory", "signet-worker peak RSS after the e-mail cases",
                   f"{worker.peak_rss_mib():.0f} MiB")
            worker.stop()
        if wanted("expiry"):
            expiry(api)
        if wanted("bulk"):
            bulk(api)
        if wanted("queue"):
            queue(api)
        if wanted("events"):
            event_feed(api)
        if wanted("replicas"):
            replicas()
        record("memory", "signet-api peak RSS after every case", f"{api.process.peak_rss_mib():.0f} MiB")
    finally:
        for process in Process.running:
            process.stop()
        for cluster in list(LocalCluster.running):
            cluster.stop()
    print_results()


def print_results():
    machine = subprocess.run(["uname", "-srm"], capture_output=True, text=True).stdout.strip()
    cpus = os.cpu_count()
    print(f"\nSignet benchmark — {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {machine}, "
          f"{cpus} CPUs; {SECONDS} s × {ROUNDS} rounds (medians); wrk {CONNECTIONS} connections; "
          f"API and pgbench {POOL} database connections\n")
    print("| Case | Signet | Best SQL (pgbench) | Ratio | Note |")
    print("|---|---|---|---|---|")
    for _group, case, api_text, sql_text, ratio, note in results:
        print(f"| {case} | {api_text} | {sql_text} | {ratio} | {note} |")


if __name__ == "__main__":
    main()
