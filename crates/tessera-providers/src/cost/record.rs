//! One model call as seed 004 records it (`session.model_usage[]`), and the per-agent summaries
//! of seed 001 section 10.3 computed from those records.

use std::time::Duration;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tessera_protocol::context_doc::{ModelUsage, ModelUsageStatus, UsageStage};
use tessera_protocol::wire::JsonObject;

use crate::config::ModelPrice;
use crate::cost::{estimate_cost, round_usd};
use crate::error::ProviderError;
use crate::stream::Usage;

/// Names of the fields a record keeps in `ModelUsage.extra` (the store reads the first two
/// into columns of their own).
pub mod extra {
    pub const STARTED_AT: &str = "started_at";
    pub const ESTIMATED_COST_USD: &str = "estimated_cost_usd";
    pub const AGENT: &str = "agent";
    pub const REASONING_TOKENS: &str = "reasoning_tokens";
    pub const CACHED_INPUT_TOKENS: &str = "cached_input_tokens";
    pub const FALLBACK_FROM: &str = "fallback_from";
}

/// The agent a call is counted under when its record names none.
pub const DEFAULT_AGENT: &str = "main";

/// What the engine knows of one finished (or failed) model call.
#[derive(Clone, Debug, PartialEq)]
pub struct CallRecord {
    pub model_usage_id: String,
    pub task_id: Option<String>,
    /// The agent that made the call (a sub-agent's name), for the per-agent summaries.
    pub agent: Option<String>,
    pub stage: UsageStage,
    pub provider: String,
    /// The model that answered (the fallback model after an overload).
    pub model: String,
    /// The model first asked, when an overload switched to the fallback.
    pub fallback_from: Option<String>,
    /// Request parameters worth keeping (`temperature`, `max_tokens`…); never headers or keys.
    pub params: Option<JsonObject>,
    pub started_at: Timestamp,
    pub first_token_latency: Option<Duration>,
    pub latency: Duration,
    /// Tokens as reported, also for a call that failed part-way.
    pub usage: Option<Usage>,
    pub error: Option<ProviderError>,
    /// The model's price when the call was made (None: unknown, no cost estimated).
    pub price: Option<ModelPrice>,
}

impl CallRecord {
    /// A successful call with nothing measured yet.
    pub fn new(
        model_usage_id: impl Into<String>,
        stage: UsageStage,
        provider: impl Into<String>,
        model: impl Into<String>,
        started_at: Timestamp,
    ) -> Self {
        Self {
            model_usage_id: model_usage_id.into(),
            task_id: None,
            agent: None,
            stage,
            provider: provider.into(),
            model: model.into(),
            fallback_from: None,
            params: None,
            started_at,
            first_token_latency: None,
            latency: Duration::ZERO,
            usage: None,
            error: None,
            price: None,
        }
    }

    /// The estimated cost in USD, when the price is known (a call with no usage reported
    /// costs nothing as far as anyone can tell).
    pub fn estimated_cost_usd(&self) -> Option<f64> {
        let price = self.price.as_ref()?;
        Some(self.usage.as_ref().map_or(0.0, |u| estimate_cost(u, price)))
    }

