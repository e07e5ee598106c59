//! SMTP connections with Nagle's algorithm off, kept open and reused.
//!
//! lettre 0.11.23 (the latest release) opens its sockets without `TCP_NODELAY` and writes a
//! message's body and its closing `<CRLF>.<CRLF>` as two writes: the second waits for the
//! server's delayed ACK, 40 ms on Linux, on every message. That capped one connection at about
//! 22 messages a second and the worker at ~100 e-mails/s (docs/performance.md). lettre has
//! merged the fix (lettre/lettre#1159) but not released it. Until it does, the worker dials
//! plain and STARTTLS servers itself, sets `TCP_NODELAY`, and hands the socket to lettre's
//! `AsyncSmtpConnection`, which speaks SMTP, STARTTLS and AUTH as before. Implicit TLS
//! (`smtps://`) stays on lettre's own transport and pool, with the stall.

use std::{
    sync::Mutex,
    time::{Duration, Instant},
};

use lettre::{
    address::Envelope,
    transport::smtp::{
        authentication::{Credentials, Mechanism},
        client::{AsyncSmtpConnection, TlsParameters},
        extension::ClientId,
    },
};

/// How long dialling the server or one SMTP exchange may take.
const TIMEOUT: Duration = Duration::from_secs(60);
/// Connections kept open between messages.
const MAX_IDLE: usize = 16;
/// An idle connection older than this is closed rather than reused (servers drop idle
/// sessions after a few minutes; this process should not hold them meanwhile either).
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// STARTTLS as `SMTP_URL` asks for it (`?tls=required` or `?tls=opportunistic`).
#[derive(Clone)]
enum StartTls {
    Never,
    IfOffered(TlsParameters),
    Required(TlsParameters),
}

/// A plain or STARTTLS SMTP server (`smtp://[user:password@]host[:port][?tls=…]`).
pub struct SmtpPool {
    host: String,
    port: u16,
    starttls: StartTls,
    credentials: Option<Credentials>,
    hello: ClientId,
    /// Connections waiting for the next message, with the time each was last used.
    idle: Mutex<Vec<(AsyncSmtpConnection, Instant)>>,
}

impl SmtpPool {
    /// `None` for URLs it does not serve (`smtps://`): those go to lettre's transport.
    pub fn from_url(smtp_url: &str) -> Result<Option<Self>, String> {
        let url = url::Url::parse(smtp_url).map_err(|e| e.to_string())?;
        if url.scheme() != "smtp" {
            return Ok(None);
        }
        let host = url.host_str().ok_or("smtp host undefined")?.to_owned();
        let tls = url
            .query_pairs()
            .find(|(k, _)| k == "tls")
            .map(|(_, v)| v.into_owned());
        let parameters = || TlsParameters::new(host.clone()).map_err(|e| e.to_string());
        let (starttls, default_port) = match tls.as_deref() {
            None => (StartTls::Never, 25),
            Some("required") => (StartTls::Required(parameters()?), 587),
            Some("opportunistic") => (StartTls::IfOffered(parameters()?), 587),
            Some(other) => return Err(format!("unknown tls parameter {other:?}")),
        };
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8()
                .map(|s| s.into_owned())
                .map_err(|_| "user or password is not UTF-8".to_owned())
        };
        let credentials = (!url.username().is_empty())
            .then(|| -> Result<Credentials, String> {
                Ok(Credentials::new(
                    decode(url.username())?,
                    decode(url.password().unwrap_or_default())?,
                ))
            })
            .transpose()?;
        Ok(Some(Self {
            port: url.port().unwrap_or(default_port),
            host,
            starttls,
            credentials,
            hello: ClientId::default(),
            idle: Mutex::new(Vec::new()),
        }))
    }

    /// Sends one message on an idle connection (checked with NOOP) or a new one.
    pub async fn send(&self, envelope: &Envelope, message: &[u8]) -> Result<(), SendError> {
        let reused = self.idle.lock().expect("not poisoned").pop();
        let mut connection = match reused {
            Some((mut connection, used)) => {
                if used.elapsed() < IDLE_TIMEOUT && connection.test_connected().await {
                    connection
                } else {
                    connection.abort().await;
                    self.connect().await?
                }
            }
            None => self.connect().await?,
        };
        let sent = match tokio::time::timeout(TIMEOUT, connection.send(envelope, message)).await {
            Ok(sent) => sent.map_err(SendError::from),
            Err(_) => Err(timed_out()),
        };
        match &sent {
            Ok(_) if !connection.has_broken() => self.keep(connection),
            _ => connection.abort().await,
        }
        sent.map(drop)
    }

    fn keep(&self, connection: AsyncSmtpConnection) {
        let mut idle = self.idle.lock().expect("not poisoned");
        if idle.len() < MAX_IDLE {
            idle.push((connection, Instant::now()));
        }
    }

    /// Dials the server with `TCP_NODELAY`, greets it, upgrades to TLS and authenticates as
    /// `SMTP_URL` says.
    async fn connect(&self) -> Result<AsyncSmtpConnection, SendError> {
        let setup = async {
            let dialled = tokio::net::TcpStream::connect((self.host.as_str(), self.port))
                .await
                .map_err(|e| SendError::transient(format!("connecting to the SMTP server: {e}")))?;
            dialled
                .set_nodelay(true)
                .map_err(|e| SendError::transient(format!("TCP_NODELAY: {e}")))?;
            let mut connection =
                AsyncSmtpConnection::connect_with_transport(Box::new(dialled), &self.hello).await?;
            let upgrade = match &self.starttls {
                StartTls::Never => None,
                StartTls::IfOffered(parameters) => connection.can_starttls().then_some(parameters),
                StartTls::Required(parameters) => Some(parameters),
            };
            if let Some(parameters) = upgrade {
                connection.starttls(parameters.clone(), &self.hello).await?;
            }
            if let Some(credentials) = &self.credentials {
                connection
                    .auth(&[Mechanism::Plain, Mechanism::Login], credentials)
                    .await?;
            }
            Ok(connection)
        };
        tokio::time::timeout(TIMEOUT, setup)
            .await
            .unwrap_or_else(|_| Err(timed_out()))
    }
}

