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
mod instructions;
mod tool_calls;
pub(crate) mod user_input;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{json, Value};
use tessera_app::App;
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::mcp_cp::{
    Message, MessageContent, Sender, SenderType, SystemAction, SystemMessage,
};
use tessera_protocol::wire::{JsonObject, Timestamp};
use tessera_protocol::DocumentKind;

use super::ApiError;

/// Now, as MCP-CP timestamps are written.
pub(crate) fn now() -> Timestamp {
    Timestamp::new(
        jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string(),
    )
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
            ErrorCode::InvalidJson,
            format!("the body is not JSON: {err}"),
        )
    })?;
    refuse_duplicate_keys(body)
        .map_err(|message| ApiError::new(ErrorCode::DuplicateKey, message))?;
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
    State(app): State<App>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let value = json_body(&body)?;
    let message: Message = tessera_protocol::validate::parse(DocumentKind::Message, &value)
        .map_err(|err| ApiError::invalid_message(&err))?;
    let context_id = message.context_id.clone();
    let answer = match &message.content {
        MessageContent::UserInput(_) => user_input::handle(&app, &headers, message).await,
        MessageContent::ToolCallRequest(_) => tool_calls::request(&app, message).await,
        MessageContent::ToolCallResponse(_) => tool_calls::client_response(&app, message),
        MessageContent::Instruction(_) => instructions::handle(&app, message).await,
        MessageContent::ContextUpdate(_) => context_update::handle(&app, message).await,
        MessageContent::ClientCapabilities(_) => capabilities::announce(&app, message).await,
        MessageContent::ToolAvailabilityRequest(_) => {
            capabilities::availability(&app, message).await
        }
        other => Err(ApiError::new(
            ErrorCode::UnsupportedMessageType,
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
