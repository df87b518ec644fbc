//! MCP-CP context state (seed 000 §8): the `mcp-context` document and `CONTEXT_UPDATE` content.

use schemars::{JsonSchema, Schema};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use ts_rs::TS;

use super::envelope::{Message, MessageType, Sender};
use crate::wire::{JsonObject, Timestamp};

/// The context structure (§8.1), kind `mcp-context`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct McpContext {
    pub context_id: String,
    pub creation_time: Timestamp,
    pub last_update_time: Timestamp,
    /// Message history.
    pub messages: Vec<ContextMessage>,
    pub state: ContextState,
    /// Extensible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Incremented on every update (§8.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// A message as kept in the context history: content is any object, whatever the type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ContextMessage {
    pub message_id: String,
    #[serde(rename = "type")]
    pub message_type: MessageType,
    pub content: JsonObject,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender: Option<Sender>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// The context's state (extensible).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ContextState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_topic: Option<String>,
    /// Extensible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_preferences: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_tools: Option<Vec<String>>,
    /// Extensible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_state: Option<JsonObject>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `CONTEXT_UPDATE` content (§8.2). Which fields are required depends on `operation`:
/// `ADD_MESSAGE` needs `message`, `UPDATE_STATE` needs `path` and `value` (`null` allowed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = context_update_rules)]
#[ts(optional_fields)]
pub struct ContextUpdate {
    pub operation: ContextOperation,
    /// The version the sender last saw (§8.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_version: Option<u64>,
    /// `ADD_MESSAGE`: the message to append.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Box<Message>>,
    /// `UPDATE_STATE`: dotted path of the state field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = DOTTED_PATH_PATTERN))]
    pub path: Option<String>,
    /// `UPDATE_STATE`: the new value (any JSON, `null` allowed).
    #[serde(
        default,
        deserialize_with = "crate::wire::present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Value>")]
    pub value: Option<Value>,
    /// `CLEAR_HISTORY`: which messages to remove.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<HistoryFilter>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// A non-empty dotted path: `userPreferences.language`.
pub const DOTTED_PATH_PATTERN: &str = r"^[^.]+(\.[^.]+)*$";

fn context_update_rules(schema: &mut Schema) {
    let rule = |operation: &str, required: &[&str]| {
        json!({
            "if": {
                "properties": { "operation": { "const": operation } },
                "required": ["operation"]
            },
            "then": { "required": required }
        })
    };
    schema.insert(
        "allOf".into(),
        Value::Array(vec![
            rule("ADD_MESSAGE", &["message"]),
            rule("UPDATE_STATE", &["path", "value"]),
        ]),
    );
}

/// A context update operation (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ContextOperation {
    AddMessage,
    UpdateState,
    ClearHistory,
}

/// `CLEAR_HISTORY` filter (§8.2.3).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct HistoryFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_timestamp: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub message_type: Option<String>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}
