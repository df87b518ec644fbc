//! A tiny HTTP forward proxy on 127.0.0.1 for tests of proxy settings: it records the request
//! line of every request it is asked to forward (`GET http://127.0.0.1:4321/v1/models HTTP/1.1`,
//! `CONNECT 127.0.0.1:4433 HTTP/1.1`), connects to the target and copies bytes both ways.
//!
//! Plain HTTP requests (absolute-form) are forwarded in origin-form with `Connection: close`, so
//! every request arrives on its own connection and is recorded; `CONNECT` opens a tunnel (HTTPS
//! through the proxy), of which only the `CONNECT` line is seen.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// The largest request head accepted.
const MAX_HEAD: usize = 64 * 1024;

/// A running forward proxy. Stops accepting when dropped.
pub struct ForwardProxy {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<String>>>,
    stop: Option<oneshot::Sender<()>>,
}

impl ForwardProxy {
    /// Binds a free port on 127.0.0.1 and serves on the current tokio runtime.
    pub async fn start() -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (stop, mut stopped) = oneshot::channel::<()>();
        let record = Arc::clone(&seen);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = &mut stopped => break,
                    accepted = listener.accept() => {
                        let Ok((client, _)) = accepted else { continue };
                        tokio::spawn(forward(client, Arc::clone(&record)));
                    }
                }
            }
        });
        Ok(Self {
            addr,
            seen,
            stop: Some(stop),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`: what HTTP_PROXY or a provider's `proxy` setting names.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The request lines received so far, in order.
    pub fn requests(&self) -> Vec<String> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Drop for ForwardProxy {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Reads up to the end of the request head; returns the head and any bytes after it.
async fn read_head(client: &mut TcpStream) -> std::io::Result<Option<(String, Vec<u8>)>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Ok(Some((String::from_utf8_lossy(&buf).into_owned(), rest)));
        }
        if buf.len() > MAX_HEAD {
            return Ok(None);
        }
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

async fn reply(client: &mut TcpStream, status: &str) {
    let _ = client
        .write_all(
            format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await;
}

async fn forward(mut client: TcpStream, seen: Arc<Mutex<Vec<String>>>) {
    let Ok(Some((head, rest))) = read_head(&mut client).await else {
        return;
    };
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default().to_owned();
    if let Ok(mut seen) = seen.lock() {
        seen.push(request_line.clone());
    }
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        reply(&mut client, "400 Bad Request").await;
        return;
    };

    if method.eq_ignore_ascii_case("CONNECT") {
        let Ok(mut upstream) = TcpStream::connect(target).await else {
            reply(&mut client, "502 Bad Gateway").await;
            return;
        };
        if client
            .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            .await
            .is_err()
        {
            return;
        }
        if !rest.is_empty() && upstream.write_all(&rest).await.is_err() {
            return;
        }
        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
        return;
    }

    // Absolute-form: http://host:port/path → connect to host:port, send /path.
    let Some(after_scheme) = target.strip_prefix("http://") else {
        reply(&mut client, "400 Bad Request").await;
        return;
    };
    let (authority, path) = match after_scheme.find('/') {
        Some(i) => (&after_scheme[..i], &after_scheme[i..]),
        None => (after_scheme, "/"),
    };
    let host_port = if authority.contains(':') {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let Ok(mut upstream) = TcpStream::connect(&host_port).await else {
        reply(&mut client, "502 Bad Gateway").await;
        return;
    };
    let mut out = format!("{method} {path} {version}\r\n");
    for line in lines.filter(|l| !l.is_empty()) {
        let name = line.split(':').next().unwrap_or_default().trim();
        if ["connection", "proxy-connection", "keep-alive"]
            .iter()
            .any(|h| name.eq_ignore_ascii_case(h))
        {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    if upstream.write_all(out.as_bytes()).await.is_err()
        || (!rest.is_empty() && upstream.write_all(&rest).await.is_err())
    {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
}
