//! `tessera serve`: bind the router to a loopback address (any address with `--allow-remote`)
//! and print the URL to open.

use std::{
    io::Write,
    net::{IpAddr, SocketAddr},
    path::PathBuf,
    sync::Arc,
};

use axum::extract::ConnectInfo;
use axum::Extension;
use thiserror::Error;
use tokio::net::TcpListener;
use tower::Layer;

use crate::{
    auth::{new_token, Guard, LocalAddr},
    router::{router, RouterConfig},
};

/// Descriptors kept for the process's own work beside connections: the database and its
/// readers, logs, attachments, providers' connections, MCP servers' pipes.
const RESERVED_DESCRIPTORS: u64 = 256;
/// Connections at most, whatever the descriptor limit: the API serves one person.
const MOST_CONNECTIONS: usize = 1024;

/// The shortest API token taken from TESSERA_TOKEN or --token: a guessable token gives a page
/// on this machine everything the person can do.
pub const MIN_TOKEN_CHARS: usize = 32;

#[derive(Debug, Error)]
pub enum ServeError {
    #[error(
        "refusing to listen on {0}: the API is for this machine only (use 127.0.0.1 or ::1), \
         unless --allow-remote is given to let other machines reach it"
    )]
    NotLoopback(IpAddr),
    #[error(
        "the token is {0} characters long: set TESSERA_TOKEN (or --token) to a random string \
         of at least {MIN_TOKEN_CHARS} characters, or leave it unset for a new one each start"
    )]
    ShortToken(usize),
    #[error("the UI folder {0} has no index.html (build it with `npm --prefix ui run build`, or pass --ui-dir)")]
    NoUi(PathBuf),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
}

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub host: IpAddr,
    pub port: u16,
    pub ui_dir: Option<PathBuf>,
    pub token: Option<String>,
    /// `--allow-remote`: listen on any address, for clients on other machines.
    pub allow_remote: bool,
    /// The application behind `/v1`; None serves the UI and `/api/v1` only.
    pub app: Option<tessera_app::App>,
}

/// What can be refused before anything is opened (so a refused command leaves no data folder).
pub fn check_options(opts: &ServeOptions) -> Result<(), ServeError> {
    if !opts.host.is_loopback() && !opts.allow_remote {
        return Err(ServeError::NotLoopback(opts.host));
    }
    if let Some(token) = &opts.token {
        let chars = token.trim().chars().count();
        if chars < MIN_TOKEN_CHARS {
            return Err(ServeError::ShortToken(chars));
        }
    }
    if let Some(dir) = &opts.ui_dir {
        if !dir.join("index.html").is_file() {
            return Err(ServeError::NoUi(dir.clone()));
        }
    }
    Ok(())
}

/// Runs until ctrl-c or SIGTERM.
pub async fn serve(opts: ServeOptions) -> Result<(), ServeError> {
    check_options(&opts)?;
    let addr = SocketAddr::new(opts.host, opts.port);
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    let local = listener.local_addr()?;
    let token = opts.token.unwrap_or_else(new_token);
    let mut guard = Guard::new(token.clone(), local.port());
    if opts.allow_remote {
        guard = guard.allowing_remote();
    }
    if !local.ip().is_loopback() {
        let place = if local.ip().is_unspecified() {
            format!("every address of this machine, port {}", local.port())
        } else {
            local.to_string()
        };
        eprintln!(
            "tessera serve: warning: the API is reachable from the network on {place} \
             (--allow-remote; plain HTTP: anyone who learns the token can use it and read \
             your conversations)"
        );
    }
    let app = router(RouterConfig {
        guard: Arc::new(guard),
        ui_dir: opts.ui_dir,
        app: opts.app,
    });
    // Listen for SIGTERM before announcing the URL, so a script that reads the line and then
    // asks the server to stop always gets a graceful exit.
    let shutdown = shutdown_signal()?;
    // A server on every interface is also on loopback: the URL for the browser here.
    let shown_host = match local.ip() {
        IpAddr::V6(ip) if ip.is_unspecified() => "[::1]".to_owned(),
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) if ip.is_unspecified() => "127.0.0.1".to_owned(),
        IpAddr::V4(ip) => ip.to_string(),
    };
    // Raised before the URL is announced: whoever reads the line finds the limits in force.
    let limits = tessera_local::serve_limits::Limits::for_this_process(
        RESERVED_DESCRIPTORS,
        MOST_CONNECTIONS,
    );
    // Scripts and tests read this exact line; the token sits in the fragment so that it never
    // reaches a server log.
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Listening on http://{shown_host}:{}/#token={token}",
        local.port()
    )?;
    out.flush()?;
    drop(out);
    tracing::info!(
        port = local.port(),
        max_connections = limits.max_connections,
        "tessera serve is listening"
    );
    // Each connection records the address it arrived at, for the Host check.
    let connection = |stream: &tokio::net::TcpStream| {
        Extension(ConnectInfo(LocalAddr(stream.local_addr().ok()))).layer(app.clone())
    };
    tessera_local::serve_limits::serve(listener, limits, connection, shutdown).await?;
    Ok(())
}

fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    Ok(async move {
        #[cfg(unix)]
        let term = async move {
            term.recv().await;
        };
        #[cfg(not(unix))]
        let term = std::future::pending::<()>();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {},
            () = term => {},
        }
    })
}
