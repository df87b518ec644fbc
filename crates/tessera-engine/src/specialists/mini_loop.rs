//! A specialist's mini-loop (seed 001 §6 `BaseSpecialistService.execute`): call its model, run
//! the tools it asks for, again, until it answers or its turns run out. The last turn offers no
//! tools, so the specialist always ends with an answer rather than a dangling call. Each model
//! call is recorded as usage under the specialist's name; its tool calls appear in the run's
//! stream under the invoking call's id.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};
use tessera_protocol::context_doc::UsageStage;
use tessera_protocol::wire::JsonObject;
use tessera_providers::request::ToolSpec as ModelTool;
use tessera_providers::{ChatMessage, ChatRequest};

use super::spec::{SpecialistDeps, SpecialistSpec};
use crate::executor::result_evidence::cited_ids;
use crate::executor::{Executor, ExecutorOptions, NestedSink};
use crate::profiles::side_call::call_recorded_by;
use crate::specialist_report::{SpecialistUsage, AGENT_USAGE_KEY};
use crate::tool_round::{assistant_message, result_parts, results_message, tool_call_request};
use crate::tools::{ToolContext, ToolFailure, ToolFailureCode, ToolRegistry};

/// What a loop did.
#[derive(Debug, Default)]
pub(super) struct LoopResult {
    /// The final answer's text.
    pub text: String,
    pub turns_used: u32,
    /// The tools it called, in order.
    pub tool_calls: Vec<String>,
    pub usage: Vec<SpecialistUsage>,
    /// Evidences its tools' results named (search hits), for the coordinator to cite.
    pub evidence_ids: Vec<String>,
    /// The final answer was still refused by the check when the turns ran out.
    pub problem: Option<String>,
    pub started: Option<Instant>,
}

impl LoopResult {
    fn add_usage(
        &mut self,
        model: &str,
        usage: Option<tessera_providers::stream::Usage>,
        cost: Option<f64>,
    ) {
        let Some(u) = usage else { return };
        match self.usage.iter_mut().find(|a| a.model == model) {
            Some(a) => {
                a.input_tokens += u.input_tokens;
                a.output_tokens += u.output_tokens;
                a.cost_usd = match (a.cost_usd, cost) {
                    (None, None) => None,
                    (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
                };
            }
            None => self.usage.push(SpecialistUsage {
                model: model.to_owned(),
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
                cost_usd: cost,
            }),
        }
    }

    /// The fields every specialist result has.
    pub fn to_result(&self, spec: &SpecialistSpec) -> JsonObject {
        let mut o = JsonObject::new();
        o.insert("agent".into(), json!(spec.name));
        o.insert("output".into(), json!(self.text));
        o.insert("turns_used".into(), json!(self.turns_used));
        o.insert("max_turns".into(), json!(spec.max_turns));
        o.insert("tool_calls".into(), json!(self.tool_calls));
        if !self.evidence_ids.is_empty() {
            let cited: Vec<Value> = self
                .evidence_ids
                .iter()
                .map(|id| json!({"evidence_id": id}))
                .collect();
            o.insert("evidences".into(), Value::Array(cited));
        }
        o.insert(
            AGENT_USAGE_KEY.into(),
            serde_json::to_value(&self.usage).unwrap_or(Value::Null),
        );
        if let Some(started) = self.started {
            o.insert(
                "duration_ms".into(),
                json!(started.elapsed().as_millis() as u64),
            );
        }
        o
    }
}

/// The first message: the task and the context the coordinator passed.
pub(super) fn first_message(arguments: &Value) -> Result<String, ToolFailure> {
    let task = arguments
        .get("task")
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| {
            ToolFailure::new(
                ToolFailureCode::InvalidArguments,
                "task: required, a string",
            )
        })?;
    Ok(match arguments.get("context").and_then(Value::as_str) {
        Some(context) if !context.trim().is_empty() => {
            format!("{task}\n\nWhat the conversation so far tells you:\n{context}")
        }
        _ => task.to_owned(),
    })
}

