//! `system`, `business`, `workflow` and `debug` domain payloads (seed 002 §8–10).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::wire::JsonObject;

/// `system/error`. Recoverable problems carry `retryable: true`; only a run's fatal error is
/// sent as SSE `event: error`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct SystemErrorPayload {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// Any JSON.
    #[serde(
        default,
        deserialize_with = "crate::wire::present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Value>")]
    pub detail: Option<Value>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `system/status`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct SystemStatusPayload {
    pub state: SystemState,
    /// A run's first `running`: the agent profile it runs under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// A run's first `running`: the person's message it answers (its answer is stored after
    /// that message, also when the run resumes later, whatever branch is shown by then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_id: Option<String>,
    /// A run's first `running`: the client asked for `debug/log` events (a resumed run keeps
    /// emitting them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug: Option<bool>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A run's state in `system/status` (closed; see [`crate::vocabulary::RunState`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum SystemState {
    Initializing,
    Running,
    Suspended,
    Resumed,
    Cancelled,
    Failed,
    Completed,
}

impl SystemState {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            SystemState::Initializing => "initializing",
            SystemState::Running => "running",
            SystemState::Suspended => "suspended",
            SystemState::Resumed => "resumed",
            SystemState::Cancelled => "cancelled",
            SystemState::Failed => "failed",
            SystemState::Completed => "completed",
        }
    }
}

/// `system/done`: the stream ends; usage and latency are in the envelope's `meta`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct DonePayload {
    /// Any field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `business/error` code: the provider account has no quota left (seed 002 §9's example).
pub const QUOTA_EXCEEDED: &str = crate::error_codes::ErrorCode::QuotaExceeded.as_str();
/// `business/error` code: the person's spending limit (per day or per conversation) stops a
/// paid call.
pub const SPENDING_LIMIT_REACHED: &str =
    crate::error_codes::ErrorCode::SpendingLimitReached.as_str();

/// `system/model_fallback`: the provider said the model is overloaded, and the run goes on with
/// the provider's fallback model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ModelFallbackPayload {
    pub from: String,
    pub to: String,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `business/error`: a business rule refused the run (seed 002 §9), sent as an ordinary
/// `message` event; the run's `failed` status and `done` follow when it stops the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct BusinessErrorPayload {
    pub code: String,
    pub message: String,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `workflow/status`: a node (the run, an instruction, an agent) changed state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct WorkflowStatusPayload {
    pub node_id: String,
    pub state: WorkflowState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_kind: Option<NodeKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u64>,
    /// An agent node's agent (seed 001 §3 `agentName`), on its start, turns and end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<String>,
    /// How long the node ran, on its end (seed 001 §3 `agent_completed.durationMs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A workflow node's state (closed; see [`crate::vocabulary::InstructionState`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum WorkflowState {
    Start,
    Suspend,
    Resume,
    End,
    Failed,
    Skipped,
    Timeout,
}

impl WorkflowState {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkflowState::Start => "start",
            WorkflowState::Suspend => "suspend",
            WorkflowState::Resume => "resume",
            WorkflowState::End => "end",
            WorkflowState::Failed => "failed",
            WorkflowState::Skipped => "skipped",
            WorkflowState::Timeout => "timeout",
        }
    }
}

/// What a workflow node is (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Run,
    Instruction,
    Agent,
}

/// `workflow/graph`: the instruction or tool DAG.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct WorkflowGraphPayload {
    pub nodes: Vec<Value>,
    pub edges: Vec<Value>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `debug/log`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct DebugLogPayload {
    pub level: LogLevel,
    pub message: String,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Log level (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}
