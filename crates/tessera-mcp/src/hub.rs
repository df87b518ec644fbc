//! All configured servers of a data folder: their settings (kept in `mcp.json`, secrets in the
//! keyring), their state and logs, their tools for each run (a [`ToolSource`]), their
//! resources and prompts. A server that fails or hangs only loses its own tools.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use tessera_engine::sync::{read, write};

use serde_json::Value;
use tessera_engine::tools::{SourcedTools, ToolSource};
use tessera_secrets::{delete_secret, set_secret, KeyStore, Secret};

use crate::config::{
    self, keyring_account, parse_server, split_secrets, ConfigError, SecretPlace, ServerConfig,
};
use crate::log::ServerLog;
use crate::served::ServedTools;
use crate::server::ServerSlot;
use crate::tools::{listing_wait, safety_of, tool_name};
use tessera_protocol::mcp_api::{McpPrompt, McpResource, McpServerView, McpToolView};
use tessera_store::Store;

/// Why a change to the servers was refused.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("no MCP server named `{0}`")]
    NotFound(String),
    #[error("cannot keep the secret `{name}` in the keyring: {message}")]
    Keyring { name: String, message: String },
    #[error("the MCP server `{server}` is not available: {reason}")]
    Unavailable {
        server: String,
        reason: crate::unavailable::Unavailable,
    },
    #[error("`{server}` refused: {message}")]
    Server { server: String, message: String },
    #[error(
        "the document would replace {}: confirm to replace them (their tools' permissions are \
         revoked when the command or URL changes)",
        .0.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
    )]
    WouldReplace(Vec<String>),
    #[error("the permissions of the replaced server's tools could not be revoked: {0}")]
    Grants(#[from] tessera_store::StoreError),
}

/// The servers of one data folder.
pub struct McpHub {
    file: PathBuf,
    logs: PathBuf,
    keyring: Arc<dyn KeyStore>,
    /// Where the person's grants are: a server whose command or URL changes loses its tools'.
    grants: Arc<Store>,
    slots: RwLock<BTreeMap<String, Arc<ServerSlot>>>,
    /// Logs outlive a slot (a server whose settings change keeps its history).
    server_logs: RwLock<BTreeMap<String, Arc<ServerLog>>>,
    /// The ready servers' tools as runs get them, kept until a server's list changes.
    served: ServedTools,
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHub")
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

impl McpHub {
    /// The servers configured in `data_dir/mcp.json` (none started yet).
    pub fn open(
        data_dir: &Path,
        keyring: Arc<dyn KeyStore>,
        grants: Arc<Store>,
    ) -> Result<Arc<Self>, HubError> {
        let file = config::file_path(data_dir);
        let servers = config::load(&file)?;
        let hub = Arc::new(Self {
            file,
            logs: data_dir.join("logs").join("mcp"),
            keyring,
            grants,
            slots: RwLock::new(BTreeMap::new()),
            server_logs: RwLock::new(BTreeMap::new()),
            served: ServedTools::default(),
        });
        for server in servers {
            hub.install(server);
        }
        Ok(hub)
    }

    fn log_of(&self, name: &str) -> Arc<ServerLog> {
        if let Some(log) = read(&self.server_logs).get(name).cloned() {
            return log;
        }
        let log = Arc::new(ServerLog::new(Some(self.logs.join(format!("{name}.log")))));
        write(&self.server_logs)
            .entry(name.to_owned())
            .or_insert_with(|| Arc::clone(&log));
        log
    }

    /// Puts a slot for `server` in place; the one it replaces, if any.
    fn install(&self, server: ServerConfig) -> Option<Arc<ServerSlot>> {
        let log = self.log_of(&server.name);
        let slot = ServerSlot::new(server, Arc::clone(&self.keyring), log);
        write(&self.slots).insert(slot.name().to_owned(), slot)
    }

    fn slots(&self) -> Vec<Arc<ServerSlot>> {
        read(&self.slots).values().cloned().collect()
    }

    fn slot(&self, name: &str) -> Result<Arc<ServerSlot>, HubError> {
        read(&self.slots)
            .get(name)
            .cloned()
            .ok_or_else(|| HubError::NotFound(name.to_owned()))
    }

    fn save(&self) -> Result<(), HubError> {
        let servers: Vec<ServerConfig> = self.slots().iter().map(|s| s.config.clone()).collect();
        config::save(&self.file, &servers)?;
        Ok(())
    }

    fn view(slot: &ServerSlot) -> McpServerView {
        let tools = slot
            .ready_tools()
            .iter()
            .map(|t| McpToolView {
                name: tool_name(slot.name(), &t.name),
                server_name: t.name.to_string(),
                title: t.title.clone(),
                description: t.description.as_deref().map(str::to_owned),
                safety: safety_of(t),
            })
            .collect();
        McpServerView {
            name: slot.name().to_owned(),
            config: config::to_document_entry(&slot.config),
            uri: slot.config.uri(),
            disabled: slot.config.disabled,
            always_ask: slot.config.always_ask,
            status: slot.shown(),
            tools,
            secrets: slot
                .config
                .secret_names()
                .into_iter()
                .map(|(place, n)| match place {
                    SecretPlace::Arg => format!("args[{n}]"),
                    SecretPlace::Url => "url".to_owned(),
                    SecretPlace::Env | SecretPlace::Header => n,
                })
                .collect(),
        }
    }

