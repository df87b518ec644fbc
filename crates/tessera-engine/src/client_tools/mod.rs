//! Front-end tools run by a connected client (seed 000 §4.5, §4.7), for headless use: a client
//! announces what it can run with `CLIENT_CAPABILITIES` ([`ClientTools::announce`]); from then
//! on the runs of that conversation (its `contextId`) offer those tools to the model beside the
//! engine's own (`ClientTools::registry_for`). A call to one is a `tool/tool_call` event with
//! `runtime: FRONTEND` on the conversation's stream; the client runs it and posts a
//! `TOOL_CALL_RESPONSE` ([`ClientTools::respond`]), which the waiting call takes as its result.
//!
//! Announcements live as long as the process (a client announces again when it reconnects, as
//! §4.7.1 says it does on connecting). The front end asks the person for consent itself
//! (§4.5.2 step 3), so the engine does not ask again for these calls.
//!
//! A call nobody answers within the tool's timeout follows the tool's `fallbackBehavior`
//! (`handler`): `ABORT` (the default) fails the call, `SKIP` reports it skipped,
//! `USE_ALTERNATIVE` runs the engine tool the announcement names as `alternative`. The
//! executor applies an announced `fallbackBehavior` exactly like one on the call, so the
//! alternative passes the consent gate like every other call.
//!
//! An announced tool may carry the seed 000 §4.5.1 definition fields beside `toolId`
//! (`description`, `parameters` as a JSON Schema, `permissionLevel`), and `timeout` (seconds),
//! `fallbackBehavior` and `alternative`; without them the model sees a generic description
//! and an object of any shape.

mod announcement;
mod availability;
mod handler;
mod waiting;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use tessera_protocol::mcp_cp::{ClientCapabilities, ToolResult};

use crate::tools::{SharedHandler, ToolRegistry, ToolSpec};
use announcement::parse_tool;
use waiting::WaitingCalls;

pub use announcement::{AnnounceError, Announcement, ClientTool};
pub use availability::availability;
pub(crate) use handler::ClientToolHandler;
pub use waiting::Delivered;

/// The announcements and the calls waiting for a client, by conversation.
#[derive(Default)]
pub struct ClientTools {
    /// conversation → client id → announcement.
    clients: Mutex<HashMap<String, BTreeMap<String, Announcement>>>,
    waiting: Arc<WaitingCalls>,
}

impl std::fmt::Debug for ClientTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientTools").finish_non_exhaustive()
    }
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
    pub(crate) fn announcements(&self, conversation_id: &str) -> Vec<Announcement> {
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
    pub(crate) fn registry_for(
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
                    Arc::clone(&self.waiting),
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

    /// Hands each result of a client's `TOOL_CALL_RESPONSE` to the call waiting for it.
    pub fn respond(&self, conversation_id: &str, results: Vec<ToolResult>) -> Delivered {
        self.waiting.respond(conversation_id, results)
    }
}
