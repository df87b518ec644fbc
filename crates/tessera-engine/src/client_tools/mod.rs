//! Front-end tools run by a connected client (seed 000 §4.5, §4.7), for headless use: a client
//! announces what it can run with `CLIENT_CAPABILITIES` ([`ClientTools::announce`]); from then
//! on the runs of that conversation (its `contextId`) offer those tools to the model beside the
//! engine's own ([`ClientTools::registry_for`]). A call to one is a `tool/tool_call` event with
//! `runtime: FRONTEND` on the conversation's stream; the client runs it and posts a
//! `TOOL_CALL_RESPONSE` ([`ClientTools::respond`]), which the waiting call takes as its result.
//!
//! Announcements live as long as the process (a client announces again when it reconnects, as
//! §4.7.1 says it does on connecting). The front end asks the person for consent itself
//! (§4.5.2 step 3), so the engine does not ask again for these calls.
//!
//! A call nobody answers within the tool's timeout follows the tool's `fallbackBehavior`
//! ([`handler`]): `ABORT` (the default) fails the call, `SKIP` reports it skipped,
//! `USE_ALTERNATIVE` runs the engine tool the announcement names as `alternative`. The
//! executor applies an announced `fallbackBehavior` exactly like one on the call, so the
//! alternative passes the consent gate like every other call.
//!
//! An announced tool may carry the seed 000 §4.5.1 definition fields beside `toolId`
//! (`description`, `parameters` as a JSON Schema, `permissionLevel`), and `timeout` (seconds),
//! `fallbackBehavior` and `alternative`; without them the model sees a generic description
//! and an object of any shape.

mod availability;
mod handler;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tessera_protocol::mcp_cp::{
    ClientCapabilities, FallbackBehavior, PermissionLevel, SupportedTool, ToolResult,
};
use tokio::sync::oneshot;

use crate::tools::{RegistryError, RetryPolicy, SharedHandler, ToolKind, ToolRegistry, ToolSpec};

pub use availability::availability;
pub use handler::ClientToolHandler;

/// How long a client has to answer when neither the tool nor the client says (`timeout`,
/// `limitations.maxProcessingTime`).
pub const DEFAULT_CLIENT_TIMEOUT: Duration = Duration::from_secs(60);

/// An announcement that cannot be taken.
#[derive(Debug, thiserror::Error)]
pub enum AnnounceError {
    #[error("supportedTools[{index}] ({tool}): {message}")]
    BadTool {
        index: usize,
        tool: String,
        message: String,
    },
}

/// One front-end tool a client announced.
#[derive(Clone, Debug)]
pub struct ClientTool {
    pub client_id: String,
    pub announced: SupportedTool,
    /// The declaration the model and the executor see.
    pub spec: ToolSpec,
    /// How long the client has to answer.
    pub wait: Duration,
    pub fallback: FallbackBehavior,
    /// What the client said about consent (the client asks the person itself).
    pub permission: Option<PermissionLevel>,
}

/// What a client announced.
#[derive(Clone, Debug)]
pub struct Announcement {
    pub capabilities: ClientCapabilities,
    pub tools: Vec<ClientTool>,
}

/// Whether each result of a `TOOL_CALL_RESPONSE` reached a waiting call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    pub accepted: Vec<String>,
    /// Call ids nothing waits for (unknown, already answered, or timed out).
    pub unmatched: Vec<String>,
}

type Waiting = HashMap<(String, String), oneshot::Sender<ToolResult>>;

/// The announcements and the calls waiting for a client, by conversation.
#[derive(Default)]
pub struct ClientTools {
    /// conversation → client id → announcement.
    clients: Mutex<HashMap<String, BTreeMap<String, Announcement>>>,
    waiting: Mutex<Waiting>,
}

impl std::fmt::Debug for ClientTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientTools").finish_non_exhaustive()
    }
}

fn string_field<'a>(tool: &'a SupportedTool, key: &str) -> Option<&'a str> {
    tool.extra.get(key).and_then(Value::as_str)
}

