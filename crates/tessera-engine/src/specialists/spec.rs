//! A specialist's declaration, and what its tool needs to run.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tessera_providers::ProviderClient;
use tessera_store::Store;

use crate::specialist_report::TOOL_PREFIX;

/// Turns a specialist gets unless it says otherwise (seed 001 §5).
pub(crate) const DEFAULT_MAX_TURNS: u32 = 3;
/// The most turns a specialist may be given.
pub(crate) const MAX_TURNS_LIMIT: u32 = 10;

/// What a specialist does with its model's final answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SpecialistRole {
    /// The answer goes back to the coordinator as text.
    #[default]
    Answer,
    /// The answer is an instruction set, run by the scheduler and kept as the task list.
    Plan,
}

/// A specialist's declaration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
#[serde(deny_unknown_fields)]
pub struct SpecialistSpec {
    /// `[a-z0-9_]`, 1 to 40; its tool is `invoke_<name>`.
    pub name: String,
    /// Shown to the person (progress, forms).
    pub title: String,
    /// What the coordinator's model reads to decide when to call it.
    pub description: String,
    pub system_prompt: String,
    /// Its model (same provider); None: the coordinator's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The tools it may call, by name (a planner's instructions may use them).
    #[serde(default)]
    pub tools: Vec<String>,
    #[serde(default = "default_max_turns")]
    pub max_turns: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(default)]
    pub role: SpecialistRole,
}

fn default_max_turns() -> u32 {
    DEFAULT_MAX_TURNS
}

impl SpecialistSpec {
    pub fn tool_name(&self) -> String {
        format!("{TOOL_PREFIX}{}", self.name)
    }
}

/// What a specialist's tool needs to run: the store, the model, and the tools as they were
/// before any specialist joined.
#[derive(Clone)]
pub struct SpecialistDeps {
    pub store: Arc<Store>,
    pub client: ProviderClient,
    /// The coordinator's model, used when a specialist names none.
    pub model: String,
}
