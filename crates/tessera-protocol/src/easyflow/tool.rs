//! `tool` domain payloads (seed 002 §7, seed 001 queue events).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};
use ts_rs::TS;

use crate::mcp_cp::Runtime;
use crate::wire::JsonObject;

/// `tool/tool_call`: a call whose arguments are complete (after `${…}` substitution).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ToolCallPayload {
    pub tool_call_id: String,
    pub name: String,
    /// Any JSON.
    pub arguments: Value,
    /// Calls this one waits for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Runtime>,
    /// Who provides the tool (`builtin`, an MCP server name…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The provider's kind when the tool is not built in (`mcp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_kind: Option<String>,
    /// The provider's URI (an MCP server's command or URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_uri: Option<String>,
    /// The call's `userPrompt` (seed 000 §4.5.3): the agent's words, as a consent request
    /// names them, never the app's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_says: Option<String>,
    /// The call's `uiSettings` (seed 000 §4.5.3): how a client shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui_settings: Option<JsonObject>,
    /// The task (an instruction of the set) the call is made for (seed 004 §2
    /// `tool_calls[].task_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tool/tool_result`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ToolResultPayload {
    pub tool_call_id: String,
    pub status: ToolResultStatus,
    /// Any JSON.
    #[serde(
        default,
        deserialize_with = "crate::wire::present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Value>")]
    pub result: Option<Value>,
    /// Any JSON.
    #[serde(
        default,
        deserialize_with = "crate::wire::present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Value>")]
    pub error: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Outcome of a tool call in an event (closed; see [`crate::vocabulary::ToolOutcome`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolResultStatus {
    Success,
    Error,
    Timeout,
    Denied,
    Skipped,
    Cancelled,
    Interrupted,
    NotFound,
}

impl ToolResultStatus {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolResultStatus::Success => "success",
            ToolResultStatus::Error => "error",
            ToolResultStatus::Timeout => "timeout",
            ToolResultStatus::Denied => "denied",
            ToolResultStatus::Skipped => "skipped",
            ToolResultStatus::Cancelled => "cancelled",
            ToolResultStatus::Interrupted => "interrupted",
            ToolResultStatus::NotFound => "not_found",
        }
    }
}

/// `tool/tool_call_delta`: a piece of a call's arguments as the model writes them, before the
/// call is complete (the first piece names the call and the tool, with an empty `delta`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ToolCallDeltaPayload {
    /// The call's id; null when the model has not given it yet.
    pub tool_call_id: Option<String>,
    /// The tool, on the first piece only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The call's place among the calls of the answer, from 0.
    pub position: u64,
    /// The next characters of the arguments' JSON.
    pub delta: String,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tool/tool_queued`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ToolQueuedPayload {
    pub tool_call_id: String,
    pub name: String,
    /// Place in the queue, from 0.
    pub position: u64,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tool/tool_started`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ToolStartedPayload {
    pub tool_call_id: String,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tool/tool_progress`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ToolProgressPayload {
    pub tool_call_id: String,
    pub progress: Number,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tool/queue_drained`: every queued call has finished.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct QueueDrainedPayload {
    /// Any field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The key of a tool's JSON result that lists the images it returned ([`ToolImage`]).
pub const TOOL_IMAGES_KEY: &str = "images";

/// An image a tool returned: the tool stored the bytes as an attachment and lists it under
/// [`TOOL_IMAGES_KEY`] of its result, so the result stays small JSON and the bytes travel to
/// the model as an image and to the person through `GET /v1/attachments/{sha256}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct ToolImage {
    /// Lowercase hex SHA-256 of the stored attachment.
    pub sha256: String,
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub mime_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// What the image shows, in a word or two ("screen", "window: Terminal", a file name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ToolImage {
    /// The images listed in a tool's result; entries that are not images by the convention
    /// are left out.
    pub fn list_in(result: &Value) -> Vec<ToolImage> {
        result
            .get(TOOL_IMAGES_KEY)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| serde_json::from_value::<ToolImage>(item.clone()).ok())
                    .filter(|image| image.mime_type.starts_with("image/"))
                    .collect()
            })
            .unwrap_or_default()
    }
}