fn parse_tool(
    index: usize,
    client: &ClientCapabilities,
    tool: &SupportedTool,
) -> Result<ClientTool, AnnounceError> {
    let bad = |message: String| AnnounceError::BadTool {
        index,
        tool: tool.tool_id.clone(),
        message,
    };
    if tool.tool_id.trim().is_empty() {
        return Err(bad("toolId is empty".into()));
    }
    let schema = match tool.extra.get("parameters") {
        None => json!({"type": "object"}),
        Some(Value::Object(o)) => Value::Object(o.clone()),
        Some(other) => {
            return Err(bad(format!(
                "parameters must be a JSON Schema object, not {other}"
            )))
        }
    };
    let field =
        |key: &str| -> Result<Option<Value>, AnnounceError> { Ok(tool.extra.get(key).cloned()) };
    let announced_fallback: Option<FallbackBehavior> = match field("fallbackBehavior")? {
        None => None,
        Some(v) => Some(serde_json::from_value(v.clone()).map_err(|_| {
            bad(format!(
                "fallbackBehavior must be ABORT, SKIP or USE_ALTERNATIVE, not {v}"
            ))
        })?),
    };
    let fallback = announced_fallback.unwrap_or(FallbackBehavior::Abort);
    let permission = match field("permissionLevel")? {
        None => None,
        Some(v) => Some(serde_json::from_value(v.clone()).map_err(|_| {
            bad(format!(
                "permissionLevel must be NONE, USER_CONSENT or ALWAYS_ASK, not {v}"
            ))
        })?),
    };
    let wait = match field("timeout")? {
        None => client
            .limitations
            .as_ref()
            .and_then(|l| l.max_processing_time)
            .filter(|ms| *ms > 0)
            .map_or(DEFAULT_CLIENT_TIMEOUT, Duration::from_millis),
        Some(v) => match v.as_f64() {
            Some(s) if s > 0.0 && s <= 86_400.0 => Duration::from_millis((s * 1000.0) as u64),
            _ => {
                return Err(bad(format!(
                    "timeout must be seconds above 0 (at most a day), not {v}"
                )))
            }
        },
    };
    let description = string_field(tool, "description").map_or_else(
        || {
            format!(
                "A front-end tool run by the client `{}` on the person's device.",
                client.client_id
            )
        },
        str::to_owned,
    );
    let mut spec = ToolSpec::new(tool.tool_id.clone(), description)
        .input_schema(schema)
        .kind(ToolKind::FrontEnd)
        .provider(format!("client:{}", client.client_id))
        .retry(RetryPolicy::none())
        // The handler keeps its own deadline (to apply the fallback); the executor's is later.
        .timeout_ms(
            u64::try_from(wait.as_millis())
                .unwrap_or(u64::MAX)
                .saturating_add(2_000),
        );
    if let Some(alt) = string_field(tool, "alternative") {
        spec = spec.alternative(alt);
    }
    spec.max_file_bytes = client.limitations.as_ref().and_then(|l| l.max_file_size);
    // Applied by the executor as if each call named it: an alternative runs through the same
    // consent gate as any call, and ABORT stops the rest of the set.
    if let Some(behavior) = announced_fallback {
        spec = spec.fallback(behavior);
    }
    // Checks the schema now, so a bad one is refused at the announcement.
    ToolRegistry::new()
        .with_extra([(spec.clone(), handler::refusing())])
        .map_err(|e| match e {
            RegistryError::BadSchema { message, .. } => {
                bad(format!("parameters is not a valid JSON Schema: {message}"))
            }
            other => bad(other.to_string()),
        })?;
    Ok(ClientTool {
        client_id: client.client_id.clone(),
        announced: tool.clone(),
        spec,
        wait,
        fallback,
        permission,
    })
}

impl ClientTools {
    pub fn new() -> Self {
        Self::default()
    }

