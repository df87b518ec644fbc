//! CLIENT_CAPABILITIES (seed 000 §4.7.1): the client says which front-end tools it runs in this
//! conversation; runs started from then on offer them to the model, and their calls come to the
//! client as `tool/tool_call` events (runtime FRONTEND) it answers with a TOOL_CALL_RESPONSE.
//! Remembered while the server runs (a client announces again when it reconnects). The answer
//! is a SYSTEM_MESSAGE listing the tools taken. Announcing creates no conversation: a client
//! announces for a new one before its first message, which then creates it under its own title.
//!
//! TOOL_AVAILABILITY_REQUEST (§4.7.2) → TOOL_AVAILABILITY_RESPONSE: for each tool asked,
//! whether it runs here (an engine tool, or one a client of the conversation announced), with
//! the reason when not.

use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use tessera_app::App;
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::mcp_cp::{Message, MessageContent, SenderType};
use tessera_protocol::wire::JsonObject;

use super::super::ApiError;
use super::{ack, reply};

pub(super) async fn announce(app: &App, message: Message) -> Result<Response, ApiError> {
    let MessageContent::ClientCapabilities(capabilities) = &message.content else {
        return Err(ApiError::new(
            ErrorCode::Internal,
            "not a CLIENT_CAPABILITIES",
        ));
    };
    let announced = app
        .announce_client_tools(&message.context_id, capabilities.clone())
        .await?;
    let mut data = JsonObject::new();
    data.insert("clientId".into(), json!(capabilities.client_id));
    data.insert("tools".into(), json!(announced.taken));
    data.insert("shadowedByServerTools".into(), json!(announced.shadowed));
    let text = format!(
        "client {} can run {} front-end tool(s) in context {}",
        capabilities.client_id,
        announced.taken.len(),
        message.context_id
    );
    Ok(Json(ack(&message, text, data)).into_response())
}

pub(super) async fn availability(app: &App, message: Message) -> Result<Response, ApiError> {
    let MessageContent::ToolAvailabilityRequest(request) = &message.content else {
        return Err(ApiError::new(
            ErrorCode::Internal,
            "not a TOOL_AVAILABILITY_REQUEST",
        ));
    };
    let response = app.tool_availability(&message.context_id, request).await;
    let answer = reply(
        &message,
        SenderType::System,
        MessageContent::ToolAvailabilityResponse(response),
        JsonObject::new(),
    );
    Ok(Json(answer).into_response())
}
