//! The context document's top level (seed 004 §2): version, meta, session, evidences, blocks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::evidence::{ContextBlock, Evidence};
use super::session::Session;
use crate::ordered_map::OrderedMap;
use crate::wire::{JsonObject, Timestamp};

/// The `schema_version` this crate writes.
pub const SCHEMA_VERSION: &str = "1.0";

/// A structured context document (seed 004 §2, §4.1), kind `context`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ContextDocument {
    /// Structure version: any `1.<n>` is read (seed 004 §2: the version is for compatible
    /// evolution; 1.x documents keep the 1.0 fields), `1.0` written.
    #[schemars(regex(pattern = r"^1\.[0-9]+$"))]
    pub schema_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ContextMeta>,
    pub session: Session,
    /// Every citable source, by evidence id (may be empty).
    pub evidences: OrderedMap<Evidence>,
    /// The units the prompt is assembled from (may be empty).
    pub context_blocks: Vec<ContextBlock>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Locale and audit information (extensible).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ContextMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<Actor>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Who the session serves and which agent answers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct Actor {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentRef>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// The session's default agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct AgentRef {
    pub agent_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}
