//! Ending a run that cannot go on by itself: one the process died in (found at start-up), or a
//! suspended one that was cancelled or left for a new message. What it produced is kept: the
//! partial answer is stored and marked, each call that had started and not finished ends as
//! `interrupted` (never run again) and the next request tells the model so; pending forms and
//! consent requests are withdrawn; the run ends with its terminal status and `done`.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{json, Value};
use tessera_protocol::easyflow::{EventBody, SystemState};
use tessera_protocol::failure_codes::{RunErrorCode, ToolFailureCode};
use tessera_protocol::vocabulary::ToolOutcome;
use tessera_protocol::wire::JsonObject;
use tessera_store::interactions::InteractionState;
use tessera_store::{text_message, NewMessage, Store, StoredEvent};

use super::round::tool_result_body;
use super::TurnError;
use crate::event_log::EventLog;
use crate::ids::new_id;
use crate::interactions::{cancel_interaction, tool_call_id};
use crate::model_events::{DoneSummary, EventShaper};

/// Why a run is closed from outside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CloseReason {
    /// The process stopped while it ran.
    Interrupted,
    /// The person cancelled it while it waited for them.
    Cancelled,
    /// A new message came while it waited for an answer.
    Superseded,
}

impl CloseReason {
    fn code(self) -> &'static str {
        match self {
            CloseReason::Interrupted => "interrupted",
            CloseReason::Cancelled => "cancelled",
            CloseReason::Superseded => "superseded",
        }
    }
}

/// Keys of a stored answer's `extra`.
const INTERRUPTED: &str = "interrupted";
const INTERRUPTED_CALLS: &str = "interrupted_calls";

/// The note the model reads after an answer a restart cut short (None for other answers).
pub(crate) fn interruption_note(extra: &JsonObject) -> Option<String> {
    let calls: Vec<&str> = extra
        .get(INTERRUPTED_CALLS)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let restarted = extra.get(INTERRUPTED).and_then(Value::as_str) == Some("interrupted");
    let mut note = Vec::new();
    if restarted {
        note.push(
            "[The app stopped while this answer was being written; it is incomplete.]".to_owned(),
        );
    }
    if !calls.is_empty() {
        note.push(format!(
            "[These tool calls had started and were interrupted before they finished: {}. They \
             were not run again; their effects, if any, are unknown.]",
            calls.join(", ")
        ));
    }
    (!note.is_empty()).then(|| note.join(" "))
}

/// Closes run `run_id` of `conversation_id`; the events it wrote, to publish. Nothing happens
/// to a run that already ended.
pub(crate) fn close_run(
    store: &Arc<Store>,
    conversation_id: &str,
    run_id: &str,
    reason: CloseReason,
) -> Result<Vec<StoredEvent>, TurnError> {
    close(store, conversation_id, run_id, reason, None)
}

/// Ends run `run_id`, whose turn stopped on `error` without ending it (the store failed, its
/// context could not be assembled…): `error` as a `system/error`, then `failed` and `done`,
/// so a client following it sees why and its stream ends. What it produced is kept as
/// [`close_run`] keeps it. The events it wrote, to publish; nothing for a run that ended.
pub(crate) fn fail_run(
    store: &Arc<Store>,
    conversation_id: &str,
    run_id: &str,
    error: &TurnError,
) -> Result<Vec<StoredEvent>, TurnError> {
    close(
        store,
        conversation_id,
        run_id,
        CloseReason::Interrupted,
        Some(error),
    )
}

