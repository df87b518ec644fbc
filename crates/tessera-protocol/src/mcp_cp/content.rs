//! MCP-CP content bodies for user input, model responses and system notices (seed 000 §3.1,
//! §3.2, §3.5, §7.2).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::tools::ToolCall;
use crate::wire::JsonObject;

/// `USER_INPUT` content (§3.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct UserInput {
    /// The text the person typed.
    pub text: String,
    /// Files, images, audio or video sent with the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachments: Option<Vec<Attachment>>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// An attachment of a `USER_INPUT` message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct Attachment {
    /// What kind of media this is.
    #[serde(rename = "type")]
    pub attachment_type: AttachmentType,
    /// Where the resource can be fetched.
    pub url: String,
    /// File details (extensible).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<AttachmentMetadata>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Media kind of an attachment (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AttachmentType {
    Image,
    File,
    Audio,
    Video,
}

/// Attachment metadata (extensible).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct AttachmentMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `MODEL_RESPONSE` content (§3.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ModelResponse {
    /// The generated text (may be empty).
    pub text: String,
    /// Tools the model wants called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// Why generation stopped.
    pub finish_reason: FinishReason,
    /// Token counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Why the model stopped generating (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FinishReason {
    Stop,
    Length,
    ToolCalls,
    Error,
}

/// Token counts of one model call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct TokenUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// `SYSTEM_MESSAGE` content (§3.5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct SystemMessage {
    pub action: SystemAction,
    pub text: String,
    /// Related data (extensible).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<JsonObject>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Kind of system notice (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SystemAction {
    Notification,
    Warning,
    Error,
    Info,
}

/// `ERROR_RESPONSE` content (§7.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ErrorResponse {
    pub error_code: String,
    pub message: String,
    /// Details (extensible).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<JsonObject>,
    /// Where the error arose (client, server, tool, system).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recoverable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_action: Option<String>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}
