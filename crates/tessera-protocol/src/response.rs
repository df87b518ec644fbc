//! The response object (seed 003 §2), kind `response`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::request::Role;
use crate::wire::JsonObject;

/// A response object. Errors are semantics: a failed call still returns the whole structure,
/// with `status: "error"` and `error` set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct Response {
    pub status: ResponseStatus,
    pub outputs: Vec<Output>,
    /// Equals the request's `metadata.request_id`.
    pub trace_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_updates: Option<Vec<ContextChange>>,
    /// Required when `status` is `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ResponseError>,
    /// System metadata: snake_case keys, no core field names, no `sys_` prefix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Status of a response (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ResponseStatus {
    Success,
    InProgress,
    ToolWait,
    Error,
}

/// One output prompt or structured value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct Output {
    pub role: Role,
    /// A string or any JSON.
    pub content: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// A change to the caller's context chain, e.g. `{"type": "append_prompt", …}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ContextChange {
    #[serde(rename = "type")]
    pub change_type: String,
    /// Everything else.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Why a request failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ResponseError {
    pub code: String,
    pub message: String,
    /// Debugging detail (any JSON).
    #[serde(
        default,
        deserialize_with = "crate::wire::present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Value>")]
    pub detail: Option<Value>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}