/// Runs the loop. `accept` checks a final answer: `Err`, in its words, is told to the model,
/// which gets another turn if it has one left.
pub(super) async fn run_loop<T, E: std::fmt::Display>(
    deps: &SpecialistDeps,
    spec: &SpecialistSpec,
    tools: &Arc<ToolRegistry>,
    first: String,
    ctx: &ToolContext,
    stage: UsageStage,
    mut accept: impl FnMut(&str) -> Result<T, E>,
) -> Result<(LoopResult, Option<T>), ToolFailure> {
    let model = spec.model.clone().unwrap_or_else(|| deps.model.clone());
    let conversation_id = ctx.conversation_id().to_owned();
    let model_tools: Vec<ModelTool> = tools
        .names()
        .filter_map(|name| tools.get(name))
        .map(|t| ModelTool {
            name: t.spec.name.clone(),
            description: t.spec.description.clone(),
            input_schema: t.spec.input_schema.clone(),
        })
        .collect();
    // The specialist's calls pass the gate as the coordinator's do, named as its own: nobody
    // is asked in the middle of its loop, so a call that needs consent and has no grant is
    // refused (the refusal is the specialist's tool result).
    let options = ExecutorOptions::nested_in(
        ctx,
        crate::tools::RequestedBy::Specialist(spec.name.clone()),
    )
    .concurrency_limit(4);
    let executor = Executor::new(
        Arc::clone(tools),
        Arc::new(NestedSink::new(ctx.event_sink(), &ctx.call_id)),
        options,
    );
    let mut messages = vec![ChatMessage::user(first)];
    let mut out = LoopResult {
        started: Some(Instant::now()),
        ..LoopResult::default()
    };
    let max = spec.max_turns.max(1);
    for turn in 1..=max {
        if ctx.cancel.is_cancelled() {
            return Err(ToolFailure::new(
                ToolFailureCode::Cancelled,
                "the specialist was cancelled",
            ));
        }
        ctx.agent_turn(&spec.name, u64::from(turn), u64::from(max));
        out.turns_used = turn;
        let last = turn == max;
        let mut request = ChatRequest::new(&model, messages.clone());
        request.system = Some(if last && !model_tools.is_empty() {
            format!(
                "{}\n\nThis is your last turn: answer now with what you have found; you cannot \
                 call tools any more.",
                spec.system_prompt
            )
        } else {
            spec.system_prompt.clone()
        });
        request.max_tokens = spec.max_tokens;
        if !last {
            request.tools.clone_from(&model_tools);
        }
        let call = call_recorded_by(
            &deps.store,
            &deps.client,
            &conversation_id,
            stage,
            Some(&spec.name),
            request,
            ctx.cancel.clone(),
        )
        .await
        .map_err(|e| {
            ToolFailure::retryable(
                ToolFailureCode::ContextDatabaseUnavailable,
                format!("the specialist's call could not be recorded: {e}"),
            )
        })?;
        out.add_usage(&call.model, call.response.usage, call.cost);
        if let Some(error) = call.error {
            return Err(ToolFailure::new(
                error.code(),
                format!("{}'s model call failed: {error}", spec.title),
            ));
        }
        let response = call.response;
        if response.tool_calls.is_empty() || last {
            out.text.clone_from(&response.text);
            match accept(&response.text) {
                Ok(value) => return Ok((out, Some(value))),
                Err(problem) if !last => {
                    messages.push(assistant_message(&response));
                    messages.push(ChatMessage::user(problem.to_string()));
                    continue;
                }
                Err(problem) => {
                    out.problem = Some(problem.to_string());
                    return Ok((out, None));
                }
            }
        }
        messages.push(assistant_message(&response));
        out.tool_calls
            .extend(response.tool_calls.iter().map(|c| c.name.clone()));
        let request = tool_call_request(&response.tool_calls);
        let done = executor.run_tool_calls(&request, &ctx.cancel).await;
        if let Ok(done) = &done {
            for result in done.results.iter().filter_map(|r| r.result.as_ref()) {
                cited_ids(result, 0, &mut out.evidence_ids);
            }
        }
        let parts = result_parts(&deps.store, &done, &response.tool_calls);
        messages.push(results_message(
            &response.tool_calls,
            &response.incomplete_tool_calls,
            parts,
        ));
    }
    Ok((out, None))
}

/// A specialist whose answer goes back as text.
pub(super) async fn answer(
    deps: &SpecialistDeps,
    spec: &SpecialistSpec,
    tools: &Arc<ToolRegistry>,
    arguments: Value,
    ctx: ToolContext,
) -> Result<Value, ToolFailure> {
    let first = first_message(&arguments)?;
    let (out, _) = run_loop(deps, spec, tools, first, &ctx, UsageStage::ToolCall, |_| {
        Ok::<(), std::convert::Infallible>(())
    })
    .await?;
    Ok(Value::Object(out.to_result(spec)))
}
