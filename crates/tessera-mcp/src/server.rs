//! One MCP server: started on demand (the first run that wants tools, or the settings page),
//! within a start-up timeout; checked with a ping now and then; after a failure it waits
//! longer each time (1 s, 2 s, 4 s … 60 s) before it is started again. Its state and the reason
//! of a failure are always there to show.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tessera_engine::sync::lock;

use rmcp::service::{RoleClient, RunningService};
use rmcp::ServiceExt;
use tessera_secrets::{get_secret, KeyStore};
use tokio::io::AsyncBufReadExt;
use tokio::sync::watch;

use crate::client::{Calls, TesseraClient};
use crate::config::{keyring_account, ServerConfig, Transport, KEYRING_MARK};
use crate::log::ServerLog;
use crate::unavailable::{ConnectError, Unavailable};

/// How often a ready server is pinged.
const HEALTH_EVERY: Duration = Duration::from_secs(30);
/// How long a ping may take.
const PING_WITHIN: Duration = Duration::from_secs(10);
/// The longest wait before starting a failed server again.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// What a child process gets of Tessera's environment: enough to run (find programs, a home,
/// a language), never Tessera's own token or a provider's key.
const PASSED_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TMPDIR",
    "TEMP",
    "TMP",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "SYSTEMROOT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "NODE_EXTRA_CA_CERTS",
];

/// A live connection.
pub struct Connection {
    pub(crate) service: RunningService<RoleClient, TesseraClient>,
    /// Replaced whole when the server lists its tools again: what was built from a list is
    /// kept while the list is the same `Arc`.
    pub(crate) tools: Mutex<Arc<Vec<rmcp::model::Tool>>>,
    /// The server's name and version, as it gave them.
    pub(crate) implementation: String,
}

impl Connection {
    /// The tools it listed last.
    pub(crate) fn tools(&self) -> Arc<Vec<rmcp::model::Tool>> {
        Arc::clone(&lock(&self.tools))
    }

    /// Whether the connection still works: rmcp's own flag only covers a cancel, so the loop
    /// having dropped its end (the process exited, the stream closed) is checked too.
    pub(crate) fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }
}

/// Where a server is.
#[derive(Clone)]
pub enum Phase {
    /// Not started yet (started on demand).
    Idle,
    Starting,
    Ready(Arc<Connection>),
    Failed {
        reason: String,
        attempts: u32,
        retry_at: Instant,
    },
    Disabled,
}

use tessera_protocol::mcp_api::McpServerStatus;

/// One configured server and its connection.
pub struct ServerSlot {
    pub(crate) config: ServerConfig,
    keyring: Arc<dyn KeyStore>,
    pub(crate) log: Arc<ServerLog>,
    phase: watch::Sender<Phase>,
    pub(crate) calls: Arc<Calls>,
    tools_changed: Arc<AtomicBool>,
}

fn backoff(attempts: u32) -> Duration {
    let doublings = attempts.saturating_sub(1).min(6);
    Duration::from_secs(1u64 << doublings).min(MAX_BACKOFF)
}

impl ServerSlot {
    pub fn new(config: ServerConfig, keyring: Arc<dyn KeyStore>, log: Arc<ServerLog>) -> Arc<Self> {
        let first = if config.disabled {
            Phase::Disabled
        } else {
            Phase::Idle
        };
        Arc::new(Self {
            config,
            keyring,
            log,
            phase: watch::channel(first).0,
            calls: Arc::new(Calls::default()),
            tools_changed: Arc::new(AtomicBool::new(false)),
        })
    }

    pub fn name(&self) -> &str {
        &self.config.name
    }

    pub fn shown(&self) -> McpServerStatus {
        match &*self.phase.borrow() {
            Phase::Idle => McpServerStatus::Idle,
            Phase::Starting => McpServerStatus::Starting,
            Phase::Ready(c) if c.is_closed() => McpServerStatus::Failed {
                reason: "the server stopped".into(),
                attempts: 1,
                retry_in_ms: 0,
            },
            Phase::Ready(c) => McpServerStatus::Ready {
                server: c.implementation.clone(),
            },
            Phase::Failed {
                reason,
                attempts,
                retry_at,
            } => McpServerStatus::Failed {
                reason: reason.clone(),
                attempts: *attempts,
                retry_in_ms: retry_at
                    .saturating_duration_since(Instant::now())
                    .as_millis() as u64,
            },
            Phase::Disabled => McpServerStatus::Disabled,
        }
    }

