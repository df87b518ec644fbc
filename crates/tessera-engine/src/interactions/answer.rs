//! Answering an interaction: the answer is checked against what was asked (a form's values are
//! validated, one error per field, and the run stays suspended), recorded with its event (and a
//! consent's grant) in one transaction, and given once: the same answer again returns the same
//! result, a different one is refused.

use serde_json::{json, Map, Value};
use tessera_protocol::easyflow::{
    ConsentDecision, ConsentResultPayload, EventBody, FormAction, FormCancelPayload,
    FormResultPayload,
};
use tessera_protocol::wire::JsonObject;
use tessera_store::interactions::{Interaction, InteractionKind, InteractionState};
use tessera_store::{Store, StoreError, StoredEvent};
use thiserror::Error;

use super::{consent, run_event};
use crate::forms::{check_form_schema, validate_values, FieldError};

/// What the person answered, as the UI sends it (`POST /v1/interactions/{id}`); read by
/// [`Answer::from_json`], which says what is wrong with a bad one.
#[derive(Clone, Debug, PartialEq, serde::Serialize, ts_rs::TS)]
#[serde(untagged)]
pub enum Answer {
    Form {
        action: FormAction,
        /// The values, for `accept`.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        values: Option<Value>,
    },
    Consent {
        decision: ConsentDecision,
    },
}

impl Answer {
    /// Reads `{"action": "accept", "values": {…}}`, `{"action": "decline" | "cancel"}` or
    /// `{"decision": "allow_once" | "allow_conversation" | "allow_always" | "deny"}`.
    pub fn from_json(body: &Value) -> Result<Self, AnswerError> {
        let bad = |m: String| AnswerError::BadAnswer(m);
        let Some(object) = body.as_object() else {
            return Err(bad("the answer must be a JSON object".into()));
        };
        match (object.get("action"), object.get("decision")) {
            (Some(_), Some(_)) => Err(bad(
                "give either `action` (a form) or `decision` (a consent), not both".into(),
            )),
            (Some(action), None) => {
                let action: FormAction = serde_json::from_value(action.clone()).map_err(|_| {
                    bad(format!(
                        "`action` must be accept, decline or cancel, not {action}"
                    ))
                })?;
                let values = object.get("values").cloned();
                if action == FormAction::Accept && values.is_none() {
                    return Err(bad(
                        "`accept` needs `values`, an object of field values".into()
                    ));
                }
                Ok(Answer::Form { action, values })
            }
            (None, Some(decision)) => {
                let decision = serde_json::from_value(decision.clone()).map_err(|_| {
                    bad(format!(
                        "`decision` must be allow_once, allow_conversation, allow_always or \
                         deny, not {decision}"
                    ))
                })?;
                Ok(Answer::Consent { decision })
            }
            (None, None) => Err(bad(
                "the answer needs `action` (for a form) or `decision` (for a consent)".into(),
            )),
        }
    }
}

