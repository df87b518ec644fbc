//! Front-end tool registration and discovery (seed 000 §4.7).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::wire::JsonObject;

/// `CLIENT_CAPABILITIES` content (§4.7.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ClientCapabilities {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported_tools: Option<Vec<SupportedTool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported_features: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limitations: Option<ClientLimitations>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// A front-end tool a client can run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct SupportedTool {
    pub tool_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// A client's limits (extensible).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ClientLimitations {
    /// Bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_file_size: Option<u64>,
    /// Milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_processing_time: Option<u64>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `TOOL_AVAILABILITY_REQUEST` content (§4.7.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ToolAvailabilityRequest {
    pub tools: Vec<ToolAvailabilityQuery>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// One tool asked about.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ToolAvailabilityQuery {
    pub tool_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_capabilities: Option<Vec<String>>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// `TOOL_AVAILABILITY_RESPONSE` content (§4.7.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ToolAvailabilityResponse {
    pub available_tools: Vec<ToolAvailability>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Whether one tool is available.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ToolAvailability {
    pub tool_id: String,
    pub available: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    /// Why it is unavailable, e.g. `PERMISSION_DENIED`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}
