//! A TCP proxy a test can cut, in front of a real server.

use std::net::SocketAddr;

use crate::{postgres::TestDb, process::free_port};

/// A TCP proxy in front of a real server (PostgreSQL, the S3 server) that a test can cut
/// (dropping every connection and refusing new ones), make hang (accepting connections and
/// answering nothing) and restore, to see the service through an outage.
pub struct TcpProxy {
    pub port: u16,
    upstream: SocketAddr,
    hanging: std::sync::Arc<std::sync::atomic::AtomicBool>,
    state: std::sync::Arc<std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>>,
    connections: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl TcpProxy {
    pub async fn start(upstream: SocketAddr) -> Self {
        let proxy = Self {
            port: free_port(),
            upstream,
            hanging: Default::default(),
            state: Default::default(),
            connections: Default::default(),
        };
        proxy.restore().await;
        proxy
    }

    /// The URL of `db` reached through the proxy: the same URL with the proxy's host and port.
    pub fn url_for(&self, db: &TestDb) -> String {
        let url = db.url();
        let (prefix, rest) = match url.split_once('@') {
            Some((credentials, rest)) => (format!("{credentials}@"), rest),
            None => url
                .split_once("://")
                .map(|(s, r)| (format!("{s}://"), r))
                .expect("a URL"),
        };
        let path = rest.split_once('/').map_or("", |(_, path)| path);
        format!("{prefix}127.0.0.1:{}/{path}", self.port)
    }

    /// Closes the listening socket and every connection; returns once they are closed, so the
    /// port refuses connections (and can be bound again by `restore`).
    pub async fn cut(&self) {
        let listener = self.state.lock().unwrap().take();
        if let Some(listener) = listener {
            listener.abort();
            let _ = listener.await;
        }
        let connections: Vec<_> = self.connections.lock().unwrap().drain(..).collect();
        for connection in connections {
            connection.abort();
            let _ = connection.await;
        }
    }

    /// Cuts every connection, then accepts new ones and answers nothing on them (a server
    /// that hangs, or a network that drops its packets) until `cut` and `restore`.
    pub async fn hang(&self) {
        self.cut().await;
        self.listen(true).await;
    }

    pub async fn restore(&self) {
        self.listen(false).await;
    }

    async fn listen(&self, hang: bool) {
        self.hanging
            .store(hang, std::sync::atomic::Ordering::SeqCst);
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port))
            .await
            .expect("bind the proxy");
        let upstream = self.upstream;
        let connections = self.connections.clone();
        let hanging = self.hanging.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let hang = hanging.load(std::sync::atomic::Ordering::SeqCst);
                let connection = tokio::spawn(async move {
                    if hang {
                        // Read what the client sends, forward nothing, answer nothing.
                        let _ = tokio::io::copy(&mut client, &mut tokio::io::sink()).await;
                    } else if let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                connections.lock().unwrap().push(connection);
            }
        });
        *self.state.lock().unwrap() = Some(task);
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        if let Some(listener) = self.state.lock().unwrap().take() {
            listener.abort();
        }
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }
}
