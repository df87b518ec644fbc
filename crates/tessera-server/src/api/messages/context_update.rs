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

use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use tessera_app::context_updates::ContextUpdated;
use tessera_app::App;
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::mcp_cp::{Message, MessageContent};
use tessera_protocol::wire::JsonObject;

use super::super::ApiError;
use super::ack;

pub(super) async fn handle(app: &App, message: Message) -> Result<Response, ApiError> {
    let MessageContent::ContextUpdate(update) = &message.content else {
        return Err(ApiError::new(ErrorCode::Internal, "not a CONTEXT_UPDATE"));
    };
    let conversation = message.context_id.as_str();
    let ContextUpdated { outcome, context } = app.apply_context_update(&message).await?;
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