    /// The connection, starting the server if it is not running (and not waiting out a
    /// back-off). Waits at most the start-up timeout; the reason when there is none.
    pub async fn ensure(self: &Arc<Self>) -> Result<Arc<Connection>, Unavailable> {
        let mut rx = self.phase.subscribe();
        let current = rx.borrow_and_update().clone();
        match current {
            Phase::Ready(c) if !c.is_closed() => {
                if self.tools_changed.swap(false, Ordering::SeqCst) {
                    self.refresh_tools(&c).await;
                }
                return Ok(c);
            }
            Phase::Ready(_) => {
                self.fail(
                    "the server stopped (its process ended or the connection closed)",
                    0,
                );
                return Err(self.unavailable());
            }
            Phase::Disabled => return Err(Unavailable::Disabled),
            Phase::Failed { retry_at, .. } if Instant::now() < retry_at => {
                return Err(self.unavailable())
            }
            Phase::Starting => {}
            Phase::Idle | Phase::Failed { .. } => {
                self.phase.send_replace(Phase::Starting);
                let slot = Arc::clone(self);
                tokio::spawn(async move { slot.start().await });
            }
        }
        let limit = Duration::from_secs(self.config.startup_timeout_secs) + Duration::from_secs(1);
        let settled =
            tokio::time::timeout(limit, rx.wait_for(|p| !matches!(p, Phase::Starting))).await;
        match settled.ok().and_then(|r| r.ok()).map(|p| p.clone()) {
            Some(Phase::Ready(c)) => Ok(c),
            Some(_) => Err(self.unavailable()),
            None => Err(Unavailable::StillStarting {
                server: self.config.name.clone(),
                secs: self.config.startup_timeout_secs,
            }),
        }
    }

    fn unavailable(&self) -> Unavailable {
        match self.shown() {
            McpServerStatus::Failed {
                reason,
                retry_in_ms,
                ..
            } => Unavailable::Failed {
                reason,
                retry_in_ms,
            },
            McpServerStatus::Disabled => Unavailable::Disabled,
            _ => Unavailable::NotRunning,
        }
    }

    fn attempts(&self) -> u32 {
        match &*self.phase.borrow() {
            Phase::Failed { attempts, .. } => *attempts,
            _ => 0,
        }
    }

    fn fail(&self, reason: &str, previous: u32) {
        // Shown in the status, the log and a tool failure: the transport's words may quote the
        // URL or a value the server was given.
        let reason = &self.log.scrub(reason);
        let attempts = previous + 1;
        let wait = backoff(attempts);
        self.log.note(&format!(
            "failed: {reason}; next try in {} s",
            wait.as_secs()
        ));
        tracing::warn!(server = %self.config.name, %reason, "an MCP server failed");
        self.phase.send_replace(Phase::Failed {
            reason: reason.to_owned(),
            attempts,
            retry_at: Instant::now() + wait,
        });
    }

    async fn start(self: Arc<Self>) {
        let previous = self.attempts();
        let limit = Duration::from_secs(self.config.startup_timeout_secs);
        self.log.note(&format!("starting {}", self.config.uri()));
        match tokio::time::timeout(limit, self.connect()).await {
            Ok(Ok(connection)) => {
                let connection = Arc::new(connection);
                self.log.note(&format!(
                    "ready: {} with {} tools",
                    connection.implementation,
                    lock(&connection.tools).len()
                ));
                self.phase
                    .send_replace(Phase::Ready(Arc::clone(&connection)));
                tokio::spawn(watch_health(Arc::downgrade(&self), connection));
            }
            Ok(Err(error)) => self.fail(&error.to_string(), previous),
            Err(_) => self.fail(
                &ConnectError::Timeout(limit.as_secs()).to_string(),
                previous,
            ),
        }
    }

    async fn secret(
        &self,
        place: crate::config::SecretPlace,
        name: &str,
    ) -> Result<String, ConnectError> {
        let account = keyring_account(&self.config.name, place, name);
        match get_secret(&self.keyring, &account).await {
            Ok(Some(secret)) => Ok(secret.expose().to_owned()),
            Ok(None) => Err(ConnectError::SecretGone {
                name: name.to_owned(),
            }),
            Err(error) => Err(ConnectError::SecretUnreadable {
                name: name.to_owned(),
                error,
            }),
        }
    }

