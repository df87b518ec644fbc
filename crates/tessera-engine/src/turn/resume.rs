//! Resuming a suspended run once the person answered: the next model request is rebuilt from
//! what the store kept — the conversation so far, then each model turn of the run as the
//! provider returned it, each with its calls' results (read from the call records; a call that
//! had started and not finished is `interrupted`, never run again) — the answered forms become
//! their calls' results, allowed calls run now, and the turn goes on.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};
use tessera_protocol::easyflow::{EventBody, SystemState};
use tessera_protocol::failure_codes::ToolFailureCode;
use tessera_protocol::vocabulary::ToolOutcome;
use tessera_providers::request::Part;
use tessera_providers::stream::{CompletedToolCall, Response};
use tessera_providers::ProviderClient;
use tessera_store::interactions::{Interaction, InteractionKind, InteractionState};
use tessera_store::{Store, StoredEvent, ToolCallRow};
use tokio_util::sync::CancellationToken;

use super::drive::{drive, TurnState};
use super::round::{execute, settle};
use super::{Recorder, TurnError, TurnOptions, TurnOutcome};
use crate::interactions::consent::allows;
use crate::interactions::tool_call_id;
use crate::model_events::EventShaper;
use crate::tool_round::{assistant_message, result_part, results_message};

/// Which run to resume, and with what.
#[derive(Clone, Copy, Debug)]
pub struct ResumeInput<'a> {
    pub conversation_id: &'a str,
    pub run_id: &'a str,
    pub model: &'a str,
    pub options: &'a TurnOptions,
}

/// Where a run stands, read from its events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStanding {
    /// It has ended (`done` was written).
    Ended,
    /// It waits for the person, or was answered and not yet resumed.
    Suspended,
    /// It was running (in this process, or in one that died).
    Running,
}

/// Where run `run_id` stands.
pub fn standing(events: &[StoredEvent]) -> RunStanding {
    if events
        .iter()
        .any(|e| matches!(e.event.body, EventBody::Done(_)))
    {
        return RunStanding::Ended;
    }
    let last = events.iter().rev().find_map(|e| match &e.event.body {
        EventBody::SystemStatus(p) => Some(p.state),
        _ => None,
    });
    match last {
        Some(SystemState::Suspended) => RunStanding::Suspended,
        _ => RunStanding::Running,
    }
}

/// Whether every interaction of the run has been settled (answered, cancelled or expired).
pub(crate) fn ready_to_resume(interactions: &[Interaction]) -> bool {
    interactions
        .iter()
        .all(|i| i.state != InteractionState::Pending)
}

fn record_part(store: &Store, row: &ToolCallRow) -> Option<Part> {
    let status = row.record.status?;
    Some(result_part(
        store,
        &row.record.tool_call_id,
        ToolOutcome::from_context_doc(status),
        row.result.as_ref(),
        row.error.as_ref(),
    ))
}

