//! The loop of a turn: a model call, its tool round, again, until the model answers without
//! tools, the turn limit is reached, the person must answer something (the run suspends), or it
//! is cancelled; then the answer is stored and the run ends with `system/done`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::json;
use tessera_protocol::easyflow::{SystemState, WorkflowState};
use tessera_protocol::failure_codes::{RunErrorCode, ToolFailureCode};
use tessera_protocol::request::Role as WireRole;
use tessera_providers::request::{Part, ToolSpec as ModelTool};
use tessera_providers::stream::{Response, Usage};
use tessera_providers::{ChatMessage, ChatRequest, ProviderClient, ProviderError};
use tessera_store::{text_message, NewMessage, Parent};
use tokio_util::sync::CancellationToken;

use super::round::{run_round, RoundOutcome};
use super::{call, limits, Recorder, TurnError, TurnOptions, TurnOutcome};
use crate::interactions::request_form;
use crate::profiles::validate_json_response;
use crate::sync::blocking;
use crate::tool_round::assistant_message;

/// The `system/error` code (and stored message key) of an answer that is not the JSON the
/// profile asks for.
pub const INVALID_RESPONSE: &str = RunErrorCode::InvalidResponse.as_str();
use crate::model_events::{DoneSummary, EventShaper};

/// Where a turn stands between model calls: what the model reads next and what the turn has
/// produced so far. Rebuilt from the store when a suspended run resumes.
#[derive(Debug)]
pub(crate) struct TurnState {
    pub messages: Vec<ChatMessage>,
    /// What the assembler put before the messages (context blocks, the rolling summary).
    pub system: Option<String>,
    /// The text of every call so far, set apart by [`EventShaper::CALL_SEPARATOR`].
    pub text_so_far: String,
    /// Per model: usage and estimated cost.
    pub usage: BTreeMap<String, (Usage, Option<f64>)>,
    /// From the start of the turn to its first output.
    pub first_output: Option<Duration>,
    /// Model calls made.
    pub calls: u32,
    pub started: Instant,
    /// The final answer, when the profile asks for JSON and it is valid.
    pub json_answer: Option<String>,
    /// Why the final answer is not the JSON the profile asks for, when it still is not.
    pub invalid_answer: Option<String>,
    /// The person's message the turn answers: the answer is stored after it (None: after
    /// the branch shown).
    pub user_message: Option<String>,
    /// Why the run stopped calling tools: its tool arguments and results reached the run's
    /// limit.
    pub over_run_limit: Option<String>,
    /// Some call's usage was counted by Tessera (the provider reported none: stopped, cut).
    pub usage_estimated: bool,
    /// The last model call's `model_usage` record and model: the answer's `llm_output`
    /// evidence links to it.
    pub last_call: Option<(String, String)>,
    /// Per agent (specialist) called: what it cost (seed 001 §10.3).
    pub agents: Vec<crate::specialist_report::SpecialistCost>,
}

impl Default for TurnState {
    fn default() -> Self {
        Self {
            messages: Vec::new(),
            system: None,
            text_so_far: String::new(),
            usage: BTreeMap::new(),
            first_output: None,
            calls: 0,
            started: Instant::now(),
            json_answer: None,
            invalid_answer: None,
            user_message: None,
            over_run_limit: None,
            last_call: None,
            agents: Vec::new(),
            usage_estimated: false,
        }
    }
}

impl TurnState {
    pub(super) fn add_text(&mut self, text: &str) {
        if !self.text_so_far.is_empty() && !text.is_empty() {
            self.text_so_far.push_str(EventShaper::CALL_SEPARATOR);
        }
        self.text_so_far.push_str(text);
    }

    pub(super) fn add_usage(&mut self, model: &str, more: &Usage, cost: Option<f64>) {
        let entry = self.usage.entry(model.to_owned()).or_default();
        let total = &mut entry.0;
        total.input_tokens = total.input_tokens.saturating_add(more.input_tokens);
        total.output_tokens = total.output_tokens.saturating_add(more.output_tokens);
        let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        };
        total.reasoning_tokens = add(total.reasoning_tokens, more.reasoning_tokens);
        total.cached_input_tokens = add(total.cached_input_tokens, more.cached_input_tokens);
        total.cache_creation_input_tokens = add(
            total.cache_creation_input_tokens,
            more.cache_creation_input_tokens,
        );
        entry.1 = match (entry.1, cost) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }
}

