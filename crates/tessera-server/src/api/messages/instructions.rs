//! INSTRUCTION: the set runs with the engine's executor (each instruction's `action` is a tool
//! of the conversation), as a run of its own on the event stream, and is kept as the
//! conversation's task list (seed 004 task_state) as it runs. A set that cannot be planned (a
//! cycle, an unknown dependency, a condition that does not parse) is a 422 naming the problem;
//! nothing is run or stored. The answer is a SYSTEM_MESSAGE whose `data.results` holds each
//! instruction's state (seed 000 §5.4), result and error, in the set's order, and
//! `data.tasks` the task list as stored.

use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use tessera_app::App;
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::mcp_cp::{Message, MessageContent};
use tessera_protocol::vocabulary::InstructionState;
use tessera_protocol::wire::JsonObject;

use super::super::ApiError;
use super::ack;

pub(super) async fn handle(app: &App, message: Message) -> Result<Response, ApiError> {
    let MessageContent::Instruction(set) = &message.content else {
        return Err(ApiError::new(ErrorCode::Internal, "not an INSTRUCTION"));
    };
    let outcome = app.run_instructions(&message.context_id, set).await?;
    let (text, data) = summary(outcome);
    Ok(Json(ack(&message, text, data)).into_response())
}

/// The acknowledgement's text (how many of each state) and data (each result, the tasks).
fn summary(outcome: tessera_app::direct_runs::InstructionsOutcome) -> (String, JsonObject) {
    let (run_id, results, tasks) = (outcome.run_id, outcome.results, outcome.tasks);
    let listed: Vec<Value> = results
        .results
        .iter()
        .map(|(id, r)| {
            json!({
                "instructionId": id,
                "status": r.state.as_mcp_cp_str(),
                "result": r.result,
                "error": r.error.as_ref().map(|e| e.to_value()),
                "executionTime": r.duration_ms,
            })
        })
        .collect();
    let count = |state: InstructionState| {
        results
            .results
            .iter()
            .filter(|(_, r)| r.state == state)
            .count()
    };
    let mut data = JsonObject::new();
    data.insert("runId".into(), json!(run_id));
    data.insert("results".into(), Value::Array(listed));
    data.insert(
        "tasks".into(),
        serde_json::to_value(tasks).unwrap_or(Value::Null),
    );
    let text = format!(
        "{} instructions: {} completed, {} failed, {} skipped, {} timed out",
        results.results.len(),
        count(InstructionState::Completed),
        count(InstructionState::Failed),
        count(InstructionState::Skipped),
        count(InstructionState::Timeout),
    );
    (text, data)
}
