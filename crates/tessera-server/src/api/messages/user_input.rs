//! USER_INPUT: starts a run in the conversation. With `Accept: text/event-stream` the answer
//! is the run's event stream; otherwise the MODEL_RESPONSE once the run ends or suspends.
//! [`answer`] is also what a regeneration answers with (the core waits: `App::wait`).
//!
//! `metadata.parentMessageId` places the text in the conversation's tree of messages: absent,
//! it follows the branch shown; a message id, it follows that message on a new branch (editing
//! a message and resending it names the edited message's parent); null, it starts the
//! conversation anew. The branch it leaves stays, and the new one is shown.

use tessera_protocol::error_codes::ErrorCode;

use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use tessera_app::messages::{ModelPick, NewMessage, Placement};
use tessera_app::{App, ConversationModel, RunEnd, RunOutcome, StartedRun, Subscription};
use tessera_protocol::mcp_cp::{
    FinishReason, Message, MessageContent, ModelResponse, SenderType, TokenUsage,
};
use tessera_protocol::wire::JsonObject;

use super::super::{stream_response, wants_stream, ApiError};
use super::reply_to;

/// The stored id a client's `messageId` becomes: letters, digits and `._:-`, at most 128
/// (it appears in paths); anything else is refused rather than changed.
fn message_id_of(message: &Message) -> Result<String, ApiError> {
    let id = &message.message_id;
    let fits = !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'));
    if fits {
        Ok(id.clone())
    } else {
        Err(ApiError::new(
            ErrorCode::InvalidMessageId,
            "messageId must be 1 to 128 letters, digits, `.`, `_`, `:` or `-`: it becomes the \
             message's id (seed 000 §3.1), which later messages name as parentMessageId",
        ))
    }
}

/// Where `metadata.parentMessageId` puts the text: absent, after the branch shown; a message
/// id, after that message; null, the conversation anew.
fn placement_of(message: &Message) -> Result<Placement, ApiError> {
    match message
        .metadata
        .as_ref()
        .and_then(|m| m.get("parentMessageId"))
    {
        None => Ok(Placement::Next),
        Some(Value::Null) => Ok(Placement::Anew),
        Some(Value::String(id)) if !id.is_empty() => Ok(Placement::After(id.clone())),
        Some(_) => Err(ApiError::new(
            ErrorCode::BadRequest,
            "metadata.parentMessageId must be a message id of the conversation (the message \
             the text follows), or null to start the conversation anew",
        )),
    }
}

/// `metadata.debug`: `true` asks for the run's `debug/log` events (seed 002 §5: never sent
/// unless asked); absent or `false`, none.
fn debug_of(message: &Message) -> Result<bool, ApiError> {
    match message.metadata.as_ref().and_then(|m| m.get("debug")) {
        None => Ok(false),
        Some(Value::Bool(on)) => Ok(*on),
        Some(other) => Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("metadata.debug must be true or false, not {other}"),
        )),
    }
}

/// What `metadata.model` asks: absent, the conversation's own model (if any);
/// `{"provider", "model"}`, that one from now on; null, back to the default provider's.
fn model_of(message: &Message) -> Result<ModelPick, ApiError> {
    match message.metadata.as_ref().and_then(|m| m.get("model")) {
        None => Ok(ModelPick::Kept),
        Some(Value::Null) => Ok(ModelPick::Default),
        Some(value) => serde_json::from_value::<ConversationModel>(value.clone())
            .map(ModelPick::Chosen)
            .map_err(|err| {
                ApiError::new(ErrorCode::BadRequest, format!(
                        "metadata.model must be {{\"provider\": NAME, \"model\": MODEL}} (a provider \
                         and one of its models, for this conversation from now on) or null (the \
                         default provider's): {err}"
                    ),
                )
            }),
    }
}

/// `metadata.project`: the project (name or id) the conversation is in from this message on.
fn project_of(message: &Message) -> Result<Option<String>, ApiError> {
    match message.metadata.as_ref().and_then(|m| m.get("project")) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(name)) if !name.trim().is_empty() => Ok(Some(name.clone())),
        Some(_) => Err(ApiError::new(
            ErrorCode::BadRequest,
            "metadata.project must be a project's name or id: a new conversation starts in it, \
             an existing one moves into it",
        )),
    }
}