/// Resumes a suspended run whose interactions are all settled.
pub async fn resume_turn(
    store: &Arc<Store>,
    client: &ProviderClient,
    input: ResumeInput<'_>,
    cancel: CancellationToken,
    mut emit: impl FnMut(StoredEvent) + Send,
) -> Result<TurnOutcome, TurnError> {
    let ResumeInput {
        conversation_id,
        run_id,
        model,
        options,
    } = input;
    let cannot = |why: &str| TurnError::CannotResume(run_id.to_owned(), why.to_owned());
    let events = store.run_events(conversation_id, run_id)?;
    match standing(&events) {
        RunStanding::Ended => return Err(cannot("it has ended")),
        RunStanding::Running => return Err(cannot("it is not waiting for an answer")),
        RunStanding::Suspended => {}
    }
    let interactions = store.run_interactions(conversation_id, run_id)?;
    if !ready_to_resume(&interactions) {
        return Err(cannot(
            "a form or consent request still waits for an answer",
        ));
    }
    let message_id = events
        .iter()
        .find_map(|e| e.event.message_id.clone())
        .ok_or_else(|| cannot("its events name no message"))?;
    // Blocks and indexes go on from where the earlier stretch left them (a folded event keeps
    // its block and its last piece's index; events stored before blocks had their own field
    // carried the block as `index`).
    let streamed: Vec<&tessera_protocol::easyflow::Event> = events
        .iter()
        .map(|e| &*e.event)
        .filter(|e| matches!(e.body, EventBody::LlmMessage(_) | EventBody::LlmThinking(_)))
        .collect();
    let last_block = streamed
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::LlmMessage(p) => p.block.or(e.index),
            EventBody::LlmThinking(p) => p.block.or(e.index),
            _ => None,
        })
        .max();
    let last_index = streamed
        .iter()
        .filter_map(|e| {
            let folded_last = e
                .meta
                .as_ref()
                .and_then(|m| m.extra.get("last_index"))
                .and_then(serde_json::Value::as_u64);
            folded_last.or(e.index)
        })
        .max();
    let wrote_text = events
        .iter()
        .any(|e| matches!(e.event.body, EventBody::LlmMessage(_)));
    let mut shaper = EventShaper::new(conversation_id, &message_id, run_id);
    shaper.continue_after(last_block, last_index, wrote_text);
    let mut recorder = Recorder::new(store, shaper, conversation_id, &mut emit);
    // The run's limit counts its earlier stretches too.
    recorder.count_earlier_tool_bytes(
        events
            .iter()
            .map(|e| super::stored::tool_bytes_of(&e.event.body))
            .sum(),
    );
    recorder.put(recorder.shaper.status(SystemState::Resumed))?;
    recorder.put(
        recorder
            .shaper
            .run_waits(tessera_protocol::easyflow::WorkflowState::Resume),
    )?;
    recorder.put(recorder.shaper.status(SystemState::Running))?;

    let user_message = super::stored::user_message_of(&events);
    let prompt = super::context::prompt(
        store,
        conversation_id,
        user_message.as_deref(),
        client.config(),
        model,
        options,
    )?;
    let mut state = TurnState {
        messages: prompt.messages,
        system: prompt.system,
        started: Instant::now(),
        user_message,
        ..TurnState::default()
    };
    let all_records = store.tool_calls(conversation_id)?;
    // Call ids a record of another run holds: a provider reuses ids like `call_1`, and a later
    // run's record replaces this one's. Such a call may have run already: never again.
    let taken_by_others: std::collections::HashSet<String> = all_records
        .iter()
        .filter(|r| r.run_id.as_deref() != Some(run_id))
        .map(|r| r.record.tool_call_id.clone())
        .collect();
    let records: HashMap<String, ToolCallRow> = all_records
        .into_iter()
        .filter(|r| r.run_id.as_deref() == Some(run_id))
        .map(|r| (r.record.tool_call_id.clone(), r))
        .collect();
    let asked: HashMap<&str, &Interaction> = interactions
        .iter()
        .filter_map(|i| Some((tool_call_id(i)?, i)))
        .collect();
    let announced: HashSet<&str> = events
        .iter()
        .filter_map(|e| match &e.event.body {
            EventBody::ToolCall(p) => Some(p.tool_call_id.as_str()),
            _ => None,
        })
        .collect();

    for turn in store.model_turns(conversation_id, Some(run_id))? {
        let Some(response) = turn
            .response
            .and_then(|r| serde_json::from_value::<Response>(r).ok())
        else {
            continue;
        };
        state.calls += 1;
        state.add_text(&response.text);
        if let Some(usage) = response.usage {
            state.add_usage(&turn.model, &usage, None);
        }
        if response.tool_calls.is_empty() {
            continue;
        }
        state.messages.push(assistant_message(&response));
        let mut parts: HashMap<String, Part> = HashMap::new();
        let mut allowed: Vec<&CompletedToolCall> = Vec::new();
        for call in &response.tool_calls {
            if let Some(part) = records.get(&call.id).and_then(|r| record_part(store, r)) {
                parts.insert(call.id.clone(), part);
                continue;
            }
            let announce = !announced.contains(call.id.as_str());
            let part = match asked.get(call.id.as_str()) {
                Some(i) if i.state == InteractionState::Answered => match i.kind {
                    InteractionKind::Form => {
                        let answer = i.answer.clone().unwrap_or_default();
                        settle(
                            &mut recorder,
                            call,
                            ToolOutcome::Success,
                            Some(answer),
                            None,
                            announce,
                        )?
                    }
                    InteractionKind::Consent => {
                        let decision = i
                            .answer
                            .as_ref()
                            .and_then(|a| a.get("decision"))
                            .and_then(|d| serde_json::from_value(d.clone()).ok());
                        let taken = taken_by_others.contains(&call.id);
                        if decision.is_some_and(allows) && !taken {
                            allowed.push(call);
                            continue;
                        }
                        let (outcome, error) = if taken {
                            // It may have run before another run's record replaced its own.
                            (
                                ToolOutcome::Interrupted,
                                json!({"code": ToolFailureCode::Interrupted, "message":
                                    "another run's call took this call id, so whether this \
                                     one ran is not known; it was not run again"}),
                            )
                        } else {
                            (
                                ToolOutcome::Denied,
                                json!({"code": ToolFailureCode::Denied,
                                       "message": "the person did not allow this call"}),
                            )
                        };
                        settle(&mut recorder, call, outcome, None, Some(error), announce)?
                    }
                },
                Some(i) => {
                    let reason = i
                        .answer
                        .as_ref()
                        .and_then(|a| a.get("reason"))
                        .and_then(Value::as_str)
                        .unwrap_or("cancelled");
                    let error = json!({"code": ToolFailureCode::NotAnswered, "message":
                        format!("the person did not answer ({reason})")});
                    settle(
                        &mut recorder,
                        call,
                        ToolOutcome::Cancelled,
                        None,
                        Some(error),
                        announce,
                    )?
                }
                // Started and never finished: the process died. Never run again.
                None => {
                    let error = json!({"code": ToolFailureCode::Interrupted, "message":
                        "the app stopped before this call finished; it was not run again"});
                    settle(
                        &mut recorder,
                        call,
                        ToolOutcome::Interrupted,
                        None,
                        Some(error),
                        announce,
                    )?
                }
            };
            parts.insert(call.id.clone(), part);
        }
        if let (false, Some(registry)) = (allowed.is_empty(), options.tools.as_ref()) {
            let approved: Vec<(&str, &str)> = allowed
                .iter()
                .map(|c| (c.id.as_str(), c.name.as_str()))
                .collect();
            parts.extend(
                execute(
                    &mut recorder,
                    registry,
                    &allowed,
                    &approved,
                    options,
                    &cancel,
                )
                .await?,
            );
        }
        state.messages.push(results_message(
            &response.tool_calls,
            &response.incomplete_tool_calls,
            parts,
        ));
    }
    drive(&mut recorder, client, model, options, state, &cancel).await
}