    async fn resolved(
        &self,
        place: crate::config::SecretPlace,
        map: &BTreeMap<String, String>,
    ) -> Result<Vec<(String, String)>, ConnectError> {
        let mut out = Vec::new();
        for (name, value) in map {
            let value = if value == KEYRING_MARK {
                self.secret(place, name).await?
            } else {
                value.clone()
            };
            out.push((name.clone(), value));
        }
        Ok(out)
    }

    /// The secret values the server is started with, kept out of its log and errors.
    async fn secret_values(&self) -> Vec<String> {
        let mut values = Vec::new();
        for (place, name) in self.config.secret_names() {
            // One that cannot be read fails the start, with its own error.
            if let Ok(value) = self.secret(place, &name).await {
                if place == crate::config::SecretPlace::Url {
                    values.extend(url_secret_parts(&value));
                }
                values.push(value);
            }
        }
        values
    }

    async fn connect(&self) -> Result<Connection, ConnectError> {
        self.log.keep_out(self.secret_values().await);
        let client = TesseraClient {
            server: self.config.name.clone(),
            calls: Arc::clone(&self.calls),
            tools_changed: Arc::clone(&self.tools_changed),
        };
        let service = match &self.config.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let env = self.resolved(crate::config::SecretPlace::Env, env).await?;
                let mut real_args = Vec::with_capacity(args.len());
                for (i, arg) in args.iter().enumerate() {
                    real_args.push(if arg.contains(KEYRING_MARK) {
                        let secret = self
                            .secret(crate::config::SecretPlace::Arg, &i.to_string())
                            .await?;
                        arg.replacen(KEYRING_MARK, &secret, 1)
                    } else {
                        arg.clone()
                    });
                }
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(real_args).env_clear().kill_on_drop(true);
                for name in PASSED_ENV {
                    if let Some(value) = std::env::var_os(name) {
                        cmd.env(name, value);
                    }
                }
                cmd.envs(env);
                if let Some(cwd) = cwd {
                    cmd.current_dir(cwd);
                }
                // The server leads a process group of its own, ended whole with it: a server
                // started through `npx` or a shell leaves no orphan behind.
                let mut wrapped = process_wrap::tokio::CommandWrap::from(cmd);
                wrapped
                    .wrap(process_wrap::tokio::ProcessGroup::leader())
                    .wrap(process_wrap::tokio::KillOnDrop);
                let (transport, stderr) = rmcp::transport::TokioChildProcess::builder(wrapped)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|error| ConnectError::Spawn {
                        command: command.clone(),
                        error,
                    })?;
                if let Some(stderr) = stderr {
                    let log = Arc::clone(&self.log);
                    tokio::spawn(async move {
                        let mut lines = tokio::io::BufReader::new(stderr).lines();
                        while let Ok(Some(line)) = lines.next_line().await {
                            // A server may print its own key: the log scrubs every line.
                            log.server_line(&line);
                        }
                    });
                }
                client
                    .serve(transport)
                    .await
                    .map_err(|e| ConnectError::Handshake(e.to_string()))?
            }
            Transport::Http { url, headers } => {
                let headers = self
                    .resolved(crate::config::SecretPlace::Header, headers)
                    .await?;
                let real_url = if url.contains(KEYRING_MARK) {
                    self.secret(crate::config::SecretPlace::Url, "url").await?
                } else {
                    url.clone()
                };
                let transport = crate::http::transport(&real_url, &headers)?;
                client
                    .serve(transport)
                    .await
                    .map_err(|e| ConnectError::HttpHandshake {
                        uri: self.config.uri(),
                        message: self.log.scrub(&e.to_string()),
                    })?
            }
        };
        let implementation = service
            .peer()
            .peer_info()
            .and_then(|info| {
                let s = info.server_info.as_ref()?;
                Some(format!("{} {}", s.name, s.version))
            })
            .unwrap_or_else(|| self.config.name.clone());
        let tools = service
            .list_all_tools()
            .await
            .map_err(|e| ConnectError::ListTools(e.to_string()))?;
        Ok(Connection {
            service,
            tools: Mutex::new(Arc::new(tools)),
            implementation,
        })
    }

    async fn refresh_tools(&self, connection: &Connection) {
        match connection.service.list_all_tools().await {
            Ok(tools) => {
                *lock(&connection.tools) = Arc::new(tools);
            }
            Err(error) => self
                .log
                .note(&format!("cannot list the tools again: {error}")),
        }
    }

    /// Stops the server (when its settings change or it is removed); it starts again on
    /// demand unless it is turned off.
    pub async fn stop(&self) {
        let previous = self.phase.send_replace(if self.config.disabled {
            Phase::Disabled
        } else {
            Phase::Idle
        });
        if let Phase::Ready(connection) = previous {
            connection.service.cancellation_token().cancel();
            self.log.note("stopped");
        }
    }

    /// Starts the server again now, whatever its back-off says.
    pub async fn restart(self: &Arc<Self>) -> Result<Arc<Connection>, Unavailable> {
        self.stop().await;
        if self.config.disabled {
            return Err(Unavailable::Disabled);
        }
        self.ensure().await
    }

    /// The tools it has, if it is ready.
    pub fn ready_tools(&self) -> Vec<rmcp::model::Tool> {
        match &*self.phase.borrow() {
            Phase::Ready(c) => lock(&c.tools).to_vec(),
            _ => Vec::new(),
        }
    }
}