/// The SSE answer, with the run's id in `x-tessera-run-id`.
pub(crate) fn stream_answer(run: &StartedRun, sub: Subscription) -> Response {
    let mut response = stream_response(sub, Some(run.run_id.clone()));
    if let Ok(value) = header::HeaderValue::from_str(&run.run_id) {
        response.headers_mut().insert("x-tessera-run-id", value);
    }
    response
}

pub(super) async fn handle(
    app: &App,
    headers: &HeaderMap,
    message: Message,
) -> Result<Response, ApiError> {
    let MessageContent::UserInput(input) = &message.content else {
        return Err(ApiError::new(ErrorCode::Internal, "not a USER_INPUT"));
    };
    let conversation = message.context_id.as_str();
    let (run, sub) = app
        .send_message(NewMessage {
            conversation: conversation.to_owned(),
            id: message_id_of(&message)?,
            text: input.text.clone(),
            attachments: input.attachments.clone().unwrap_or_default(),
            debug: debug_of(&message)?,
            placement: placement_of(&message)?,
            pick: model_of(&message)?,
            project: project_of(&message)?,
        })
        .await?;
    answer(app, headers, &run, sub, &message.message_id).await
}

/// What a client that started run `run` gets: the run's event stream when it asked for one
/// (`Accept: text/event-stream`), else the MODEL_RESPONSE (in reply to `in_reply_to`) once the
/// run ends or suspends.
pub(crate) async fn answer(
    app: &App,
    headers: &HeaderMap,
    run: &StartedRun,
    sub: Subscription,
    in_reply_to: &str,
) -> Result<Response, ApiError> {
    if wants_stream(headers) {
        return Ok(stream_answer(run, sub));
    }
    let outcome = app.wait(run, sub, None).await?;
    let (content, metadata, message_id) = model_response(outcome)?;
    let mut reply = reply_to(
        &run.conversation_id,
        in_reply_to,
        SenderType::Model,
        MessageContent::ModelResponse(content),
        metadata,
    );
    // The answer is a stored message: the reply carries its id (seed 000 §2.2 消息唯一标识),
    // the one the context's history shows and a later `parentMessageId` may name.
    if let Some(id) = message_id {
        reply.message_id = id;
    }
    Ok(Json(reply).into_response())
}

/// The MODEL_RESPONSE a run's outcome makes, its metadata (the run, and what it waits for when
/// suspended), and the stored answer's id; a failed run is the error it failed with.
fn model_response(
    outcome: RunOutcome,
) -> Result<(ModelResponse, JsonObject, Option<String>), ApiError> {
    let usage = outcome.usage.as_ref().and_then(|m| {
        Some(TokenUsage {
            prompt_tokens: m.prompt_tokens?,
            completion_tokens: m.completion_tokens?,
            total_tokens: m.prompt_tokens? + m.completion_tokens?,
            extra: JsonObject::new(),
        })
    });
    let mut metadata = JsonObject::new();
    metadata.insert("runId".into(), json!(outcome.run_id));
    let (finish_reason, message_id) = match outcome.end {
        RunEnd::Failed(failure) => return Err(failure.problem().into()),
        RunEnd::Waiting(waiting) => {
            let waiting: Vec<Value> = waiting
                .into_iter()
                .map(|i| json!({"interactionId": i.interaction_id, "kind": i.kind, "request": i.request}))
                .collect();
            metadata.insert("state".into(), json!("suspended"));
            metadata.insert("interactions".into(), Value::Array(waiting));
            (FinishReason::ToolCalls, None)
        }
        RunEnd::Answered {
            message_id,
            finish_reason,
        }
        | RunEnd::Cancelled {
            message_id,
            finish_reason,
        } => (finish_reason, message_id),
        // No budget: the wait ends only with the run.
        RunEnd::StillRunning => (FinishReason::Stop, None),
    };
    let content = ModelResponse {
        text: outcome.text,
        tool_calls: None,
        finish_reason,
        usage,
        extra: JsonObject::new(),
    };
    Ok((content, metadata, message_id))
}
