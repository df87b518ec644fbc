//! The context document's `session` (seed 004 §2): messages, summary, tasks, tool calls and
//! model usage.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::evidence::EvidenceRef;
use crate::request::Role;
use crate::wire::{JsonObject, Timestamp};

/// The session: the document's core (a non-empty object).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[schemars(extend("minProperties" = 1))]
#[ts(optional_fields)]
pub struct Session {
    /// The session's id: `session_id`, or `id` (seed 004: 二选一即可); see [`Session::id`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The seed's other name for `session_id`, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// At least the turn's user input; `assistant` messages are the final answers.
    #[schemars(length(min = 1))]
    pub messages: Vec<SessionMessage>,
    /// Rolling summary standing in for older messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    pub task_state: TaskState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_state: Option<ToolState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_usage: Option<Vec<ModelUsage>>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

impl Session {
    /// The session's id, whichever of `session_id` and `id` gives it (`session_id` first).
    pub fn id(&self) -> Option<&str> {
        self.session_id.as_deref().or(self.id.as_deref())
    }
}

/// One message of the session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct SessionMessage {
    pub role: Role,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<Author>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Timestamp>,
    /// Evidences the message cites.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refs: Option<Vec<EvidenceRef>>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Who wrote a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct Author {
    pub kind: AuthorKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Kind of author (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum AuthorKind {
    User,
    Agent,
    Tool,
    System,
}

/// The session's rolling summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct Summary {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// When the summary was written: an RFC 3339 timestamp, or `""` while `content` is empty
    /// (seed 004 §4's own example: a summary not written yet).
    // A plain string here: the schema cannot say "empty only while the content is", the
    // validator checks it (`check_summary_time`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub updated_at: Option<Timestamp>,
    /// The messages the summary covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_index_range: Option<MessageIndexRange>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// A range of message indexes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct MessageIndexRange {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<u64>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Planning state (a non-empty object).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[schemars(extend("minProperties" = 1))]
#[ts(optional_fields)]
pub struct TaskState {
    pub todo_list: TodoList,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// The to-do list.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct TodoList {
    /// May be empty.
    pub tasks: Vec<Task>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// One planned task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct Task {
    pub task_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_evidence_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// A task's status (closed; see [`crate::vocabulary::InstructionState`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Pending,
    Running,
    Completed,
    Failed,
    Skipped,
    Timeout,
}

impl TaskStatus {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::Running => "running",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Skipped => "skipped",
            TaskStatus::Timeout => "timeout",
        }
    }
}

/// External calls made in the session.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ToolState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCallRecord>>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// One recorded tool, skill or function call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ToolCallRecord {
    pub tool_call_id: String,
    /// The task that triggered the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ToolProvider>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub call_type: Option<ToolCallKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub called_at: Option<Timestamp>,
    /// Digest of the arguments (any JSON).
    #[serde(
        default,
        deserialize_with = "crate::wire::present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Value>")]
    pub args_digest: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ContextToolStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_evidence_ids: Option<Vec<String>>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Who provided a tool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ToolProvider {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ProviderKind>,
    /// MCP server or registry name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Kind of tool provider (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    Builtin,
    Mcp,
    Other,
}

/// Kind of recorded call (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallKind {
    Tool,
    Skill,
    FunctionCall,
}

/// Outcome of a recorded call (closed; `forbidden` is the vocabulary's denied; see
/// [`crate::vocabulary::ToolOutcome`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ContextToolStatus {
    Success,
    Error,
    Timeout,
    Forbidden,
    NotFound,
    Skipped,
    Cancelled,
    Interrupted,
}

impl ContextToolStatus {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            ContextToolStatus::Success => "success",
            ContextToolStatus::Error => "error",
            ContextToolStatus::Timeout => "timeout",
            ContextToolStatus::Forbidden => "forbidden",
            ContextToolStatus::NotFound => "not_found",
            ContextToolStatus::Skipped => "skipped",
            ContextToolStatus::Cancelled => "cancelled",
            ContextToolStatus::Interrupted => "interrupted",
        }
    }
}

/// One model call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ModelUsage {
    pub model_usage_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<UsageStage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_token_latency_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ModelUsageStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Pipeline stage of a model call (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum UsageStage {
    Route,
    Plan,
    ToolCall,
    Answer,
    Summary,
    Other,
}

/// Outcome of a model call (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ModelUsageStatus {
    Success,
    Error,
}