    /// The seed-004 record: tokens, latencies, status, and `error` as `code: message`; the
    /// cost, agent, start time, reasoning and cached tokens and the fallback in `extra`.
    pub fn to_model_usage(&self) -> ModelUsage {
        let mut more = JsonObject::new();
        more.insert(
            extra::STARTED_AT.into(),
            Value::String(rfc3339_utc(self.started_at)),
        );
        if let Some(cost) = self
            .estimated_cost_usd()
            .and_then(serde_json::Number::from_f64)
        {
            more.insert(extra::ESTIMATED_COST_USD.into(), Value::Number(cost));
        }
        if let Some(agent) = &self.agent {
            more.insert(extra::AGENT.into(), Value::String(agent.clone()));
        }
        if let Some(n) = self.usage.and_then(|u| u.reasoning_tokens) {
            more.insert(extra::REASONING_TOKENS.into(), Value::from(n));
        }
        if let Some(n) = self.usage.and_then(|u| u.cached_input_tokens) {
            more.insert(extra::CACHED_INPUT_TOKENS.into(), Value::from(n));
        }
        if let Some(from) = &self.fallback_from {
            more.insert(extra::FALLBACK_FROM.into(), Value::String(from.clone()));
        }
        ModelUsage {
            model_usage_id: self.model_usage_id.clone(),
            task_id: self.task_id.clone(),
            stage: Some(self.stage),
            provider: Some(self.provider.clone()),
            model: Some(self.model.clone()),
            params: self.params.clone(),
            prompt_tokens: self.usage.map(|u| u.input_tokens),
            completion_tokens: self.usage.map(|u| u.output_tokens),
            total_tokens: self.usage.map(|u| u.total()),
            first_token_latency_ms: self.first_token_latency.map(millis),
            latency_ms: Some(millis(self.latency)),
            status: Some(if self.error.is_some() {
                ModelUsageStatus::Error
            } else {
                ModelUsageStatus::Success
            }),
            error: self
                .error
                .as_ref()
                .map(|err| format!("{}: {err}", err.code())),
            extra: more,
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// `2026-01-20T10:00:00.123Z`: UTC, milliseconds, the form the store orders by.
pub fn rfc3339_utc(at: Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// The estimated cost a record carries, if any.
pub fn recorded_cost_usd(usage: &ModelUsage) -> Option<f64> {
    usage.extra.get(extra::ESTIMATED_COST_USD)?.as_f64()
}

/// When the call started, if the record says and the text is a timestamp.
pub fn recorded_start(usage: &ModelUsage) -> Option<Timestamp> {
    usage.extra.get(extra::STARTED_AT)?.as_str()?.parse().ok()
}

/// The agent a record is counted under.
pub fn recorded_agent(usage: &ModelUsage) -> &str {
    usage
        .extra
        .get(extra::AGENT)
        .and_then(Value::as_str)
        .filter(|a| !a.is_empty())
        .unwrap_or(DEFAULT_AGENT)
}

/// What one agent's calls used (seed 001 section 10.3, `AgentCostSummary`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCostSummary {
    pub agent_name: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The sum of the calls' recorded estimates; calls of unknown price add nothing.
    pub estimated_cost_usd: f64,
    /// Model calls made, failed ones included.
    pub turns_used: u32,
    /// From the first call's start to the last call's end when every call says when it
    /// started (so parallel calls are not counted twice); otherwise the calls' latencies added.
    pub duration_ms: u64,
}

/// One summary per agent, in the order each agent first appears.
pub fn agent_summaries(usages: &[ModelUsage]) -> Vec<AgentCostSummary> {
    let mut order: Vec<&str> = Vec::new();
    for usage in usages {
        let agent = recorded_agent(usage);
        if !order.contains(&agent) {
            order.push(agent);
        }
    }
    order
        .into_iter()
        .map(|agent| {
            let calls: Vec<&ModelUsage> = usages
                .iter()
                .filter(|u| recorded_agent(u) == agent)
                .collect();
            summarise(agent, &calls)
        })
        .collect()
}

fn summarise(agent: &str, calls: &[&ModelUsage]) -> AgentCostSummary {
    let latency = |u: &ModelUsage| u.latency_ms.unwrap_or(0);
    let spans: Option<Vec<(i128, i128)>> = calls
        .iter()
        .map(|u| {
            let start = recorded_start(u)?.as_millisecond();
            Some((
                i128::from(start),
                i128::from(start) + i128::from(latency(u)),
            ))
        })
        .collect();
    let duration_ms = match spans {
        Some(spans) if !spans.is_empty() => {
            let first = spans.iter().map(|s| s.0).min().unwrap_or(0);
            let last = spans.iter().map(|s| s.1).max().unwrap_or(0);
            u64::try_from(last - first).unwrap_or(0)
        }
        _ => calls.iter().map(|u| latency(u)).sum(),
    };
    AgentCostSummary {
        agent_name: agent.to_owned(),
        input_tokens: calls.iter().filter_map(|u| u.prompt_tokens).sum(),
        output_tokens: calls.iter().filter_map(|u| u.completion_tokens).sum(),
        estimated_cost_usd: round_usd(calls.iter().filter_map(|u| recorded_cost_usd(u)).sum()),
        turns_used: u32::try_from(calls.len()).unwrap_or(u32::MAX),
        duration_ms,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn sonnet() -> ModelPrice {
        ModelPrice {
            input_per_mtok: 3.0,
            output_per_mtok: 15.0,
            cached_input_per_mtok: Some(0.30),
        }
    }

    #[test]
    fn a_successful_call_becomes_a_seed_004_record() {
        let mut call = CallRecord::new(
            "mu-1",
            UsageStage::Answer,
            "anthropic",
            "claude-sonnet-4-5",
            at("2026-01-20T02:00:00.5+08:00"),
        );
        call.task_id = Some("t1".into());
        call.agent = Some("researcher".into());
        call.first_token_latency = Some(Duration::from_millis(420));
        call.latency = Duration::from_millis(2_310);
        call.usage = Some(Usage {
            input_tokens: 10_000,
            output_tokens: 2_000,
            reasoning_tokens: Some(500),
            cached_input_tokens: Some(8_000),
            cache_creation_input_tokens: None,
        });
        call.price = Some(sonnet());
        call.params = serde_json::from_value(json!({"max_tokens": 4096})).unwrap();
        let usage = call.to_model_usage();
        let json = serde_json::to_value(&usage).unwrap();
        assert_eq!(
            json,
            json!({
                "model_usage_id": "mu-1",
                "task_id": "t1",
                "stage": "answer",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "params": {"max_tokens": 4096},
                "prompt_tokens": 10_000,
                "completion_tokens": 2_000,
                "total_tokens": 12_000,
                "first_token_latency_ms": 420,
                "latency_ms": 2_310,
                "status": "success",
                "started_at": "2026-01-19T18:00:00.500Z",
                // 2000 × $3 + 8000 × $0.30 + 2000 × $15, per million
                "estimated_cost_usd": 0.0384,
                "agent": "researcher",
                "reasoning_tokens": 500,
                "cached_input_tokens": 8_000,
            })
        );
        assert_eq!(recorded_cost_usd(&usage), Some(0.0384));
        assert_eq!(recorded_start(&usage), Some(at("2026-01-19T18:00:00.500Z")));
    }

    #[test]
    fn a_failed_call_keeps_its_error_code_and_the_fallback() {
        let mut call = CallRecord::new(
            "mu-2",
            UsageStage::ToolCall,
            "anthropic",
            "claude-haiku-4-5",
            at("2026-01-20T00:00:00Z"),
        );
        call.fallback_from = Some("claude-sonnet-4-5".into());
        call.latency = Duration::from_millis(80);
        call.error = Some(ProviderError::Http {
            provider: "anthropic".into(),
            status: 401,
            kind: Some("authentication_error".into()),
            message: "invalid x-api-key".into(),
            retry_after: None,
        });
        let usage = call.to_model_usage();
        assert_eq!(usage.status, Some(ModelUsageStatus::Error));
        assert_eq!(
            usage.error.as_deref(),
            Some("auth_failed: anthropic answered HTTP 401: invalid x-api-key")
        );
        assert_eq!(usage.prompt_tokens, None);
        assert_eq!(usage.extra["fallback_from"], json!("claude-sonnet-4-5"));
        // Unknown price: no estimate rather than a wrong zero.
        assert!(!usage.extra.contains_key("estimated_cost_usd"));
        assert_eq!(recorded_agent(&usage), DEFAULT_AGENT);
    }

    fn record(
        agent: Option<&str>,
        start: Option<&str>,
        latency: u64,
        tokens: (u64, u64),
        cost: Option<f64>,
    ) -> ModelUsage {
        let mut extra = JsonObject::new();
        if let Some(agent) = agent {
            extra.insert("agent".into(), json!(agent));
        }
        if let Some(start) = start {
            extra.insert("started_at".into(), json!(start));
        }
        if let Some(cost) = cost {
            extra.insert("estimated_cost_usd".into(), json!(cost));
        }
        ModelUsage {
            model_usage_id: format!("{agent:?}{start:?}"),
            task_id: None,
            stage: Some(UsageStage::Answer),
            provider: None,
            model: None,
            params: None,
            prompt_tokens: Some(tokens.0),
            completion_tokens: Some(tokens.1),
            total_tokens: Some(tokens.0 + tokens.1),
            first_token_latency_ms: None,
            latency_ms: Some(latency),
            status: Some(ModelUsageStatus::Success),
            error: None,
            extra,
        }
    }

    #[test]
    fn summaries_add_up_per_agent_in_order_of_appearance() {
        let usages = vec![
            record(
                None,
                Some("2026-01-20T10:00:00.000Z"),
                1_000,
                (100, 10),
                Some(0.01),
            ),
            record(
                Some("coder"),
                Some("2026-01-20T10:00:01.000Z"),
                3_000,
                (500, 50),
                Some(0.02),
            ),
            // Runs alongside the coder's first call: the span, not the sum, is its duration.
            record(
                Some("coder"),
                Some("2026-01-20T10:00:02.000Z"),
                1_000,
                (200, 20),
                None,
            ),
            record(
                None,
                Some("2026-01-20T10:00:05.000Z"),
                500,
                (300, 30),
                Some(0.005),
            ),
        ];
        let summaries = agent_summaries(&usages);
        let json = serde_json::to_value(&summaries).unwrap();
        assert_eq!(
            json,
            json!([
                {"agentName": "main", "inputTokens": 400, "outputTokens": 40,
                 "estimatedCostUsd": 0.015, "turnsUsed": 2, "durationMs": 5_500},
                {"agentName": "coder", "inputTokens": 700, "outputTokens": 70,
                 "estimatedCostUsd": 0.02, "turnsUsed": 2, "durationMs": 3_000},
            ])
        );
        // Without start times the latencies are added.
        let summaries = agent_summaries(&[
            record(Some("a"), None, 700, (1, 1), None),
            record(Some("a"), Some("2026-01-20T10:00:00Z"), 300, (1, 1), None),
        ]);
        assert_eq!(summaries[0].duration_ms, 1_000);
        assert!(agent_summaries(&[]).is_empty());
    }
}