fn timed_out() -> SendError {
    SendError::transient("the SMTP server did not answer in time".to_owned())
}

/// A failed send. A permanent one (an SMTP 5xx such as an unknown mailbox, or a message that
/// cannot be built) is not retried.
#[derive(Debug)]
pub struct SendError {
    pub message: String,
    pub permanent: bool,
}

impl SendError {
    /// A failure worth trying again (the server unreachable or slow).
    pub fn transient(message: String) -> Self {
        Self {
            message,
            permanent: false,
        }
    }
}

impl From<SendError> for signet_common::delivery::retry::SendFailure {
    fn from(e: SendError) -> Self {
        Self {
            message: e.message,
            permanent: e.permanent,
        }
    }
}

impl From<lettre::transport::smtp::Error> for SendError {
    fn from(e: lettre::transport::smtp::Error) -> Self {
        Self {
            permanent: e.is_permanent(),
            message: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(url: &str) -> SmtpPool {
        SmtpPool::from_url(url)
            .unwrap()
            .expect("served by the pool")
    }

    #[test]
    fn reads_smtp_url_as_lettre_does() {
        let plain = pool("smtp://mail.example.com");
        assert_eq!((plain.host.as_str(), plain.port), ("mail.example.com", 25));
        assert!(matches!(plain.starttls, StartTls::Never));
        assert!(plain.credentials.is_none());

        let required = pool("smtp://u%40x.com:p%3Ass%2Bw@mail.example.com?tls=required");
        assert_eq!(required.port, 587);
        assert!(matches!(required.starttls, StartTls::Required(_)));
        assert_eq!(
            required.credentials,
            Some(Credentials::new("u@x.com".into(), "p:ss+w".into()))
        );

        let opportunistic = pool("smtp://127.0.0.1:2525?tls=opportunistic");
        assert_eq!(opportunistic.port, 2525);
        assert!(matches!(opportunistic.starttls, StartTls::IfOffered(_)));
    }

    #[test]
    fn leaves_implicit_tls_to_lettre_and_refuses_unknown_tls_modes() {
        assert!(
            SmtpPool::from_url("smtps://mail.example.com")
                .unwrap()
                .is_none()
        );
        assert!(SmtpPool::from_url("smtp://mail.example.com?tls=sometimes").is_err());
        assert!(SmtpPool::from_url("not a url").is_err());
    }
}