/// [`close_run`], or with `failure`, [`fail_run`].
fn close(
    store: &Arc<Store>,
    conversation_id: &str,
    run_id: &str,
    reason: CloseReason,
    failure: Option<&TurnError>,
) -> Result<Vec<StoredEvent>, TurnError> {
    let events = store.run_events(conversation_id, run_id)?;
    if events
        .iter()
        .any(|e| matches!(e.event.body, EventBody::Done(_)))
    {
        return Ok(Vec::new());
    }
    let message_id = events
        .iter()
        .find_map(|e| e.event.message_id.clone())
        .unwrap_or_else(new_id);
    let shaper = EventShaper::new(conversation_id, &message_id, run_id);
    let mut written = Vec::new();

    // The calls that started and have no result, in the order they were called.
    let mut text = String::new();
    let mut open_calls: Vec<(String, String)> = Vec::new();
    let mut results: HashSet<String> = HashSet::new();
    for e in &events {
        match &e.event.body {
            EventBody::LlmMessage(p) => {
                if let Some(t) = p.delta.as_ref().or(p.content.as_ref()) {
                    text.push_str(t);
                }
            }
            EventBody::ToolCall(p) => open_calls.push((p.tool_call_id.clone(), p.name.clone())),
            EventBody::ToolResult(p) => {
                results.insert(p.tool_call_id.clone());
            }
            _ => {}
        }
    }
    open_calls.retain(|(id, _)| !results.contains(id));

    // Forms and consent requests still waiting are withdrawn.
    let interactions = store.run_interactions(conversation_id, run_id)?;
    let mut asked: HashSet<String> = HashSet::new();
    for interaction in &interactions {
        if let Some(call) = tool_call_id(interaction) {
            asked.insert(call.to_owned());
        }
        if interaction.state == InteractionState::Pending {
            if let Some((_, event)) = cancel_interaction(store, interaction, reason.code())? {
                written.push(event);
            }
        }
    }

    let log = EventLog::new(Arc::clone(store), conversation_id.to_owned());
    let mut interrupted_calls = Vec::new();
    for (call_id, name) in &open_calls {
        // A call waiting for the person never started; one that started did not finish.
        let (outcome, code, message) = if asked.contains(call_id) {
            (
                ToolOutcome::Cancelled,
                ToolFailureCode::NotAnswered,
                format!("the person's answer never came ({})", reason.code()),
            )
        } else {
            interrupted_calls.push(name.clone());
            (
                ToolOutcome::Interrupted,
                ToolFailureCode::Interrupted,
                "the app stopped before this call finished; it was not run again".to_owned(),
            )
        };
        let error = json!({"code": code, "message": message});
        let body = tool_result_body(call_id, outcome, None, Some(error));
        written.push(log.append(shaper.wrap(body))?);
    }

    if !text.is_empty() || !interrupted_calls.is_empty() {
        let mut message = text_message(tessera_protocol::request::Role::Assistant, text);
        message
            .extra
            .insert(INTERRUPTED.into(), json!(reason.code()));
        if !interrupted_calls.is_empty() {
            message
                .extra
                .insert(INTERRUPTED_CALLS.into(), json!(interrupted_calls));
        }
        let parent =
            super::drive::answer_parent(super::stored::user_message_of(&events).as_deref());
        store.append_message(
            conversation_id,
            NewMessage::new(message)
                .with_id(message_id.clone())
                .with_parent(parent),
        )?;
    }

    let state = match (failure, reason) {
        (Some(err), _) => {
            // A run that failed before its first event still starts as seed 002 §15 has it.
            if events.is_empty() {
                written.push(log.append(shaper.status(SystemState::Initializing))?);
            }
            let error = shaper.system_error(err.code().as_str(), err.to_string(), false, None);
            written.push(log.append(error)?);
            SystemState::Failed
        }
        (None, CloseReason::Interrupted) => {
            let error = shaper.system_error(
                RunErrorCode::Interrupted.as_str(),
                "the app stopped while this run was going on; what it produced is kept".into(),
                false,
                None,
            );
            written.push(log.append(error)?);
            SystemState::Failed
        }
        (None, CloseReason::Cancelled | CloseReason::Superseded) => SystemState::Cancelled,
    };
    written.push(log.append(shaper.status(state))?);
    let latency_ms = events
        .first()
        .and_then(|e| {
            e.event
                .meta
                .as_ref()?
                .ts
                .as_ref()
                .map(|t| tessera_protocol::wire::with_utc_offset(t.as_str()))?
                .parse::<jiff::Timestamp>()
                .ok()
        })
        .map(|t| (jiff::Timestamp::now().as_millisecond() - t.as_millisecond()).max(0) as u64)
        .unwrap_or(0);
    let done = shaper.done(&DoneSummary {
        usage: Vec::new(),
        latency_ms,
        first_token_latency_ms: None,
        state,
        usage_estimated: false,
        agents: Vec::new(),
    });
    // Folded before `done`: a client that saw `done` and reconnects gets the whole message.
    store.fold_run(conversation_id, run_id)?;
    written.push(log.append(done)?);
    Ok(written)
}
