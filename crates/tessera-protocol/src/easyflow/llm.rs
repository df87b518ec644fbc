//! `llm` domain payloads (seed 002 §6): model thinking and answer text, streamed or whole.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::wire::JsonObject;

/// `llm/thinking`: exactly one of `delta` (a streamed piece) or `content` (the whole text).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct LlmThinkingPayload {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Provider signature of the reasoning, kept to replay it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Tessera's extension: the streamed block the piece belongs to (one per stretch of deltas
    /// of one kind in a message), kept on the whole event it is folded into. `index` is the
    /// piece's sequence number in its message (seed 002 §4.2), not its block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<u64>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `llm/message`: exactly one of `delta` (a streamed piece) or `content` (the whole text).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct LlmMessagePayload {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Tessera's extension: the streamed block the piece belongs to (one per stretch of deltas
    /// of one kind in a message), kept on the whole event it is folded into. `index` is the
    /// piece's sequence number in its message (seed 002 §4.2), not its block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<u64>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}
