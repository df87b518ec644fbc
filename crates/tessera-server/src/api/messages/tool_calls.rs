//! TOOL_CALL_REQUEST: the calls run with the engine's executor against the conversation's tools
//! (the engine's and the front-end tools its client announced), as a run of their own on the
//! event stream; the answer is the TOOL_CALL_RESPONSE, results in the request's order. ASYNC
//! answers at once with the accepted call ids; the results follow on the stream.
//!
//! TOOL_CALL_RESPONSE: a client's result for a front-end call that waits for it (seed 000
//! §4.5.2, "结果返回服务端").

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use tessera_app::direct_runs::ToolCallsOutcome;
use tessera_app::App;
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::mcp_cp::{Message, MessageContent, SenderType};
use tessera_protocol::wire::JsonObject;

use super::super::ApiError;
use super::{ack, reply};

pub(super) async fn request(app: &App, message: Message) -> Result<Response, ApiError> {
    let MessageContent::ToolCallRequest(request) = &message.content else {
        return Err(ApiError::new(
            ErrorCode::Internal,
            "not a TOOL_CALL_REQUEST",
        ));
    };
    let (status, run_id, response, accepted) = match app
        .run_tool_calls(&message.context_id, request)
        .await?
    {
        ToolCallsOutcome::Accepted {
            run_id,
            acknowledgement,
        } => (StatusCode::ACCEPTED, run_id, acknowledgement, true),
        ToolCallsOutcome::Done { run_id, response } => (StatusCode::OK, run_id, response, false),
    };
    let mut metadata = JsonObject::new();
    metadata.insert("runId".into(), json!(run_id));
    if accepted {
        metadata.insert("state".into(), json!("accepted"));
    }
    let answer = reply(
        &message,
        SenderType::Tool,
        MessageContent::ToolCallResponse(response),
        metadata,
    );
    Ok((status, Json(answer)).into_response())
}

/// A client's results for front-end calls waiting for it.
pub(super) fn client_response(app: &App, message: Message) -> Result<Response, ApiError> {
    let MessageContent::ToolCallResponse(response) = &message.content else {
        return Err(ApiError::new(
            ErrorCode::Internal,
            "not a TOOL_CALL_RESPONSE",
        ));
    };
    let delivered = app.deliver_client_results(&message.context_id, response.results.clone())?;
    let mut data = JsonObject::new();
    data.insert("accepted".into(), json!(delivered.accepted));
    data.insert("unmatched".into(), json!(delivered.unmatched));
    let text = format!(
        "result taken for {}{}",
        delivered.accepted.join(", "),
        if delivered.unmatched.is_empty() {
            String::new()
        } else {
            format!("; nothing waits for {}", delivered.unmatched.join(", "))
        }
    );
    Ok(Json(ack(&message, text, data)).into_response())
}
