//! TOOL_CALL_REQUEST: the calls run with the engine's executor against the conversation's tools
//! (the engine's and the front-end tools its client announced), as a run of their own on the
//! event stream; the answer is the TOOL_CALL_RESPONSE, results in the request's order. ASYNC
//! answers at once with the accepted call ids; the results follow on the stream.
//!
//! TOOL_CALL_RESPONSE: a client's result for a front-end call that waits for it (seed 000
//! §4.5.2, "结果返回服务端").

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use tessera_engine::engine::Engine;
use tessera_protocol::easyflow::SystemState;
use tessera_protocol::mcp_cp::{
    ExecutionMode, McpToolStatus, Message, MessageContent, SenderType, ToolCallResponse,
};
use tessera_protocol::wire::JsonObject;

use super::super::ApiError;
use super::direct_run::DirectRun;
use super::{ack, ensure_conversation, reply};

/// A set the scheduler refuses (a cycle, an unknown or duplicate id, a bad condition): 422
/// naming the problem, nothing run.
pub(super) fn refused(err: &tessera_scheduler::PlanError) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "INVALID_PLAN",
        format!("nothing was run: {err}"),
    )
}

fn end_state(response: &ToolCallResponse) -> SystemState {
    if response
        .results
        .iter()
        .any(|r| r.status == McpToolStatus::Cancelled)
    {
        SystemState::Cancelled
    } else {
        SystemState::Completed
    }
}

pub(super) async fn request(engine: &Engine, message: Message) -> Result<Response, ApiError> {
    let MessageContent::ToolCallRequest(request) = &message.content else {
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            "not a TOOL_CALL_REQUEST",
        ));
    };
    let conversation = message.context_id.clone();
    let registry = engine
        .tools_for(&conversation)
        .await
        .unwrap_or_else(|| Arc::new(tessera_engine::tools::ToolRegistry::new()));
    // Refused before anything is stored or run.
    let planner = tessera_engine::executor::Executor::new(
        registry.clone(),
        Arc::new(tessera_engine::executor::NullSink),
        tessera_engine::executor::ExecutorOptions::new(conversation.clone()),
    );
    planner.plan_tool_calls(request).map_err(|e| refused(&e))?;
    ensure_conversation(engine, &conversation, "Tool calls")?;
    let run = DirectRun::begin(engine, &conversation)?;
    let executor = run.executor(registry, None);
    let mut metadata = JsonObject::new();
    metadata.insert("runId".into(), json!(run.run_id));
    if request.execution_mode == Some(ExecutionMode::Async) {
        let started = executor
            .start_tool_calls(request.clone())
            .map_err(|e| refused(&e))?;
        let acknowledgement = started.acknowledgement;
        tokio::spawn(async move {
            let cancelled = run.cancel_token();
            let mut completion = started.completion;
            let outcome = tokio::select! {
                outcome = &mut completion => outcome,
                () = cancelled.cancelled() => {
                    started.cancel.cancel();
                    completion.await
                }
            };
            let state = match outcome {
                Ok(response) => end_state(&response),
                Err(_) => SystemState::Failed,
            };
            run.end(state);
        });
        metadata.insert("state".into(), json!("accepted"));
        let answer = reply(
            &message,
            SenderType::Tool,
            MessageContent::ToolCallResponse(acknowledgement),
            metadata,
        );
        return Ok((StatusCode::ACCEPTED, Json(answer)).into_response());
    }
    // The calls go on if the client disconnects; `POST /v1/runs/{id}/cancel` stops them.
    let outcome = executor.run_tool_calls(request, &run.cancel_token()).await;
    let response = match outcome {
        Ok(response) => response,
        Err(err) => {
            run.end(SystemState::Failed);
            return Err(refused(&err));
        }
    };
    run.end(end_state(&response));
    let answer = reply(
        &message,
        SenderType::Tool,
        MessageContent::ToolCallResponse(response),
        metadata,
    );
    Ok(Json(answer).into_response())
}

/// A client's results for front-end calls waiting for it.
pub(super) fn client_response(engine: &Engine, message: Message) -> Result<Response, ApiError> {
    let MessageContent::ToolCallResponse(response) = &message.content else {
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            "not a TOOL_CALL_RESPONSE",
        ));
    };
    let delivered = engine.client_tool_response(&message.context_id, response.results.clone());
    if delivered.accepted.is_empty() {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "NO_WAITING_CALL",
            format!(
                "no call of conversation {} waits for a client's result under {} (it was \
                 answered already, timed out, or never asked)",
                message.context_id,
                delivered.unmatched.join(", ")
            ),
        ));
    }
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
