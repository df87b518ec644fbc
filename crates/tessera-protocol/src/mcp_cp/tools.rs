//! MCP-CP tool calls, their results and front-end tool definitions (seed 000 §3.3, §3.4, §4).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};
use ts_rs::TS;

use crate::wire::JsonObject;

/// One tool call (§4.1, §4.5.2–4.5.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ToolCall {
    /// Unique id of the call, referenced by `requiredAfter` and `${results.<callId>…}`.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// Arguments (may be `{}`).
    pub parameters: JsonObject,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Calls that must finish before this one starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_after: Option<Vec<String>>,
    /// Timeout in seconds (> 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub timeout: Option<Number>,
    /// Where the tool runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Runtime>,
    /// Consent prompt suggested by the model (shown only as a quotation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_behavior: Option<FallbackBehavior>,
    /// Display hints for the tool's UI (extensible).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui_settings: Option<JsonObject>,
    /// Client-side timeout in seconds (> 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub timeout_client: Option<Number>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Where a tool runs (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Runtime {
    Frontend,
    Backend,
}

/// What to do when a front-end tool cannot run (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FallbackBehavior {
    Abort,
    Skip,
    UseAlternative,
}

/// `TOOL_CALL_REQUEST` content (§3.3, §4.3, §4.6.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ToolCallRequest {
    pub calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_mode: Option<ExecutionMode>,
    /// Overall timeout in seconds (> 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub timeout: Option<Number>,
    /// Timeout of all front-end tools in seconds (> 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub frontend_timeout: Option<Number>,
    /// Timeout of all back-end tools in seconds (> 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub backend_timeout: Option<Number>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// How the calls of a request are scheduled (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ExecutionMode {
    Sync,
    Async,
    Parallel,
    Sequential,
    FrontendFirst,
    BackendFirst,
    ClientServerParallel,
}

/// `TOOL_CALL_RESPONSE` content (§3.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ToolCallResponse {
    pub results: Vec<ToolResult>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// The result of one tool call (§3.4, §4.4, §4.5.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ToolResult {
    /// The `callId` of the call this answers.
    pub call_id: String,
    pub status: McpToolStatus,
    /// The tool's output (any JSON).
    #[serde(
        default,
        deserialize_with = "crate::wire::present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Value>")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    /// Milliseconds from request to response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_time: Option<u64>,
    /// The client that ran a front-end tool (extensible).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<ClientInfo>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

impl ToolResult {
    /// Why the call did not succeed: its `error` (ERROR), else the `reason` Tessera gives for
    /// TIMEOUT and the statuses it adds (seed 000 §3.4 keeps `error` for ERROR alone).
    pub fn why(&self) -> Option<ToolError> {
        self.error.clone().or_else(|| {
            self.extra
                .get("reason")
                .and_then(|r| serde_json::from_value(r.clone()).ok())
        })
    }
}

/// Outcome of a tool call on the MCP-CP wire (closed; see [`crate::vocabulary::ToolOutcome`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum McpToolStatus {
    Success,
    Error,
    Timeout,
    Denied,
    Skipped,
    Cancelled,
    Interrupted,
    NotFound,
}

impl McpToolStatus {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            McpToolStatus::Success => "SUCCESS",
            McpToolStatus::Error => "ERROR",
            McpToolStatus::Timeout => "TIMEOUT",
            McpToolStatus::Denied => "DENIED",
            McpToolStatus::Skipped => "SKIPPED",
            McpToolStatus::Cancelled => "CANCELLED",
            McpToolStatus::Interrupted => "INTERRUPTED",
            McpToolStatus::NotFound => "NOT_FOUND",
        }
    }
}

/// Why a tool call failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ToolError {
    pub code: String,
    pub message: String,
    /// Details such as a stack trace (extensible).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<JsonObject>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// The client that executed a front-end tool (extensible).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ClientInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A tool definition (§4.5.1), kind `tool-definition`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ToolDefinition {
    pub tool_id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub runtime: Runtime,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    /// The arguments, as a JSON Schema.
    pub parameters: JsonObject,
    /// The result, as a JSON Schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_level: Option<PermissionLevel>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Whether a tool needs the person's consent (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PermissionLevel {
    None,
    UserConsent,
    AlwaysAsk,
}
