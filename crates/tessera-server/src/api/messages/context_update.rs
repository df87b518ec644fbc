//! CONTEXT_UPDATE (seed 000 §8.2): ADD_MESSAGE appends to the context's history, UPDATE_STATE
//! sets a state field by its dotted path, CLEAR_HISTORY removes the history messages the filter
//! selects (before a time, of a role or a type; all without a filter). Each update bumps the
//! context's version; one that names `expectedVersion` and finds another version is refused
//! with 409 and changes nothing (§8.3). A bad path or value is a 422 and changes nothing.
//!
//! ADD_MESSAGE of a USER_INPUT, MODEL_RESPONSE or SYSTEM_MESSAGE also joins the conversation's
//! messages, in the same transaction, so the model reads it in the next turn. CLEAR_HISTORY
//! clears what the model reads next (§8.2.3, 部分或全部): the history messages the filter
//! selects are removed, and the conversation's messages it selects are marked cleared (they stay,
//! shown as cleared, and no prompt or summary reads them again; the rolling summary is dropped).
//! UPDATE_STATE of `activeTools` narrows the tools the next runs offer (never adds one).
//!
//! The answer is a SYSTEM_MESSAGE whose `data` holds the operation, the new `version`, the
//! history messages removed, the conversation messages cleared and the state. The whole context
//! and its change log are read at `GET /v1/conversations/{id}/context`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use tessera_engine::engine::Engine;
use tessera_protocol::context_doc::{Author, AuthorKind};
use tessera_protocol::mcp_cp::{ContextOperation, Message, MessageContent, SenderType};
use tessera_protocol::request::Role;
use tessera_protocol::wire::JsonObject;
use tessera_store::{text_message, NewMessage, StoreError};

use super::super::ApiError;
use super::{ack, ensure_conversation};

/// The conversation message an added MCP-CP message becomes, for the types that carry text.
fn as_conversation_message(message: &Message) -> Option<NewMessage> {
    let (role, text) = match &message.content {
        MessageContent::UserInput(c) => (Role::User, c.text.clone()),
        MessageContent::ModelResponse(c) => (Role::Assistant, c.text.clone()),
        MessageContent::SystemMessage(c) => (Role::System, c.text.clone()),
        _ => return None,
    };
    let mut session = text_message(role, text);
    session.author = Some(Author {
        kind: match message.sender.sender_type {
            SenderType::User => AuthorKind::User,
            SenderType::Model => AuthorKind::Agent,
            SenderType::Tool => AuthorKind::Tool,
            SenderType::System => AuthorKind::System,
        },
        id: Some(message.sender.id.clone()),
        extra: JsonObject::new(),
    });
    session.at = Some(message.timestamp.clone());
    session
        .extra
        .insert("mcp_message_id".into(), json!(message.message_id));
    Some(NewMessage::new(session))
}

fn store_error(err: StoreError) -> ApiError {
    match &err {
        StoreError::VersionConflict {
            expected, current, ..
        } => {
            let mut details = JsonObject::new();
            details.insert("expectedVersion".into(), json!(expected));
            details.insert("currentVersion".into(), json!(current));
            ApiError::new(StatusCode::CONFLICT, "VERSION_CONFLICT", err.to_string())
                .with_details(details)
        }
        StoreError::StatePath { .. } | StoreError::InvalidContextUpdate(_) => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "INVALID_CONTEXT_UPDATE",
            err.to_string(),
        ),
        _ => err.into(),
    }
}

pub(super) async fn handle(engine: &Engine, message: Message) -> Result<Response, ApiError> {
    let MessageContent::ContextUpdate(update) = &message.content else {
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            "not a CONTEXT_UPDATE",
        ));
    };
    let conversation = message.context_id.clone();
    let joins = update
        .message
        .as_deref()
        .filter(|_| update.operation == ContextOperation::AddMessage)
        .and_then(as_conversation_message);
    if joins.is_some()
        && engine
            .running()
            .iter()
            .any(|r| r.conversation_id == conversation)
    {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "RUN_IN_PROGRESS",
            format!(
                "a run answers in conversation {conversation} now; add the message once it has \
                 ended (nothing was changed)"
            ),
        ));
    }
    ensure_conversation(engine, &conversation, "Context")?;
    let (update_owned, conv) = (update.clone(), conversation.clone());
    let store = engine.store().clone();
    let outcome = tokio::task::spawn_blocking(move || {
        store.write(move |tx| {
            let outcome = tx.apply_context_update(&conv, &update_owned)?;
            if let Some(new) = joins {
                tx.append_message(&conv, new)?;
            }
            Ok(outcome)
        })
    })
    .await
    .map_err(|err| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            format!("the update could not be applied: {err}"),
        )
    })?
    .map_err(store_error)?;
    let context = engine.store().context(&conversation)?;
    let operation = serde_json::to_value(update.operation).unwrap_or_default();
    let mut data = JsonObject::new();
    data.insert("operation".into(), operation.clone());
    data.insert("version".into(), json!(outcome.version));
    data.insert("removedMessages".into(), json!(outcome.removed_messages));
    data.insert("clearedMessages".into(), json!(outcome.cleared_messages));
    if let Some(context) = &context {
        data.insert(
            "state".into(),
            serde_json::to_value(&context.state).unwrap_or_default(),
        );
        data.insert("messages".into(), json!(context.messages.len()));
    }
    let text = format!(
        "{} applied to context {conversation}; version {}",
        operation.as_str().unwrap_or("update"),
        outcome.version
    );
    Ok(Json(ack(&message, text, data)).into_response())
}