/// What the model may call: the registry's tools, and `request_form` when the person can be
/// asked.
pub(super) fn model_tools(options: &TurnOptions) -> Vec<ModelTool> {
    let mut tools: Vec<ModelTool> = options
        .tools
        .iter()
        .flat_map(|registry| {
            registry.names().filter_map(|name| {
                registry.get(name).map(|tool| ModelTool {
                    name: tool.spec.name.clone(),
                    description: tool.spec.description.clone(),
                    input_schema: tool.spec.input_schema.clone(),
                })
            })
        })
        .collect();
    if options.interactions && options.tools.is_some() {
        tools.push(request_form::model_tool());
    }
    tools
}

/// Calls the model until the turn ends or suspends.
pub(super) async fn drive(
    recorder: &mut Recorder<'_>,
    client: &ProviderClient,
    model: &str,
    options: &TurnOptions,
    mut state: TurnState,
    cancel: &CancellationToken,
) -> Result<TurnOutcome, TurnError> {
    let tools = model_tools(options);
    let mut hit_limit = false;
    let (response, error) = loop {
        if cancel.is_cancelled() {
            break (Response::default(), Some(ProviderError::Cancelled));
        }
        // Spending limits stop every new paid call, tool rounds included.
        let store = recorder.store;
        let conversation_id = recorder.conversation_id.clone();
        if let Err(err) = limits::check_spending(
            store,
            client,
            model,
            &conversation_id,
            options.limits.as_ref(),
            &options.prices,
        ) {
            if state.calls == 0 {
                return fail_early(recorder, err, &state);
            }
            break (Response::default(), Some(err));
        }
        state.calls += 1;
        let mut request = ChatRequest::new(model, state.messages.clone());
        request.system = match (&options.system, &state.system) {
            (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        request.max_tokens = options.max_tokens;
        request.temperature = options.temperature;
        request.top_p = options.top_p;
        request.tools.clone_from(&tools);
        if state.calls == 1 && !request.tools.is_empty() {
            // The caller's choice, else the one the person set for this model.
            request.tool_choice = options
                .first_tool_choice
                .clone()
                .or_else(|| client.config().first_tool_choice(model));
        }
        if options.debug {
            let mut facts = tessera_protocol::wire::JsonObject::new();
            facts.insert("call".into(), json!(state.calls));
            facts.insert("provider".into(), json!(client.config().name));
            facts.insert("model".into(), json!(model));
            facts.insert("messages".into(), json!(request.messages.len()));
            facts.insert(
                "tools".into(),
                json!(request
                    .tools
                    .iter()
                    .map(|t| t.name.clone())
                    .collect::<Vec<_>>()),
            );
            recorder.put(recorder.shaper.debug_log("calling the model", facts))?;
        }
        let call_started = Instant::now();
        let result = call::call_model(recorder, client, request, options, cancel.clone()).await?;
        state.last_call = Some((result.model_usage_id.clone(), result.model.clone()));
        if options.debug {
            let mut facts = tessera_protocol::wire::JsonObject::new();
            facts.insert("call".into(), json!(state.calls));
            facts.insert("model".into(), json!(result.model));
            facts.insert(
                "latency_ms".into(),
                json!(u64::try_from(call_started.elapsed().as_millis()).unwrap_or(u64::MAX)),
            );
            facts.insert("finish_reason".into(), json!(result.response.finish_reason));
            facts.insert("tool_calls".into(), json!(result.response.tool_calls.len()));
            if let Some(u) = result.usage {
                facts.insert("prompt_tokens".into(), json!(u.input_tokens));
                facts.insert("completion_tokens".into(), json!(u.output_tokens));
            }
            if let Some(err) = &result.error {
                facts.insert("error_code".into(), json!(err.code()));
            }
            recorder.put(recorder.shaper.debug_log("the model answered", facts))?;
        }
        state.add_text(&result.response.text);
        if state.first_output.is_none() {
            // From the start of the turn to the first output of the first call that had one.
            state.first_output = result
                .first_output
                .map(|d| call_started.duration_since(state.started) + d);
        }
        if let Some(u) = result.usage {
            state.add_usage(&result.model, &u, result.cost);
        } else if matches!(result.error, Some(ProviderError::Cancelled))
            || (result.error.is_some() && !result.response.text.is_empty())
        {
            // Stopped or cut mid-answer before the provider said what it used: counted here
            // instead, and marked as an estimate (never "0 in / 0 out"). A call refused
            // outright (a bad key) used nothing and gets no estimate.
            let estimate = estimated_usage(&state, &result.response.text, &result.model);
            state.add_usage(&result.model, &estimate, None);
            state.usage_estimated = true;
        }
        let response = result.response;
        let wants_tools = !response.tool_calls.is_empty() && result.error.is_none();
        if !wants_tools || options.tools.is_none() {
            if let (None, Some(schema)) = (&result.error, &options.response_schema) {
                match validate_json_response(&response.text, schema) {
                    Ok(_) => state.json_answer = Some(response.text.clone()),
                    // Told what is wrong, the model answers again while it has calls left.
                    Err(problem)
                        if state.calls < options.max_model_calls && !cancel.is_cancelled() =>
                    {
                        recorder.put(recorder.shaper.system_error(
                            INVALID_RESPONSE,
                            format!("the answer is being corrected: {problem}"),
                            true,
                            None,
                        ))?;
                        state.messages.push(assistant_message(&response));
                        state.messages.push(ChatMessage::user(format!(
                            "Your answer must be one JSON document valid against the response \
                             schema, and it is not: {problem}. Answer again with only the \
                             corrected JSON document."
                        )));
                        continue;
                    }
                    Err(problem) => state.invalid_answer = Some(problem.to_string()),
                }
            }
            break (response, result.error);
        }
        if state.calls >= options.max_model_calls {
            hit_limit = true;
            break (response, None);
        }
        state.messages.push(assistant_message(&response));
        let round = run_round(
            recorder,
            options.tools.as_ref(),
            &response.tool_calls,
            &response.incomplete_tool_calls,
            options,
            cancel,
        )
        .await?;
        for spent in recorder.take_specialist_usage() {
            state.add_usage(&spent.model, &spent.usage(), spent.cost_usd);
        }
        for cost in recorder.take_specialist_costs() {
            match state
                .agents
                .iter_mut()
                .find(|a| a.agent_name == cost.agent_name)
            {
                Some(known) => known.add(&cost),
                None => state.agents.push(cost),
            }
        }
        let spent = recorder.tool_bytes();
        if spent >= options.tool_limits.run_bytes {
            state.over_run_limit = Some(format!(
                "the run's tool calls hold {} of arguments and results, and at most {} are kept \
                 for one run; it was stopped (what it stored stays readable)",
                crate::executor::limits::bytes(spent),
                crate::executor::limits::bytes(options.tool_limits.run_bytes)
            ));
            break (response, None);
        }
        match round {
            RoundOutcome::Results(results) => state.messages.push(results),
            RoundOutcome::Suspended => {
                recorder.put(recorder.shaper.run_waits(WorkflowState::Suspend))?;
                recorder.put(recorder.shaper.status(SystemState::Suspended))?;
                return Ok(TurnOutcome {
                    conversation_id: recorder.conversation_id.clone(),
                    run_id: recorder.shaper.run_id().to_owned(),
                    message_id: None,
                    response: Response {
                        text: state.text_so_far,
                        ..response
                    },
                    error: None,
                    state: SystemState::Suspended,
                    model_calls: state.calls,
                });
            }
        }
        if cancel.is_cancelled() {
            break (response, Some(ProviderError::Cancelled));
        }
    };
    finish(recorder, options, state, response, error, hit_limit)
}

/// A call's usage counted with the model's tokenizer (or its nearest): the prompt as sent and
/// the answer as far as it came.
fn estimated_usage(state: &TurnState, answer: &str, model: &str) -> Usage {
    let mut prompt = state.system.clone().unwrap_or_default();
    for message in &state.messages {
        for part in &message.parts {
            match part {
                Part::Text { text } | Part::Reasoning { text, .. } => prompt.push_str(text),
                Part::File {
                    text: Some(text), ..
                } => prompt.push_str(text),
                _ => {}
            }
            prompt.push('\n');
        }
    }
    let encoding = crate::assembler::tokens::encoding_for_model(model).encoding;
    // A tokenizer that cannot load falls back to four characters a token.
    let count = |text: &str| {
        encoding
            .count(text)
            .unwrap_or_else(|_| (text.chars().count() as u64).div_ceil(4))
    };
    Usage {
        input_tokens: count(&prompt),
        output_tokens: count(answer),
        ..Usage::default()
    }
}

/// Stores the answer (or what arrived of it, marked when it was cut short) and ends the run.
fn finish(
    recorder: &mut Recorder<'_>,
    options: &TurnOptions,
    state: TurnState,
    response: Response,
    error: Option<ProviderError>,
    hit_limit: bool,
) -> Result<TurnOutcome, TurnError> {
    // A JSON answer is the document alone, not the attempts the model corrected.
    let content = state
        .json_answer
        .clone()
        .unwrap_or_else(|| state.text_so_far.clone());
    let mut message = text_message(WireRole::Assistant, content);
    if !response.refusal.is_empty() && message.content.is_empty() {
        message.content.clone_from(&response.refusal);
        message.extra.insert("refusal".into(), json!(true));
    }
    if let Some(reason) = response.finish_reason {
        message.extra.insert(
            "finish_reason".into(),
            serde_json::to_value(reason).unwrap_or_default(),
        );
    }
    if let Some(err) = &error {
        message
            .extra
            .insert("interrupted".into(), json!(err.code()));
    }
    if hit_limit {
        message
            .extra
            .insert("turn_limit".into(), json!(state.calls));
    }
    if let Some(problem) = &state.invalid_answer {
        message
            .extra
            .insert(INVALID_RESPONSE.into(), json!(problem));
    }
    let store = recorder.store;
    let conversation_id = recorder.conversation_id.clone();
    let run_id = recorder.shaper.run_id().to_owned();
    let refs = blocking(|| super::cite::run_evidence_refs(store, &conversation_id, &run_id))?;
    if !refs.is_empty() {
        message.refs = Some(refs);
    }
    let stored_message = if message.content.is_empty() && error.is_some() {
        None
    } else {
        let new = NewMessage::new(message)
            .with_id(recorder.shaper.message_id().to_owned())
            .with_parent(answer_parent(state.user_message.as_deref()));
        let (usage_id, model) = state.last_call.clone().unzip();
        let conversation = conversation_id.clone();
        Some(blocking(|| {
            store.write(move |tx| {
                let stored = tx.append_message(&conversation, new)?;
                tx.put_message_evidence(
                    &conversation,
                    &answer_evidence(&conversation, &stored, usage_id, model),
                )?;
                Ok(stored)
            })
        })?)
    };

    let run_state = match &error {
        None if state.invalid_answer.is_some() || state.over_run_limit.is_some() => {
            SystemState::Failed
        }
        None => SystemState::Completed,
        Some(ProviderError::Cancelled) => SystemState::Cancelled,
        Some(_) => SystemState::Failed,
    };
    if let Some(err) = &error {
        if !matches!(err, ProviderError::Cancelled) {
            recorder.put(recorder.shaper.provider_error(err))?;
        }
    }
    if hit_limit {
        recorder.put(
            recorder
                .shaper
                .turn_limit(u64::from(state.calls), u64::from(options.max_model_calls)),
        )?;
    }
    if let Some(problem) = &state.over_run_limit {
        recorder.put(recorder.shaper.system_error(
            ToolFailureCode::RunLimitReached.as_str(),
            problem.clone(),
            false,
            None,
        ))?;
    }
    if let Some(problem) = &state.invalid_answer {
        recorder.put(recorder.shaper.system_error(
            INVALID_RESPONSE,
            format!("the answer is not the JSON this agent must give: {problem}"),
            false,
            None,
        ))?;
    }
    recorder.put(recorder.shaper.status(run_state))?;
    // Folded before `done`: a client that saw `done` and reconnects gets the whole message.
    blocking(|| store.fold_run(&conversation_id, &run_id))?;
    recorder.put(recorder.shaper.done(&summary(&state, run_state)))?;
    Ok(TurnOutcome {
        conversation_id,
        run_id,
        message_id: stored_message.map(|m| m.id),
        response: Response {
            text: state.text_so_far.clone(),
            ..response
        },
        error,
        state: run_state,
        model_calls: state.calls,
    })
}

fn summary(state: &TurnState, run_state: SystemState) -> DoneSummary {
    DoneSummary {
        usage: state
            .usage
            .iter()
            .map(|(m, (u, c))| (m.clone(), *u, *c))
            .collect(),
        latency_ms: state.started.elapsed().as_millis() as u64,
        first_token_latency_ms: state.first_output.map(|d| d.as_millis() as u64),
        state: run_state,
        usage_estimated: state.usage_estimated,
        agents: state.agents.clone(),
    }
}

/// What `done` says of a run that failed before its first model call, begun at `begun`.
pub(super) fn failed_summary(begun: Instant) -> DoneSummary {
    let state = TurnState {
        started: begun,
        ..TurnState::default()
    };
    summary(&state, SystemState::Failed)
}

/// Ends a turn that never called the model.
fn fail_early(
    recorder: &mut Recorder<'_>,
    err: ProviderError,
    state: &TurnState,
) -> Result<TurnOutcome, TurnError> {
    recorder.put(recorder.shaper.provider_error(&err))?;
    recorder.put(recorder.shaper.status(SystemState::Failed))?;
    recorder.put(recorder.shaper.done(&summary(state, SystemState::Failed)))?;
    Ok(TurnOutcome {
        conversation_id: recorder.conversation_id.clone(),
        run_id: recorder.shaper.run_id().to_owned(),
        message_id: None,
        response: Response::default(),
        error: Some(err),
        state: SystemState::Failed,
        model_calls: 0,
    })
}

/// Where a run's answer is stored: after the person's message it answers, when known (runs
/// started before this was recorded: after the branch shown).
pub(crate) fn answer_parent(user_message: Option<&str>) -> Parent {
    user_message.map_or(Parent::ActiveLeaf, |id| Parent::Message(id.to_owned()))
}

/// The answer as an `llm_output` evidence (seed 004 §2/§3), linked to the `model_usage` record
/// of the call that gave it, so a citation or an audit can tell which call said what.
fn answer_evidence(
    conversation_id: &str,
    answer: &tessera_store::StoredMessage,
    model_usage_id: Option<String>,
    model: Option<String>,
) -> tessera_protocol::context_doc::Evidence {
    use tessera_protocol::context_doc::{
        Evidence, EvidenceLinks, EvidenceSource, EvidenceType, SourceKind,
    };
    Evidence {
        // The id search gives the message: finding the answer and its evidence is one hit.
        evidence_id: crate::builtin_tools::search_context::derived_evidence_id(
            conversation_id,
            "message",
            &answer.id,
        ),
        evidence_type: EvidenceType::LlmOutput,
        source: EvidenceSource {
            kind: SourceKind::Llm,
            name: model,
            uri: Some(format!(
                "tessera://conversations/{conversation_id}/messages/{}",
                answer.id
            )),
            extra: Default::default(),
        },
        content: Some(serde_json::Value::String(answer.message.content.clone())),
        confidence: None,
        metadata: None,
        links: model_usage_id.map(|id| EvidenceLinks {
            model_usage_id: Some(id),
            tool_call_id: None,
            extra: Default::default(),
        }),
        extra: Default::default(),
    }
}
