//! The tool calls of one model answer. Ordinary calls go to the executor (dependencies,
//! conflicts, timeouts), their events stored before they are passed on. A `request_form` call
//! with a good schema, or a call that needs the person's consent, becomes a stored interaction
//! instead and the round suspends the run; everything else of the round still runs, so the
//! results are waiting when the answer resumes it.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value};
use tessera_protocol::easyflow::{EventBody, ToolCallPayload, ToolResultPayload};
use tessera_protocol::vocabulary::ToolOutcome;
use tessera_protocol::wire::JsonObject;
use tessera_providers::request::{ChatMessage, Part};
use tessera_providers::stream::{CompletedToolCall, IncompleteToolCall};
use tessera_store::interactions::{InteractionKind, NewInteraction};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{Recorder, TurnError, TurnOptions};
use crate::executor::{ChannelSink, Executor, ExecutorOptions};
use crate::ids::new_id;
use crate::interactions::consent::request_payload;
use crate::interactions::keys;
use crate::interactions::request_form::{agent_requester, parse_request, REQUEST_FORM};
use crate::sync::blocking;
use crate::tool_round::{result_part, result_parts, results_message, tool_call_request};
use crate::tools::ToolRegistry;
use crate::tools::{ConsentGate, RequestedBy, ToolFailureCode};

/// How a round ended.
pub(super) enum RoundOutcome {
    /// Every call has its result: the message the model reads next.
    Results(ChatMessage),
    /// The person must answer first.
    Suspended,
}

/// The limits of one round's set: what the run has left, at most a set's own limit.
fn round_limits(limits: &crate::executor::Limits, run_spent: usize) -> crate::executor::Limits {
    crate::executor::Limits {
        set_bytes: limits
            .set_bytes
            .min(limits.run_bytes.saturating_sub(run_spent)),
        ..*limits
    }
}

/// Runs `calls` through the executor, storing their events as they happen; their results by
/// call id. `approved`: the calls (id and tool) the person allowed in answer to their consent
/// requests.
pub(super) async fn execute(
    recorder: &mut Recorder<'_>,
    registry: &Arc<ToolRegistry>,
    calls: &[&CompletedToolCall],
    approved: &[(&str, &str)],
    options: &TurnOptions,
    cancel: &CancellationToken,
) -> Result<HashMap<String, Part>, TurnError> {
    if calls.is_empty() {
        return Ok(HashMap::new());
    }
    let request = tool_call_request(calls.iter().copied());
    let (tx, mut rx) = mpsc::unbounded_channel();
    let gate = ConsentGate::new(Arc::clone(recorder.store), recorder.conversation_id.clone());
    for (call_id, tool) in approved {
        gate.approve(call_id, tool);
    }
    let executor = Executor::new(
        Arc::clone(registry),
        Arc::new(ChannelSink(tx)),
        ExecutorOptions::new(recorder.conversation_id.clone())
            .consent(Arc::new(gate))
            .run_id(recorder.shaper.run_id())
            .live_forms(options.live_forms.clone())
            .concurrency_limit(options.tool_concurrency)
            .limits(round_limits(&options.tool_limits, recorder.tool_bytes())),
    );
    // Events are stored (and passed on once committed) while the calls run, in the order
    // they happen; the events of concurrent calls share commits.
    let response = {
        let run = executor.run_tool_calls(&request, cancel);
        tokio::pin!(run);
        loop {
            let pending = recorder.pending();
            tokio::select! {
                biased;
                Some(event) = rx.recv() => recorder.stream_tool_event(event).await?,
                // What committed is shown while a slow call goes on.
                landed = recorder.next_committed(), if pending => landed?,
                done = &mut run => break done,
            }
        }
    };
    drop(executor);
    while let Ok(event) = rx.try_recv() {
        recorder.stream_tool_event(event).await?;
    }
    // Stored before the results are read back and before any other write of the run.
    recorder.drain().await?;
    Ok(result_parts(
        recorder.store,
        &response,
        calls.iter().copied(),
    ))
}

/// A `tool_call` event for a call the coordinator handles itself.
pub(super) fn tool_call_body(call: &CompletedToolCall, provider: &str) -> EventBody {
    EventBody::ToolCall(ToolCallPayload {
        tool_call_id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        depends_on: None,
        runtime: None,
        provider: Some(provider.to_owned()),
        provider_kind: None,
        provider_uri: None,
        agent_says: None,
        ui_settings: None,
        task_id: None,
        extra: JsonObject::new(),
    })
}

/// A `tool_result` event for a call the coordinator settled itself.
pub(super) fn tool_result_body(
    call_id: &str,
    outcome: ToolOutcome,
    result: Option<Value>,
    error: Option<Value>,
) -> EventBody {
    EventBody::ToolResult(ToolResultPayload {
        tool_call_id: call_id.to_owned(),
        status: outcome.to_event_status(),
        result,
        error,
        duration_ms: None,
        extra: JsonObject::new(),
    })
}

/// Settles a call without running it: its call and result events, and the part for the model.
pub(super) fn settle(
    recorder: &mut Recorder<'_>,
    call: &CompletedToolCall,
    outcome: ToolOutcome,
    result: Option<Value>,
    error: Option<Value>,
    announce: bool,
) -> Result<Part, TurnError> {
    if announce {
        let body = tool_call_body(call, "builtin");
        recorder.put_tool_event(recorder.shaper.wrap(body))?;
    }
    let part = result_part(
        recorder.store,
        &call.id,
        outcome,
        result.as_ref(),
        error.as_ref(),
    );
    let body = tool_result_body(&call.id, outcome, result, error);
    recorder.put_tool_event(recorder.shaper.wrap(body))?;
    Ok(part)
}

