//! One round of tool calls as a model sees it, shared by the coordinator's turn and the
//! specialists' mini-loops: the assistant's message with its calls, the calls as the executor
//! takes them, and the message of their results in the model's order.

use std::collections::HashMap;

use serde_json::{json, Value};
use tessera_protocol::failure_codes::ToolFailureCode;
use tessera_protocol::mcp_cp::{ToolCall, ToolCallRequest, ToolCallResponse};
use tessera_protocol::vocabulary::ToolOutcome;
use tessera_protocol::wire::JsonObject;
use tessera_providers::request::{ChatMessage, Part, Role, ToolResultPart};
use tessera_providers::stream::{CompletedToolCall, IncompleteToolCall, Response};
use tessera_scheduler::PlanError;
use tessera_store::Store;

use crate::tools::images::image_parts;

/// What the model reads for one call's result: its JSON, then the images it lists (read from
/// the attachment store). The same whether the call just ran or its result was read back from
/// the store after a restart.
pub(crate) fn result_part(
    store: &Store,
    call_id: &str,
    outcome: ToolOutcome,
    result: Option<&Value>,
    error: Option<&Value>,
) -> Part {
    let mut part = text_result_part(call_id, outcome, result, error);
    if let (ToolOutcome::Success, Some(result), Part::ToolResult { content, .. }) =
        (outcome, result, &mut part)
    {
        content.extend(image_parts(store, result));
    }
    part
}

/// A result's JSON (or error) as text.
pub(crate) fn text_result_part(
    call_id: &str,
    outcome: ToolOutcome,
    result: Option<&Value>,
    error: Option<&Value>,
) -> Part {
    let field = |key: &str| error.and_then(|e| e.get(key)).and_then(Value::as_str);
    let (text, is_error) = match (outcome, result) {
        (ToolOutcome::Success, Some(result)) => (result.to_string(), false),
        (ToolOutcome::Success, None) => ("null".to_owned(), false),
        (outcome, _) => match (field("code"), field("message")) {
            (Some(code), Some(message)) => (
                format!("{code} ({}): {message}", outcome.as_mcp_cp_str()),
                true,
            ),
            _ => (format!("the call ended {}", outcome.as_mcp_cp_str()), true),
        },
    };
    Part::ToolResult {
        call_id: call_id.to_owned(),
        content: vec![ToolResultPart::Text { text }],
        is_error,
    }
}

/// The message carrying a round's results in the model's order, with a note for each call that
/// was cut off and not run.
pub(crate) fn results_message(
    calls: &[CompletedToolCall],
    incomplete: &[IncompleteToolCall],
    mut results: HashMap<String, Part>,
) -> ChatMessage {
    let mut parts: Vec<Part> = calls
        .iter()
        .map(|c| {
            results.remove(&c.id).unwrap_or_else(|| {
                text_result_part(
                    &c.id,
                    ToolOutcome::Interrupted,
                    None,
                    Some(&json!({"code": ToolFailureCode::Interrupted, "message": "the call has no result"})),
                )
            })
        })
        .collect();
    for cut in incomplete {
        parts.push(Part::text(format!(
            "[Your call to {} was cut off before its arguments were complete, so it was not run.]",
            cut.name
        )));
    }
    ChatMessage {
        role: Role::User,
        parts,
    }
}

/// The model's calls as the executor takes them (no `requiredAfter`: the scheduler derives the
/// order from references and conflicts).
pub(crate) fn tool_call_request<'a>(
    calls: impl IntoIterator<Item = &'a CompletedToolCall>,
) -> ToolCallRequest {
    ToolCallRequest {
        calls: calls
            .into_iter()
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
    }
}

/// What the model reads for each call of a set the executor ran, by call id; when the calls
/// could not be planned (a cycle, a duplicate id), each gets the reason.
pub(crate) fn result_parts<'a>(
    store: &Store,
    response: &Result<ToolCallResponse, PlanError>,
    calls: impl IntoIterator<Item = &'a CompletedToolCall>,
) -> HashMap<String, Part> {
    match response {
        Ok(response) => response
            .results
            .iter()
            .map(|r| {
                let error = r
                    .why()
                    .map(|e| json!({"code": e.code, "message": e.message}));
                let part = result_part(
                    store,
                    &r.call_id,
                    ToolOutcome::from_mcp_cp(r.status),
                    r.result.as_ref(),
                    error.as_ref(),
                );
                (r.call_id.clone(), part)
            })
            .collect(),
        Err(err) => calls
            .into_iter()
            .map(|c| {
                let error =
                    json!({"code": ToolFailureCode::InvalidCalls, "message": err.to_string()});
                (
                    c.id.clone(),
                    text_result_part(&c.id, ToolOutcome::Error, None, Some(&error)),
                )
            })
            .collect(),
    }
}

/// The assistant's side of a tool round, as the provider must see it again: its reasoning (with
/// signatures), its text and its complete calls.
pub(crate) fn assistant_message(response: &Response) -> ChatMessage {
    let mut parts: Vec<Part> = response
        .reasoning
        .iter()
        .map(|r| Part::Reasoning {
            text: r.text.clone(),
            signature: r.signature.clone(),
            redacted: r.redacted.clone(),
        })
        .collect();
    if !response.text.is_empty() {
        parts.push(Part::text(response.text.clone()));
    }
    parts.extend(response.tool_calls.iter().map(|c| Part::ToolCall {
        id: c.id.clone(),
        name: c.name.clone(),
        arguments: c.arguments.clone(),
    }));
    ChatMessage {
        role: Role::Assistant,
        parts,
    }
}
