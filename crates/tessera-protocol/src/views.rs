//! What the `/v1` endpoints of the UI answer where no seed defines a document: the consent
//! grants of the permissions page and the context a run's prompt was built from (seed 004
//! explainability). Generated into TypeScript with the rest, so the UI reads the same names.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::context_doc::{ContextBlock, Evidence};
use crate::wire::Timestamp;

/// How far a consent grant reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ConsentScope {
    /// One use, in one conversation.
    Once,
    /// Every use in one conversation.
    Conversation,
    /// Every use, everywhere.
    Always,
}

impl ConsentScope {
    pub fn as_str(self) -> &'static str {
        match self {
            ConsentScope::Once => "once",
            ConsentScope::Conversation => "conversation",
            ConsentScope::Always => "always",
        }
    }
}

/// A consent grant as `GET /v1/grants` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ConsentGrantView {
    pub grant_id: String,
    pub tool: String,
    pub scope: ConsentScope,
    /// The conversation of a `once` or `conversation` grant; null for `always`.
    pub conversation_id: Option<String>,
    /// That conversation's title, when it has one.
    pub conversation_title: Option<String>,
    pub created_at: Timestamp,
    /// The last time the grant let a call run (a `once` grant is spent by it).
    pub used_at: Option<Timestamp>,
    /// Null while the grant is in force.
    pub revoked_at: Option<Timestamp>,
}

/// `GET /v1/grants`: newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct GrantList {
    pub grants: Vec<ConsentGrantView>,
}

/// `DELETE /v1/grants/{id}`: the grant as it is now (revoked).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct GrantRevoked {
    pub grant: ConsentGrantView,
}

/// `POST /v1/runs/{id}/cancel`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct RunCancelled {
    pub run_id: String,
    /// Always true: a run that is not running is a 404 `RUN_NOT_RUNNING`.
    pub cancelled: bool,
}

/// One model call of a run and the assembler's explanation of its prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct TurnContext {
    pub turn_id: String,
    /// The assistant message the call produced, once known.
    pub message_id: Option<String>,
    pub provider: String,
    pub model: String,
    pub started_at: Timestamp,
    pub finished_at: Option<Timestamp>,
    /// The assembler's explanation (the engine's `assembler::Explanation`, stored with the
    /// run's first call; later calls of the same run continue that prompt and have none).
    #[ts(type = "import('./Explanation').Explanation | null")]
    pub assembly: Option<serde_json::Value>,
}

/// `GET /v1/runs/{run_id}/context`: what the run's prompt was built from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct RunContext {
    pub run_id: String,
    pub conversation_id: String,
    /// The run's answer, once it has one.
    pub message_id: Option<String>,
    pub turns: Vec<TurnContext>,
    /// The conversation's context blocks the explanations name (used or left out), as stored
    /// now; a block deleted since is missing.
    pub blocks: Vec<ContextBlock>,
    /// The evidences those blocks and the included messages draw on, as stored now.
    pub evidences: Vec<Evidence>,
    /// Evidence ids the run's answer cites.
    pub cited: Vec<String>,
}

/// One entry of a context's change log (seed 000 §8.3 变更日志).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ContextChangeView {
    /// The version this change produced.
    pub version: u64,
    pub operation: crate::mcp_cp::ContextUpdate,
    pub at: Timestamp,
}

/// `GET /v1/conversations/{id}/context` and `tessera context show`: the MCP-CP context (seed
/// 000 §8.1: state, history, version; null before its first update) and its change log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ContextView {
    pub context: Option<crate::mcp_cp::McpContext>,
    pub changes: Vec<ContextChangeView>,
}