/// A call that waits for the person.
enum Ask<'c> {
    Form(&'c CompletedToolCall, Value),
    Consent(&'c CompletedToolCall, Value),
}

/// Runs one round: the model's complete calls (and notes for the cut-off ones).
pub(super) async fn run_round(
    recorder: &mut Recorder<'_>,
    registry: Option<&Arc<ToolRegistry>>,
    calls: &[CompletedToolCall],
    incomplete: &[IncompleteToolCall],
    options: &TurnOptions,
    cancel: &CancellationToken,
) -> Result<RoundOutcome, TurnError> {
    let mut results: HashMap<String, Part> = HashMap::new();
    let mut ordinary = Vec::new();
    let mut asks = Vec::new();
    let gate = ConsentGate::new(Arc::clone(recorder.store), recorder.conversation_id.clone());
    for call in calls {
        if call.name == REQUEST_FORM && options.interactions {
            let form_id = new_id();
            match parse_request(
                &form_id,
                &call.arguments,
                agent_requester(&options.agent_name),
            ) {
                Ok(form) => asks.push(Ask::Form(
                    call,
                    serde_json::to_value(&form.payload).unwrap_or_default(),
                )),
                // The model gets the reason; the person sees no form.
                Err(bad) => {
                    let error =
                        json!({"code": ToolFailureCode::InvalidForm, "message": bad.to_string()});
                    let part = settle(recorder, call, ToolOutcome::Error, None, Some(error), true)?;
                    results.insert(call.id.clone(), part);
                }
            }
            continue;
        }
        let spec = registry.and_then(|r| r.get(&call.name)).map(|t| &t.spec);
        // Checked without spending a grant: the executor's gate spends it as the call runs.
        let allowed = match spec {
            Some(spec) => blocking(|| gate.would_allow(&spec.for_arguments(&call.arguments)))?,
            // Unknown tools are the executor's to report.
            None => true,
        };
        match (allowed, spec) {
            (false, Some(spec)) if options.interactions => {
                let mut payload = request_payload(
                    &new_id(),
                    &call.id,
                    &spec.for_arguments(&call.arguments),
                    &call.arguments,
                );
                payload.requested_by = Some(RequestedBy::Agent.to_wire(&options.agent_name));
                asks.push(Ask::Consent(
                    call,
                    serde_json::to_value(payload).unwrap_or_default(),
                ))
            }
            (false, Some(_)) => {
                let error = json!({"code": ToolFailureCode::ConsentRequired, "message":
                    "this tool needs the person's consent, and this client cannot ask for it"});
                let part = settle(recorder, call, ToolOutcome::Denied, None, Some(error), true)?;
                results.insert(call.id.clone(), part);
            }
            _ => ordinary.push(call),
        }
    }
    if let Some(registry) = registry {
        results.extend(execute(recorder, registry, &ordinary, &[], options, cancel).await?);
    } else if !ordinary.is_empty() {
        for call in ordinary {
            let error = json!({"code": ToolFailureCode::NotFound, "message": format!("no tool named {}", call.name)});
            let part = settle(
                recorder,
                call,
                ToolOutcome::NotFound,
                None,
                Some(error),
                true,
            )?;
            results.insert(call.id.clone(), part);
        }
    }
    if asks.is_empty() || cancel.is_cancelled() {
        return Ok(RoundOutcome::Results(results_message(
            calls, incomplete, results,
        )));
    }
    let expires_at = options.interaction_timeout.and_then(|t| {
        jiff::Timestamp::now()
            .checked_add(jiff::SignedDuration::try_from(t).ok()?)
            .ok()
    });
    for ask in asks {
        let (call, kind, mut payload, id_key) = match ask {
            Ask::Form(call, payload) => (call, InteractionKind::Form, payload, "form_id"),
            Ask::Consent(call, payload) => (call, InteractionKind::Consent, payload, "consent_id"),
        };
        let body = tool_call_body(call, "builtin");
        recorder.put_tool_event(recorder.shaper.wrap(body))?;
        if let Some(object) = payload.as_object_mut() {
            object.insert(keys::TOOL_CALL_ID.into(), json!(call.id));
            object.insert(keys::MESSAGE_ID.into(), json!(recorder.shaper.message_id()));
            if let Some(at) = expires_at {
                object.insert(keys::EXPIRES_AT.into(), json!(at.to_string()));
            }
        }
        let id = payload
            .get(id_key)
            .and_then(Value::as_str)
            .map(str::to_owned);
        let body = match kind {
            InteractionKind::Form => {
                serde_json::from_value(payload.clone()).map(EventBody::FormRequest)
            }
            InteractionKind::Consent => {
                serde_json::from_value(payload.clone()).map(EventBody::ConsentRequest)
            }
        }
        .map_err(|err| TurnError::Internal(format!("an interaction payload: {err}")))?;
        recorder.put_interaction(
            NewInteraction {
                interaction_id: id,
                run_id: Some(recorder.shaper.run_id().to_owned()),
                kind,
                request: payload,
            },
            recorder.shaper.wrap(body),
        )?;
    }
    Ok(RoundOutcome::Suspended)
}