    /// Remembers what `capabilities.clientId` can run in `conversation_id`, replacing what that
    /// client announced there before. Every tool is checked first; nothing changes if one is
    /// wrong.
    pub fn announce(
        &self,
        conversation_id: &str,
        capabilities: ClientCapabilities,
    ) -> Result<Announcement, AnnounceError> {
        let mut tools = Vec::new();
        for (index, tool) in capabilities.supported_tools.iter().flatten().enumerate() {
            tools.push(parse_tool(index, &capabilities, tool)?);
        }
        let announcement = Announcement {
            capabilities,
            tools,
        };
        {
            let mut clients = crate::sync::lock(&self.clients);
            clients
                .entry(conversation_id.to_owned())
                .or_default()
                .insert(
                    announcement.capabilities.client_id.clone(),
                    announcement.clone(),
                );
        }
        Ok(announcement)
    }

    /// The announcements of a conversation, by client id.
    pub fn announcements(&self, conversation_id: &str) -> Vec<Announcement> {
        crate::sync::lock(&self.clients)
            .get(conversation_id)
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }

    /// The front-end tools some client of the conversation runs, one per name (when two
    /// clients announce the same name, the one whose client id sorts first).
    pub fn tools(&self, conversation_id: &str) -> Vec<ClientTool> {
        let mut seen = std::collections::HashSet::new();
        self.announcements(conversation_id)
            .into_iter()
            .flat_map(|a| a.tools)
            .filter(|t| seen.insert(t.spec.name.clone()))
            .collect()
    }

    /// A run's tools in `conversation_id`: `base` plus the announced front-end tools (a name
    /// the engine already has stays the engine's). `base` itself when nothing was announced.
    pub fn registry_for(
        self: &Arc<Self>,
        conversation_id: &str,
        base: Option<Arc<ToolRegistry>>,
    ) -> Option<Arc<ToolRegistry>> {
        let tools = self.tools(conversation_id);
        if tools.is_empty() {
            return base;
        }
        let empty = ToolRegistry::new();
        let known = base.as_deref().unwrap_or(&empty);
        let extra: Vec<(ToolSpec, SharedHandler)> = tools
            .into_iter()
            .filter(|t| known.get(&t.spec.name).is_none())
            .map(|t| {
                let handler: SharedHandler = Arc::new(ClientToolHandler::new(
                    Arc::clone(self),
                    conversation_id,
                    &t,
                ));
                (t.spec, handler)
            })
            .collect();
        match known.with_extra(extra) {
            Ok(registry) => Some(Arc::new(registry)),
            Err(error) => {
                // Cannot happen (names were filtered, schemas checked at the announcement).
                tracing::warn!(%error, "the client tools could not join the run's tools");
                base
            }
        }
    }

    /// Waits for the client's result of call `call_id` (registered until the receiver drops).
    fn wait_for(&self, conversation_id: &str, call_id: &str) -> oneshot::Receiver<ToolResult> {
        let (tx, rx) = oneshot::channel();
        {
            let mut waiting = crate::sync::lock(&self.waiting);
            waiting.insert((conversation_id.to_owned(), call_id.to_owned()), tx);
        }
        rx
    }

    fn forget(&self, conversation_id: &str, call_id: &str) {
        {
            let mut waiting = crate::sync::lock(&self.waiting);
            waiting.remove(&(conversation_id.to_owned(), call_id.to_owned()));
        }
    }

    /// Whether a call of the conversation waits for a client now.
    pub fn is_waiting(&self, conversation_id: &str, call_id: &str) -> bool {
        crate::sync::lock(&self.waiting)
            .get(&(conversation_id.to_owned(), call_id.to_owned()))
            .is_some_and(|tx| !tx.is_closed())
    }

    /// Hands each result of a client's `TOOL_CALL_RESPONSE` to the call waiting for it.
    pub fn respond(&self, conversation_id: &str, results: Vec<ToolResult>) -> Delivered {
        let mut delivered = Delivered::default();
        for result in results {
            let key = (conversation_id.to_owned(), result.call_id.clone());
            let sender = crate::sync::lock(&self.waiting).remove(&key);
            let call_id = result.call_id.clone();
            match sender.map(|tx| tx.send(result)) {
                Some(Ok(())) => delivered.accepted.push(call_id),
                _ => delivered.unmatched.push(call_id),
            }
        }
        delivered
    }
}