/// The parts of a URL that may be secret on their own, as a transport may quote them apart
/// from the URL: its user info and password, its query values, its fragment.
fn url_secret_parts(url: &str) -> Vec<String> {
    let Some((_, rest)) = url.split_once("://") else {
        return Vec::new();
    };
    let mut parts = Vec::new();
    let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
    if let Some((user_info, _)) = before_query.rsplit_once('@') {
        parts.push(user_info.to_owned());
        if let Some((_, password)) = user_info.split_once(':') {
            parts.push(password.to_owned());
        }
    }
    parts.extend(
        query
            .split('&')
            .filter_map(|pair| pair.split_once('=').map(|(_, v)| v.to_owned())),
    );
    parts.push(fragment.to_owned());
    parts.retain(|p| !p.is_empty());
    parts
}

/// Pings the server now and then; a server that stopped or does not answer is marked failed
/// (and started again on demand, after its back-off).
async fn watch_health(slot: std::sync::Weak<ServerSlot>, connection: Arc<Connection>) {
    loop {
        tokio::select! {
            () = tokio::time::sleep(HEALTH_EVERY) => {}
            () = closed_signal(&connection) => {}
        }
        let Some(slot) = slot.upgrade() else { return };
        let still_ours =
            matches!(&*slot.phase.borrow(), Phase::Ready(c) if Arc::ptr_eq(c, &connection));
        if !still_ours {
            return;
        }
        if connection.is_closed() {
            slot.fail(
                "the server stopped (its process ended or the connection closed)",
                0,
            );
            return;
        }
        let ping = connection
            .service
            .peer()
            .send_request(rmcp::model::ClientRequest::PingRequest(
                rmcp::model::PingRequest::default(),
            ));
        match tokio::time::timeout(PING_WITHIN, ping).await {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => {
                slot.fail(&format!("it did not answer a ping: {error}"), 0);
                connection.service.cancellation_token().cancel();
                return;
            }
            Err(_) => {
                slot.fail(
                    &format!(
                        "it did not answer a ping within {} s",
                        PING_WITHIN.as_secs()
                    ),
                    0,
                );
                connection.service.cancellation_token().cancel();
                return;
            }
        }
    }
}

/// Resolves when the connection closes (checked once a second: rmcp gives no signal for it
/// that can be awaited by reference).
async fn closed_signal(connection: &Connection) {
    while !connection.is_closed() {
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_s_secret_parts_are_known_apart() {
        assert_eq!(
            url_secret_parts("http://me:pw@h.example:1/mcp?sig=abc&v=2#frag"),
            ["me:pw", "pw", "abc", "2", "frag"]
        );
        assert!(url_secret_parts("http://h.example/mcp").is_empty());
    }

    #[test]
    fn the_wait_doubles_up_to_a_minute() {
        assert_eq!(backoff(1), Duration::from_secs(1));
        assert_eq!(backoff(2), Duration::from_secs(2));
        assert_eq!(backoff(4), Duration::from_secs(8));
        assert_eq!(backoff(30), MAX_BACKOFF);
    }
}
