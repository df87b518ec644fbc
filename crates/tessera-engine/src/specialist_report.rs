//! What a specialist's call reports beside its answer: each model call's usage and the agent's
//! cost (seed 001 §10.3), read back as a typed report from the call's result, for the run's
//! usage and its `done`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tessera_providers::stream::Usage;

/// The prefix of a specialist's tool name.
pub(crate) const TOOL_PREFIX: &str = "invoke_";
/// The provider a specialist's tool names: how a call's record says it ran an agent.
pub(crate) const SPECIALIST_PROVIDER: &str = "specialist";
/// The key of a specialist's result that lists what its model calls cost (the turn adds them
/// to its own usage).
pub(crate) const AGENT_USAGE_KEY: &str = "agent_usage";

/// One model's share of a specialist's cost, as its result carries it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct SpecialistUsage {
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl SpecialistUsage {
    /// The provider usage it stands for.
    pub fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            ..Usage::default()
        }
    }
}

/// What one agent cost in a run (seed 001 §10.3 `AgentCostSummary`), for the run's `done`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct SpecialistCost {
    pub agent_name: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_cost_usd: Option<f64>,
    pub turns_used: u64,
    pub duration_ms: u64,
}

impl SpecialistCost {
    /// Adds another call of the same agent.
    pub fn add(&mut self, other: &SpecialistCost) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.estimated_cost_usd = match (self.estimated_cost_usd, other.estimated_cost_usd) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
        self.turns_used += other.turns_used;
        self.duration_ms += other.duration_ms;
    }
}

/// A specialist call's report, as its result carries it.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub(crate) struct SpecialistReport {
    pub agent: String,
    #[serde(default)]
    pub turns_used: u64,
    #[serde(default)]
    pub duration_ms: u64,
    #[serde(default, rename = "agent_usage")]
    pub usage: Vec<SpecialistUsage>,
}

impl SpecialistReport {
    /// The report of a specialist's result; None when the result is not one.
    pub fn of(result: &Value) -> Option<Self> {
        serde_json::from_value(result.clone()).ok()
    }

    /// What the call cost, for the run's `done`.
    pub fn cost(&self) -> SpecialistCost {
        let costs: Vec<f64> = self.usage.iter().filter_map(|u| u.cost_usd).collect();
        SpecialistCost {
            agent_name: self.agent.clone(),
            input_tokens: self.usage.iter().map(|u| u.input_tokens).sum(),
            output_tokens: self.usage.iter().map(|u| u.output_tokens).sum(),
            estimated_cost_usd: (!costs.is_empty()).then(|| costs.iter().sum()),
            turns_used: self.turns_used,
            duration_ms: self.duration_ms,
        }
    }
}
