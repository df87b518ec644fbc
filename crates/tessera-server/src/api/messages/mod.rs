//! `POST /v1/messages`: one MCP-CP message (seed 000), answered by type. The `contextId` is the
//! conversation (a new one is created under that id).
//!
//! - USER_INPUT starts a run ([`user_input`]).
//! - TOOL_CALL_REQUEST runs the calls ([`tool_calls`]); TOOL_CALL_RESPONSE is a client's result
//!   for a front-end call that waits for it.
//! - INSTRUCTION runs the set and keeps it as the task list ([`instructions`]).
//! - CONTEXT_UPDATE changes the context state and history, versioned ([`context_update`]).
//! - CLIENT_CAPABILITIES and TOOL_AVAILABILITY_REQUEST: front-end tools ([`capabilities`]).

mod capabilities;
mod context_update;
mod direct_run;
mod instructions;
mod tool_calls;
pub(crate) mod user_input;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};
use tessera_engine::engine::Engine;
use tessera_protocol::mcp_cp::{
    Message, MessageContent, Sender, SenderType, SystemAction, SystemMessage,
};
use tessera_protocol::wire::{JsonObject, Timestamp};
use tessera_protocol::DocumentKind;
use tessera_store::conversations::NewConversation;

use super::ApiError;

/// Now, as MCP-CP timestamps are written.
pub(crate) fn now() -> Timestamp {
    Timestamp::new(
        jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string(),
    )
}

/// Creates conversation `id` when it does not exist yet, titled by `title`'s first line.
pub(crate) fn ensure_conversation(engine: &Engine, id: &str, title: &str) -> Result<(), ApiError> {
    let store = engine.store();
    if store.conversation(id)?.is_none() {
        let title = tessera_engine::turn::title_of(title);
        match store.create_conversation(NewConversation {
            id: Some(id.to_owned()),
            title,
            locale: None,
            actor: None,
            created_at: None,
        }) {
            Ok(_) => {}
            // Another request created it a moment ago.
            Err(tessera_store::StoreError::AlreadyExists { .. }) => {}
            Err(other) => return Err(other.into()),
        }
    }
    Ok(())
}

/// Refuses (409 `RUN_IN_PROGRESS`) what cannot be done while a run answers in conversation
/// `id`; `doing` says what was asked.
pub(crate) fn refuse_while_running(engine: &Engine, id: &str, doing: &str) -> Result<(), ApiError> {
    match engine
        .running()
        .into_iter()
        .find(|r| r.conversation_id == id)
    {
        Some(run) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "RUN_IN_PROGRESS",
            format!(
                "run {} is answering in conversation {id}: wait for it or cancel it (POST \
                 /v1/runs/{}/cancel) before {doing}",
                run.run_id, run.run_id
            ),
        )
        .in_context(id)),
        None => Ok(()),
    }
}

/// The answer to `request`: same context, `metadata.inReplyTo` naming it.
pub(crate) fn reply(
    request: &Message,
    sender: SenderType,
    content: MessageContent,
    metadata: JsonObject,
) -> Message {
    reply_to(
        &request.context_id,
        &request.message_id,
        sender,
        content,
        metadata,
    )
}

/// A message of `context_id` answering the message `in_reply_to` (`metadata.inReplyTo`).
pub(crate) fn reply_to(
    context_id: &str,
    in_reply_to: &str,
    sender: SenderType,
    content: MessageContent,
    mut metadata: JsonObject,
) -> Message {
    metadata.insert("inReplyTo".into(), json!(in_reply_to));
    Message {
        message_id: uuid::Uuid::now_v7().to_string(),
        context_id: context_id.to_owned(),
        timestamp: now(),
        sender: Sender {
            id: "tessera".into(),
            sender_type: sender,
            extra: JsonObject::new(),
        },
        content,
        metadata: Some(metadata),
        extra: JsonObject::new(),
    }
}

/// An acknowledgement: a SYSTEM_MESSAGE (seed 000 §3.5) with action INFO, what was done in
/// `text` and the details in `data`.
pub(crate) fn ack(request: &Message, text: String, data: JsonObject) -> Message {
    reply(
        request,
        SenderType::System,
        MessageContent::SystemMessage(SystemMessage {
            action: SystemAction::Info,
            text,
            data: Some(data),
            extra: JsonObject::new(),
        }),
        JsonObject::new(),
    )
}

pub(crate) fn json_body(body: &[u8]) -> Result<Value, ApiError> {
    let value = serde_json::from_slice(body).map_err(|err| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "INVALID_JSON",
            format!("the body is not JSON: {err}"),
        )
    })?;
    refuse_duplicate_keys(body)
        .map_err(|message| ApiError::new(StatusCode::BAD_REQUEST, "DUPLICATE_KEY", message))?;
    Ok(value)
}

/// RFC 8259 leaves a repeated key's meaning open (serde_json keeps the last): a body that says
/// two things at once is refused, naming where.
pub(crate) fn refuse_duplicate_keys(body: &[u8]) -> Result<(), String> {
    match tessera_protocol::duplicate_keys::first_duplicate_key(body) {
        Ok(Some(path)) => Err(format!(
            "the key at {path} is written twice in one object; give each key once"
        )),
        _ => Ok(()),
    }
}

pub(crate) async fn post_message(
    State(engine): State<Engine>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let value = json_body(&body)?;
    let message: Message = tessera_protocol::validate::parse(DocumentKind::Message, &value)
        .map_err(|err| ApiError::invalid_message(&err))?;
    let context_id = message.context_id.clone();
    let answer = match &message.content {
        MessageContent::UserInput(_) => user_input::handle(&engine, &headers, message).await,
        MessageContent::ToolCallRequest(_) => tool_calls::request(&engine, message).await,
        MessageContent::ToolCallResponse(_) => tool_calls::client_response(&engine, message),
        MessageContent::Instruction(_) => instructions::handle(&engine, message).await,
        MessageContent::ContextUpdate(_) => context_update::handle(&engine, message).await,
        MessageContent::ClientCapabilities(_) => capabilities::announce(&engine, message).await,
        MessageContent::ToolAvailabilityRequest(_) => {
            capabilities::availability(&engine, message).await
        }
        other => Err(ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            "UNSUPPORTED_MESSAGE_TYPE",
            format!(
                "a {} message is something this server sends, not something it takes; post \
                 USER_INPUT, TOOL_CALL_REQUEST, TOOL_CALL_RESPONSE, INSTRUCTION, CONTEXT_UPDATE, \
                 CLIENT_CAPABILITIES or TOOL_AVAILABILITY_REQUEST",
                other.message_type().as_str()
            ),
        )),
    };
    answer.map_err(|err| err.in_context(&context_id))
}