    /// Every server, with its state and tools (none is started by looking).
    pub fn servers(&self) -> Vec<McpServerView> {
        self.slots().iter().map(|s| Self::view(s)).collect()
    }

    /// One server.
    pub fn server(&self, name: &str) -> Result<McpServerView, HubError> {
        let slot = self.slot(name)?;
        Ok(Self::view(&slot))
    }

    /// Starts every server that is not running (the settings page's "connect"), each within
    /// its timeout; the servers as they are then.
    pub async fn start_all(&self) -> Vec<McpServerView> {
        let slots = self.slots();
        futures_util::future::join_all(
            slots
                .iter()
                .filter(|s| !s.config.disabled)
                .map(|s| s.ensure()),
        )
        .await;
        self.servers()
    }

    /// Adds or replaces server `name` from an entry of the `mcpServers` shape. Secret values
    /// move to the keyring; `${keyring}` keeps the secret already there. The server restarts
    /// with the new settings when next needed.
    pub async fn put_server(&self, name: &str, entry: &Value) -> Result<McpServerView, HubError> {
        let mut server = parse_server(name, entry)?;
        let secrets = split_secrets(&mut server);
        for (place, key, value) in secrets {
            let account = keyring_account(name, place, &key);
            set_secret(&self.keyring, &account, Secret::new(value))
                .await
                .map_err(|e| HubError::Keyring {
                    name: key.clone(),
                    message: e.to_string(),
                })?;
        }
        let old = self.install(server.clone());
        if let Some(old) = &old {
            old.stop().await;
            self.forget_dropped_secrets(&old.config, &server).await;
        }
        self.save()?;
        // A grant was given to what the name stood for: another program or endpoint under the
        // same name has to be trusted again.
        if old.is_some_and(|old| !old.config.same_endpoint(&server)) {
            self.revoke_grants(name).await?;
        }
        self.server(name)
    }

    /// Secrets the old settings had and the new ones do not: out of the keyring.
    async fn forget_dropped_secrets(&self, old: &ServerConfig, new: &ServerConfig) {
        let kept = new.secret_names();
        for (place, key) in old.secret_names() {
            if !kept.contains(&(place, key.clone())) {
                let _ =
                    delete_secret(&self.keyring, &keyring_account(&old.name, place, &key)).await;
            }
        }
    }

    /// Adds every server of a pasted document (`{"mcpServers": {…}}`); the names added. Nothing
    /// is changed when one entry is refused, nor when it names a server that exists and
    /// `replace` is false ([`HubError::WouldReplace`] names them, for the person to confirm).
    pub async fn import(&self, document: &Value, replace: bool) -> Result<Vec<String>, HubError> {
        let servers = config::parse_document(document)?;
        if !replace {
            let existing: Vec<String> = servers
                .iter()
                .filter(|s| self.slot(&s.name).is_ok())
                .map(|s| s.name.clone())
                .collect();
            if !existing.is_empty() {
                return Err(HubError::WouldReplace(existing));
            }
        }
        let mut names = Vec::new();
        for server in &servers {
            let entry = config::to_document_entry(server);
            // Checked above; the entry carries the secrets still, which put_server splits.
            names.push(server.name.clone());
            self.put_server(&server.name, &entry).await?;
        }
        Ok(names)
    }

    /// Removes server `name`, its secrets with it.
    pub async fn remove(&self, name: &str) -> Result<(), HubError> {
        let removed = write(&self.slots).remove(name);
        let slot = removed.ok_or_else(|| HubError::NotFound(name.to_owned()))?;
        slot.stop().await;
        for (place, key) in slot.config.secret_names() {
            let _ = delete_secret(&self.keyring, &keyring_account(name, place, &key)).await;
        }
        self.save()?;
        // Whatever is added under this name later is another program: trusted anew.
        self.revoke_grants(name).await
    }

    /// Revokes the grants of server `name`'s tools.
    async fn revoke_grants(&self, name: &str) -> Result<(), HubError> {
        let grants = Arc::clone(&self.grants);
        let prefix = format!("{name}__");
        let revoked = tokio::task::spawn_blocking(move || grants.revoke_consents_of_tools(&prefix))
            .await
            .map_err(|e| HubError::Server {
                server: name.to_owned(),
                message: format!("revoking its grants stopped: {e}"),
            })??;
        if revoked > 0 {
            tracing::info!(
                server = name,
                revoked,
                "grants revoked: the server changed or was removed"
            );
        }
        Ok(())
    }

    /// Starts server `name` again now.
    pub async fn restart(&self, name: &str) -> Result<McpServerView, HubError> {
        let slot = self.slot(name)?;
        if let Err(reason) = slot.restart().await {
            slot.log.note(&format!("restart failed: {reason}"));
        }
        Ok(Self::view(&slot))
    }

