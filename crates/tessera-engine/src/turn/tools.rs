//! The tool calls of one model answer, run by the executor (dependencies, conflicts, timeouts),
//! their events stored before they are passed on, their results turned into the tool-result
//! message the model reads next.

use std::sync::Arc;

use serde_json::Value;
use tessera_protocol::mcp_cp::{McpToolStatus, ToolCall, ToolCallRequest, ToolCallResponse};
use tessera_protocol::wire::JsonObject;
use tessera_providers::request::{ChatMessage, Part, Role, ToolResultPart};
use tessera_providers::stream::{CompletedToolCall, IncompleteToolCall};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{Recorder, TurnError};
use crate::executor::{ChannelSink, Executor, ExecutorOptions};
use crate::tools::ToolRegistry;

/// Runs `calls` and returns the message that carries their results (and a note for each call
/// that was cut off and not run).
pub(super) async fn run_tool_calls(
    recorder: &mut Recorder<'_>,
    registry: &Arc<ToolRegistry>,
    calls: &[CompletedToolCall],
    incomplete: &[IncompleteToolCall],
    run_id: &str,
    concurrency: usize,
    cancel: &CancellationToken,
) -> Result<ChatMessage, TurnError> {
    let request = ToolCallRequest {
        calls: calls
            .iter()
            .map(|c| ToolCall {
                call_id: c.id.clone(),
                name: c.name.clone(),
                parameters: match &c.arguments {
                    Value::Object(map) => map.clone(),
                    _ => JsonObject::new(),
                },
                description: None,
                required_after: None,
                timeout: None,
                runtime: None,
                user_prompt: None,
                fallback_behavior: None,
                ui_settings: None,
                timeout_client: None,
                extra: JsonObject::new(),
            })
            .collect(),
        execution_mode: None,
        timeout: None,
        frontend_timeout: None,
        backend_timeout: None,
        extra: JsonObject::new(),
    };
    let (tx, mut rx) = mpsc::unbounded_channel();
    let executor = Executor::new(
        Arc::clone(registry),
        Arc::new(ChannelSink(tx)),
        ExecutorOptions::new(recorder.conversation_id.clone())
            .run_id(run_id)
            .concurrency_limit(concurrency),
    );
    // Events are stored (and passed on) while the calls run, in the order they happen.
    let response = {
        let run = executor.run_tool_calls(&request, cancel);
        tokio::pin!(run);
        loop {
            tokio::select! {
                biased;
                Some(event) = rx.recv() => recorder.put_tool_event(event)?,
                done = &mut run => break done,
            }
        }
    };
    drop(executor);
    while let Ok(event) = rx.try_recv() {
        recorder.put_tool_event(event)?;
    }
    let response = match response {
        Ok(response) => response,
        // The model's calls could not be planned (a cycle, a duplicate id): each gets the reason.
        Err(err) => ToolCallResponse {
            results: calls
                .iter()
                .map(|c| tessera_protocol::mcp_cp::ToolResult {
                    call_id: c.id.clone(),
                    status: McpToolStatus::Error,
                    result: None,
                    error: Some(tessera_protocol::mcp_cp::ToolError {
                        code: "INVALID_CALLS".into(),
                        message: err.to_string(),
                        details: None,
                        extra: JsonObject::new(),
                    }),
                    execution_time: None,
                    client_info: None,
                    extra: JsonObject::new(),
                })
                .collect(),
            extra: JsonObject::new(),
        },
    };
    let mut parts: Vec<Part> = response
        .results
        .iter()
        .map(|r| {
            let (text, is_error) = match (r.status, &r.result, &r.error) {
                (McpToolStatus::Success, Some(result), _) => (result.to_string(), false),
                (McpToolStatus::Success, None, _) => ("null".to_owned(), false),
                (status, _, Some(e)) => (
                    format!("{} ({}): {}", e.code, status.as_str(), e.message),
                    true,
                ),
                (status, _, None) => (format!("the call ended {}", status.as_str()), true),
            };
            Part::ToolResult {
                call_id: r.call_id.clone(),
                content: vec![ToolResultPart::Text { text }],
                is_error,
            }
        })
        .collect();
    for cut in incomplete {
        parts.push(Part::text(format!(
            "[Your call to {} was cut off before its arguments were complete, so it was not run.]",
            cut.name
        )));
    }
    Ok(ChatMessage {
        role: Role::User,
        parts,
    })
}