/// Why an answer was not taken.
#[derive(Debug, Error)]
pub enum AnswerError {
    #[error("no interaction {0}")]
    NotFound(String),
    #[error("{0}")]
    BadAnswer(String),
    #[error("interaction {id} is a {kind}; answer it with {expected}")]
    WrongKind {
        id: String,
        kind: &'static str,
        expected: &'static str,
    },
    #[error("some values are not accepted: {}", describe(.0))]
    FieldErrors(Vec<FieldError>),
    #[error("interaction {id} was already answered differently ({answer})")]
    AlreadyAnswered { id: String, answer: Value },
    #[error("interaction {id} is closed ({reason})")]
    Closed { id: String, reason: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn describe(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// An answer that was taken.
#[derive(Clone, Debug)]
pub struct Answered {
    pub interaction: Interaction,
    /// The `form_result` / `consent_result` event; None when the same answer came again.
    pub event: Option<StoredEvent>,
}

/// The answer as stored: accept with the validated values (defaults filled in).
fn normalize(interaction: &Interaction, answer: &Answer) -> Result<Value, AnswerError> {
    let id = &interaction.interaction_id;
    match (interaction.kind, answer) {
        (InteractionKind::Form, Answer::Form { action, values }) => {
            if *action != FormAction::Accept {
                return Ok(json!({ "action": action }));
            }
            let schema = interaction
                .request
                .get("schema")
                .cloned()
                .unwrap_or_default();
            // It was checked when the model asked; a schema that no longer passes (an older
            // version's rules) is reported rather than trusted.
            let form = check_form_schema(&schema).map_err(|issues| AnswerError::Closed {
                id: id.clone(),
                reason: format!("its form can no longer be checked: {}", issues.len()),
            })?;
            let values = validate_values(&form, values.as_ref().unwrap_or(&Value::Null))
                .map_err(AnswerError::FieldErrors)?;
            Ok(json!({ "action": action, "values": values }))
        }
        (InteractionKind::Consent, Answer::Consent { decision }) => {
            Ok(json!({ "decision": decision }))
        }
        (InteractionKind::Form, Answer::Consent { .. }) => Err(AnswerError::WrongKind {
            id: id.clone(),
            kind: "form",
            expected: "`action` (accept, decline or cancel)",
        }),
        (InteractionKind::Consent, Answer::Form { .. }) => Err(AnswerError::WrongKind {
            id: id.clone(),
            kind: "consent request",
            expected: "`decision`",
        }),
    }
}

fn result_event(interaction: &Interaction, answer: &Value) -> EventBody {
    let id = interaction.interaction_id.clone();
    match interaction.kind {
        InteractionKind::Form => {
            let action = answer
                .get("action")
                .and_then(|a| serde_json::from_value(a.clone()).ok())
                .unwrap_or(FormAction::Cancel);
            let mut extra = JsonObject::new();
            if let Some(values) = answer.get("values") {
                extra.insert("values".into(), values.clone());
            }
            EventBody::FormResult(FormResultPayload {
                form_id: id,
                action,
                extra,
            })
        }
        InteractionKind::Consent => EventBody::ConsentResult(ConsentResultPayload {
            consent_id: id,
            decision: answer
                .get("decision")
                .and_then(|d| serde_json::from_value(d.clone()).ok())
                .unwrap_or(ConsentDecision::Deny),
            extra: JsonObject::new(),
        }),
    }
}

fn already(interaction: Interaction, normalized: &Value) -> Result<Answered, AnswerError> {
    match interaction.state {
        InteractionState::Answered if interaction.answer.as_ref() == Some(normalized) => {
            Ok(Answered {
                interaction,
                event: None,
            })
        }
        InteractionState::Answered => Err(AnswerError::AlreadyAnswered {
            id: interaction.interaction_id.clone(),
            answer: interaction.answer.unwrap_or_default(),
        }),
        InteractionState::Cancelled | InteractionState::Pending => Err(AnswerError::Closed {
            id: interaction.interaction_id.clone(),
            reason: interaction
                .answer
                .as_ref()
                .and_then(|a| a.get("reason"))
                .and_then(Value::as_str)
                .unwrap_or("cancelled")
                .to_owned(),
        }),
    }
}

/// Takes the person's answer to interaction `id`.
pub fn answer_interaction(
    store: &Store,
    id: &str,
    answer: &Answer,
) -> Result<Answered, AnswerError> {
    let interaction = store
        .find_interaction(id)?
        .ok_or_else(|| AnswerError::NotFound(id.to_owned()))?;
    let normalized = normalize(&interaction, answer)?;
    if interaction.state != InteractionState::Pending {
        return already(interaction, &normalized);
    }
    let (current, value) = (interaction.clone(), normalized.clone());
    let written = store.write(move |tx| {
        let conversation = current.conversation_id.clone();
        let answered = match tx.answer_interaction(&conversation, &current.interaction_id, &value) {
            Ok(answered) => answered,
            // Answered meanwhile: the caller compares with that answer.
            Err(StoreError::InteractionNotPending { .. }) => return Ok(None),
            Err(other) => return Err(other),
        };
        if let (InteractionKind::Consent, Some(decision)) = (
            answered.kind,
            value
                .get("decision")
                .and_then(|d| serde_json::from_value::<ConsentDecision>(d.clone()).ok()),
        ) {
            let tool = answered
                .request
                .get("tool")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            consent::grant(tx, &tool, decision, &conversation)?;
        }
        let event = tx.append_event(
            &conversation,
            run_event(&answered, result_event(&answered, &value)),
        )?;
        Ok(Some((answered, event)))
    })?;
    match written {
        Some((interaction, event)) => Ok(Answered {
            interaction,
            event: Some(event),
        }),
        None => {
            let now = store
                .find_interaction(id)?
                .ok_or_else(|| AnswerError::NotFound(id.to_owned()))?;
            already(now, &normalized)
        }
    }
}

/// Withdraws a pending interaction (it expired, the run was cancelled, the person moved on):
/// `form_cancel` for a form, a `deny` consent result for a consent. None when it was no longer
/// pending.
pub fn cancel_interaction(
    store: &Store,
    interaction: &Interaction,
    reason: &str,
) -> Result<Option<(Interaction, StoredEvent)>, StoreError> {
    let (current, reason) = (interaction.clone(), reason.to_owned());
    store.write(move |tx| {
        let conversation = current.conversation_id.clone();
        let cancelled = match tx.cancel_interaction(
            &conversation,
            &current.interaction_id,
            Some(&json!({ "reason": reason })),
        ) {
            Ok(c) => c,
            Err(StoreError::InteractionNotPending { .. }) => return Ok(None),
            Err(other) => return Err(other),
        };
        let mut extra = Map::new();
        extra.insert("reason".into(), Value::String(reason.clone()));
        let body = match cancelled.kind {
            InteractionKind::Form => EventBody::FormCancel(FormCancelPayload {
                form_id: cancelled.interaction_id.clone(),
                reason: Some(reason),
                extra: JsonObject::new(),
            }),
            InteractionKind::Consent => EventBody::ConsentResult(ConsentResultPayload {
                consent_id: cancelled.interaction_id.clone(),
                decision: ConsentDecision::Deny,
                extra,
            }),
        };
        let event = tx.append_event(&conversation, run_event(&cancelled, body))?;
        Ok(Some((cancelled, event)))
    })
}
