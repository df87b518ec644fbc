//! The branches of a conversation's tree of messages: answering a message again (regenerate;
//! the earlier answers stay beside the new one) and showing another branch. Editing a message
//! and resending it is a USER_INPUT with `metadata.parentMessageId` (see
//! [`crate::api::messages::user_input`]).

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Map, Value};
use tessera_engine::engine::{Engine, EngineError};
use tessera_protocol::request::Role;

use super::conversations::{detail, not_found};
use super::{bad_request, json_body, kind_of};
use crate::api::messages::refuse_while_running;
use crate::api::messages::user_input::{answer, start_with};
use crate::api::ApiError;

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/conversations/{id}/regenerate", post(regenerate))
        .route("/conversations/{id}/branch", post(switch))
}

/// `message_id` of a body that may be empty or `{}` (None) or `{"message_id": "…"}`.
fn message_id_of(body: Result<Bytes, BytesRejection>) -> Result<Option<String>, ApiError> {
    if body
        .as_ref()
        .is_ok_and(|b| b.iter().all(u8::is_ascii_whitespace))
    {
        return Ok(None);
    }
    let fields: Map<String, Value> = match json_body(body)? {
        Value::Object(map) => map,
        other => {
            return Err(bad_request(format!(
                "the body must be a JSON object, not {}",
                kind_of(&other)
            )))
        }
    };
    let mut id = None;
    for (field, value) in fields {
        match (field.as_str(), value) {
            ("message_id", Value::String(s)) if !s.is_empty() => id = Some(s),
            ("message_id", Value::Null) => {}
            ("message_id", other) => {
                return Err(bad_request(format!(
                    "message_id must be a message's id, not {}",
                    kind_of(&other)
                )))
            }
            _ => return Err(bad_request(format!("unknown field `{field}` (message_id)"))),
        }
    }
    Ok(id)
}

/// `POST /v1/conversations/{id}/regenerate` (body `{"message_id": …}`, optional): answers
/// again the person's message named (an answer names the message it answered; none: the last
/// one of the branch shown). The branch shown is cut back to that message and the new answer
/// follows it on a branch of its own; the earlier answers stay beside it. Answered like a
/// USER_INPUT: the run's event stream with `Accept: text/event-stream`, else the
/// MODEL_RESPONSE once the run ends or suspends. 409 while a run answers in the conversation.
async fn regenerate(
    State(engine): State<Engine>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let named = message_id_of(body)?;
    let store = engine.store();
    if store.conversation(&id)?.is_none() {
        return Err(not_found(&id));
    }
    refuse_while_running(&engine, &id, "answering a message again")?;
    let question = question_to_answer(&engine, &id, named.as_deref())?;
    engine.prepare_model(&id, None).await?;
    let (run, sub) = start_with(&engine, &id, || engine.regenerate(&id, &question))?;
    answer(&engine, &headers, &run, sub, &id, &question)
        .await
        .map_err(|err| err.in_context(&id))
}

/// The person's message a regeneration answers again: the one named, or the one the answer
/// named answered; none named, the last one of the branch shown.
fn question_to_answer(engine: &Engine, id: &str, named: Option<&str>) -> Result<String, ApiError> {
    let no_message = |message: &str| {
        ApiError::from(EngineError::NoMessage {
            conversation: id.to_owned(),
            message: message.to_owned(),
        })
    };
    let found = engine.store().read(|r| {
        let mut at = match named {
            Some(m) => match r.message(id, m)? {
                Some(message) => Some(message),
                None => return Ok(Err(no_message(m))),
            },
            None => r.active_branch_tail(id, 1)?.pop(),
        };
        // Back from an answer (or, unnamed, from whatever ends the branch) to the question.
        while let Some(m) = at {
            match m.message.role {
                Role::User => return Ok(Ok(m.id)),
                Role::Assistant => {}
                _ if named.is_none() => {}
                _ => {
                    return Ok(Err(bad_request(format!(
                        "message {} is neither the person's nor an answer to them",
                        m.id
                    ))))
                }
            }
            at = match &m.parent_id {
                Some(parent) => r.message(id, parent)?,
                None => None,
            };
        }
        Ok(Err(ApiError::new(
            StatusCode::CONFLICT,
            "NOTHING_TO_REGENERATE",
            format!("conversation {id} has no message of the person's to answer again"),
        )))
    })?;
    found.map_err(|err| err.in_context(id))
}

/// `POST /v1/conversations/{id}/branch` with `{"message_id": …}`: shows the branch through
/// that message (to its newest leaf) and answers as `GET /v1/conversations/{id}` does. 409
/// while a run answers in the conversation.
async fn switch(
    State(engine): State<Engine>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<crate::views::conversations::ConversationDetail>, ApiError> {
    let message = message_id_of(body)?
        .ok_or_else(|| bad_request("send {\"message_id\": …}: the message whose branch to show"))?;
    let store = engine.store();
    if store.conversation(&id)?.is_none() {
        return Err(not_found(&id));
    }
    refuse_while_running(&engine, &id, "showing another branch")?;
    if store.message(&id, &message)?.is_none() {
        return Err(ApiError::from(EngineError::NoMessage {
            conversation: id.clone(),
            message,
        })
        .in_context(&id));
    }
    store.switch_branch(&id, &message)?;
    Ok(Json(detail(&engine, &id)?))
}