    /// The last `lines` lines of server `name`'s log.
    pub fn log(&self, name: &str, lines: usize) -> Result<Vec<String>, HubError> {
        Ok(self.slot(name)?.log.tail(lines))
    }

    async fn connected(&self, name: &str) -> Result<Arc<crate::server::Connection>, HubError> {
        let slot = self.slot(name)?;
        slot.ensure().await.map_err(|reason| HubError::Unavailable {
            server: name.to_owned(),
            reason,
        })
    }

    fn refused(&self, server: &str, error: impl std::fmt::Display) -> HubError {
        HubError::Server {
            server: server.to_owned(),
            message: self.log_of(server).scrub(&error.to_string()),
        }
    }

    /// The resources server `name` offers (none when it has no resources capability).
    pub async fn resources(&self, name: &str) -> Result<Vec<McpResource>, HubError> {
        let connection = self.connected(name).await?;
        if !offers(&connection, |c| c.resources.is_some()) {
            return Ok(Vec::new());
        }
        let resources = connection.service.list_all_resources().await;
        Ok(as_api(resources.map_err(|e| self.refused(name, e))?))
    }

    /// The prompts server `name` offers (none when it has no prompts capability).
    pub async fn prompts(&self, name: &str) -> Result<Vec<McpPrompt>, HubError> {
        let connection = self.connected(name).await?;
        if !offers(&connection, |c| c.prompts.is_some()) {
            return Ok(Vec::new());
        }
        let prompts = connection.service.list_all_prompts().await;
        Ok(as_api(prompts.map_err(|e| self.refused(name, e))?))
    }

    /// The contents of resource `uri` of server `name` (text as text; binary noted by size).
    pub async fn read_resource(
        &self,
        name: &str,
        uri: &str,
    ) -> Result<Vec<ResourceText>, HubError> {
        let connection = self.connected(name).await?;
        let read = connection
            .service
            .read_resource(rmcp::model::ReadResourceRequestParams::new(uri.to_owned()))
            .await
            .map_err(|e| self.refused(name, e))?;
        let value = serde_json::to_value(read).unwrap_or(Value::Null);
        Ok(value
            .get("contents")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|c| ResourceText {
                uri: c
                    .get("uri")
                    .and_then(Value::as_str)
                    .unwrap_or(uri)
                    .to_owned(),
                mime_type: c.get("mimeType").and_then(Value::as_str).map(str::to_owned),
                text: match (
                    c.get("text").and_then(Value::as_str),
                    c.get("blob").and_then(Value::as_str),
                ) {
                    (Some(text), _) => text.to_owned(),
                    (None, Some(blob)) => {
                        format!("[binary content, {} bytes in base64]", blob.len())
                    }
                    _ => String::new(),
                },
            })
            .collect())
    }
}

/// Whether the server declared the capability `has` looks for (one that gave no info is
/// asked anyway).
fn offers(
    connection: &crate::server::Connection,
    has: impl Fn(&rmcp::model::ServerCapabilities) -> bool,
) -> bool {
    connection
        .service
        .peer()
        .peer_info()
        .is_none_or(|info| has(&info.capabilities))
}

/// rmcp's items as the API's types: through JSON, whose names are the same, so rmcp's own
/// types stay out of the API.
fn as_api<T: serde::Serialize, U: serde::de::DeserializeOwned>(items: Vec<T>) -> Vec<U> {
    items
        .into_iter()
        .filter_map(|item| serde_json::from_value(serde_json::to_value(item).ok()?).ok())
        .collect()
}

/// One content item of a resource.
#[derive(Clone, Debug)]
pub struct ResourceText {
    pub uri: String,
    pub mime_type: Option<String>,
    pub text: String,
}

impl ToolSource for McpHub {
    fn tools(
        &self,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Arc<SourcedTools>> + Send + '_>> {
        Box::pin(async move {
            let slots: Vec<_> = self
                .slots()
                .into_iter()
                .filter(|s| !s.config.disabled)
                .collect();
            let wait = listing_wait(&slots);
            let ready = slots.iter().map(|slot| async move {
                match tokio::time::timeout(wait, slot.ensure()).await {
                    Ok(Ok(connection)) => Some((Arc::clone(slot), connection)),
                    Ok(Err(reason)) => {
                        tracing::info!(server = %slot.name(), %reason, "an MCP server's tools are left out of this run");
                        None
                    }
                    Err(_) => None,
                }
            });
            let ready: Vec<_> = futures_util::future::join_all(ready)
                .await
                .into_iter()
                .flatten()
                .collect();
            self.served.get(ready)
        })
    }

    fn secret_accounts(&self) -> Vec<String> {
        self.slots()
            .iter()
            .flat_map(|slot| {
                slot.config
                    .secret_names()
                    .into_iter()
                    .map(|(place, key)| keyring_account(slot.name(), place, &key))
            })
            .collect()
    }

    fn as_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}
