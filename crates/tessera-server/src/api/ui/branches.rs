//! The branches of a conversation's tree of messages: answering a message again (regenerate;
//! the earlier answers stay beside the new one) and showing another branch. Editing a message
//! and resending it is a USER_INPUT with `metadata.parentMessageId` (see
//! [`crate::api::messages::user_input`]).

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Map, Value};
use tessera_app::App;

use super::{bad_request, json_body, kind_of};
use crate::api::messages::user_input::answer;
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
    State(app): State<App>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let named = message_id_of(body)?;
    let (run, sub, question) = app.regenerate(&id, named.as_deref()).await?;
    answer(&app, &headers, &run, sub, &question)
        .await
        .map_err(|err| err.in_context(&id))
}

/// `POST /v1/conversations/{id}/branch` with `{"message_id": …}`: shows the branch through
/// that message (to its newest leaf) and answers as `GET /v1/conversations/{id}` does. 409
/// while a run answers in the conversation.
async fn switch(
    State(app): State<App>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<tessera_app::views::conversations::ConversationDetail>, ApiError> {
    let message = message_id_of(body)?
        .ok_or_else(|| bad_request("send {\"message_id\": …}: the message whose branch to show"))?;
    Ok(Json(app.switch_branch(&id, &message)?))
}
