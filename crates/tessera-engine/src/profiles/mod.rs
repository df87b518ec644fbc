//! Agent profiles and intent routing (seed 000 §2.3: "判断当前请求是否存在指令意图 → 根据指令意图
//! 判断映射对应系统提示词和设置模型返回指定类型"): before a turn calls the model, the person's
//! message is mapped to a profile, which gives the turn its system prompt, the tools it may use,
//! the format of its answer (text, or JSON checked against a schema) and optionally its own model
//! and call limit.
//!
//! - [`Profile`], [`ResponseFormat`], [`RouteRule`]: one profile as the settings store it
//!   (snake_case JSON, like every app setting).
//! - [`Profiles`]: the validated set, kept in the app setting [`SETTING_KEY`]; the built-in set
//!   (one general assistant) when the setting was never written. Every problem names its profile
//!   and field ([`ProfileProblem`]); an invalid set is never written.
//! - [`route`]: rules first (first matching profile in order), else the model classifies, else
//!   the default profile, always with the reason ([`RouteDecision`]).
//! - [`validate_json_response`]: checks an answer against a JSON response format.

mod check;
pub(crate) mod json_response;
mod route;
mod rules;
mod set;
pub(crate) mod side_call;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use check::ProfileProblem;
pub use json_response::{validate_json_response, JsonProblem, JsonResponseError};
pub use route::{route, FallbackReason, RouteDecision, RouteRequest, RoutedBy};
pub use rules::RuleMatch;
pub use set::{Profiles, ProfilesError, SETTING_KEY};

/// One agent profile: what the coordinator becomes for a turn routed to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
// A misspelt key (`sytem_prompt`) would otherwise vanish silently from a setting the person
// wrote by hand; refusing it names the field instead.
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The id: 1 to 64 of `a-z`, `0-9`, `_`, `-`. The classifying model answers with it.
    pub name: String,
    /// Shown in the UI.
    pub title: String,
    /// What the profile is for; the classifying model reads it, so write it for the model.
    pub description: String,
    /// The turn's system prompt.
    #[serde(default)]
    pub system_prompt: String,
    /// The tools the turn may offer the model, by name; `None`: all of them, `[]`: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub response_format: ResponseFormat,
    /// Checked in order before any model is asked; the first profile with a matching rule wins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<RouteRule>>")]
    pub rules: Vec<RouteRule>,
    /// The model for turns of this profile instead of the conversation's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Model calls in one turn at most (each tool round is one), instead of the engine's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_model_calls: Option<u32>,
    /// The profile used when nothing else decides; exactly one profile of a set has it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>")]
    pub default: bool,
}

/// What the turn's final answer must be.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ResponseFormat {
    /// Free text (Markdown).
    #[default]
    Text,
    /// One JSON document valid against `schema` (checked with [`validate_json_response`]).
    Json { schema: Value },
}

/// A routing rule, decided without a model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RouteRule {
    /// Any of the words occurs in the message, ignoring case. A word starting or ending with an
    /// ASCII letter or digit must stand alone there (`plan` matches "a plan", not "airplane");
    /// other scripts match anywhere (`计划` matches "帮我做个计划").
    Keywords { any: Vec<String> },
    /// The regular expression (Rust `regex` syntax, no look-around) matches somewhere in the
    /// message; case-sensitive unless it starts with `(?i)`.
    Regex { pattern: String },
    /// The message starts with this command (`/plan`), ignoring case and leading spaces; a
    /// prefix ending in a letter or digit must be followed by a space or the end.
    Prefix { prefix: String },
}
