# syntax=docker/dockerfile:1
# Signet: one image with both binaries. `docker build -t signet .`
#   docker run signet                   -> signet-api serve (runs migrations first)
#   docker run signet signet-worker     -> the job worker
#   docker run signet signet-api account create --name N --email E

# ---- build ----
FROM rust:1-bookworm AS builder
WORKDIR /src
# apalis-postgres checks its SQL at compile time; use the cached query data, never a database.
ENV SQLX_OFFLINE=true

# Dependency-caching step: build the dependencies against stub crates, so this layer is
# reused until Cargo.toml / Cargo.lock change.
COPY Cargo.toml Cargo.lock ./
COPY .cargo .cargo
COPY api/Cargo.toml api/Cargo.toml
COPY worker/Cargo.toml worker/Cargo.toml
COPY common/Cargo.toml common/Cargo.toml
COPY pdf/Cargo.toml pdf/Cargo.toml
COPY i18n/Cargo.toml i18n/Cargo.toml
COPY tests/Cargo.toml tests/Cargo.toml
RUN mkdir -p api/src worker/src common/src pdf/src i18n/src tests/src \
    && echo 'fn main() {}' > api/src/main.rs \
    && echo 'fn main() {}' > worker/src/main.rs \
    && touch common/src/lib.rs pdf/src/lib.rs i18n/src/lib.rs tests/src/lib.rs \
    && cargo build --release --locked -p signet-api -p signet-worker \
    && rm -rf api/src worker/src common/src pdf/src i18n/src tests/src

# The real build. Touch the crate roots so cargo does not mistake them for the stubs above.
COPY . .
RUN touch api/src/main.rs api/src/lib.rs worker/src/main.rs common/src/lib.rs pdf/src/lib.rs \
        i18n/src/lib.rs \
    && cargo build --release --locked -p signet-api -p signet-worker \
    && cp target/release/signet-api target/release/signet-worker /usr/local/bin/

# ---- runtime ----
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --user-group --home-dir /var/lib/signet --shell /usr/sbin/nologin signet \
    && mkdir -p /var/lib/signet/files /var/lib/signet/mail /var/lib/signet/sms \
    && chown -R signet:signet /var/lib/signet
COPY --from=builder /usr/local/bin/signet-api /usr/local/bin/signet-worker /usr/local/bin/
WORKDIR /var/lib/signet
ENV BIND_ADDR=0.0.0.0:8080 \
    FILE_STORE_DIR=/var/lib/signet/files \
    MAIL_DIR=/var/lib/signet/mail \
    SMS_DIR=/var/lib/signet/sms \
    WORKER_ADMIN_ADDR=0.0.0.0:9091
USER signet
EXPOSE 8080 9091
CMD ["signet-api", "serve"]
