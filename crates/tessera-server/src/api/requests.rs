//! `POST /v1/requests`: a seed-003 request object, honoured whole (§1.2). `root_id` is the
//! conversation (created when new); the last `user` resource is what the person says; `model`
//! picks the model ([`Engine::model_named`]); `config` sets temperature, top_p, max_tokens and
//! the function-call switch for this run; `system` resources follow Tessera's own system prompt;
//! earlier `user`/`assistant` resources become the history of a conversation that has none (one
//! that has messages keeps its own). The answer is the seed-003 response object, `trace_id`
//! always the request's `metadata.request_id`:
//!
//! - `success`: `outputs` the assistant's answer, `context_updates` the message it appended;
//! - `tool_wait`: the run waits for a form or a consent; `context_updates` lists each as
//!   `{"type": "interaction_request", "interaction_id", "kind", "request"}` (answer them at
//!   `POST /v1/interactions/{id}`), `outputs` what was said before;
//! - `in_progress`: the run outlived the wait budget (`config.wait_ms`, default 120 000; 0 answers
//!   at once); `metadata.run_id` and `metadata.events_url` say where to follow it;
//! - `error`: `error {code, message, detail}` with the whole structure ("errors are semantics"),
//!   and an HTTP status that fits (400 not JSON, 422 invalid, 503 no model, 502 the provider).
//!
//! With `Accept: text/event-stream` (or `config.stream: true`) the answer is the run's event
//! stream, as for a USER_INPUT.

use std::time::Duration;
use tessera_protocol::error_codes::ErrorCode;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use tessera_app::messages::RequestedRun;
use tessera_app::App;
use tessera_protocol::mcp_cp::MessageContent;
use tessera_protocol::request::{Request, Role};
use tessera_protocol::wire::JsonObject;
use tessera_protocol::DocumentKind;

use super::messages::user_input::{
    failure_code, failure_status, follow_run, stream_answer, waiting_interactions,
};
use super::{wants_stream, ApiError};

/// How long a request waits for its run by default before answering `in_progress`.
const DEFAULT_WAIT: Duration = Duration::from_secs(120);

/// A seed-003 response with status `error`.
fn error_response(
    status: StatusCode,
    trace_id: &str,
    code: ErrorCode,
    message: String,
    detail: Option<Value>,
) -> Response {
    let mut error = json!({"code": code, "message": message});
    if let Some(detail) = detail {
        error["detail"] = detail;
    }
    (
        status,
        Json(json!({
            "status": "error",
            "outputs": [],
            "trace_id": trace_id,
            "error": error,
        })),
    )
        .into_response()
}

/// An API error (engine, store) in the seed-003 shape.
fn from_api_error(err: ApiError, trace_id: &str) -> Response {
    let status = err.status();
    let code = err.code();
    match err.body().content {
        MessageContent::ErrorResponse(e) => error_response(
            status,
            trace_id,
            code,
            e.message,
            e.details.map(Value::Object),
        ),
        _ => error_response(
            status,
            trace_id,
            ErrorCode::Internal,
            "unknown error".into(),
            None,
        ),
    }
}

pub(crate) async fn post_request(
    State(app): State<App>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(err) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                &uuid::Uuid::now_v7().to_string(),
                ErrorCode::InvalidJson,
                format!("the body is not JSON: {err}"),
                None,
            )
        }
    };
    // The trace id is the caller's request id whenever one can be read, even from a request
    // that is otherwise wrong.
    let trace_id = value
        .pointer("/metadata/request_id")
        .and_then(Value::as_str)
        .map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
    if let Err(message) = super::messages::refuse_duplicate_keys(&body) {
        return error_response(
            StatusCode::BAD_REQUEST,
            &trace_id,
            ErrorCode::DuplicateKey,
            message,
            None,
        );
    }
    let problems = tessera_protocol::validate(DocumentKind::Request, &value);
    if !problems.is_empty() {
        let listed: Vec<String> = problems.iter().map(ToString::to_string).collect();
        let detail = json!({"problems": problems
            .iter()
            .map(|p| json!({"path": p.path, "message": p.message}))
            .collect::<Vec<_>>()});
        return error_response(
            StatusCode::UNPROCESSABLE_ENTITY,
            &trace_id,
            ErrorCode::InvalidRequest,
            format!("the request object is not valid: {}", listed.join("; ")),
            Some(detail),
        );
    }
    let request: Request = match serde_json::from_value(value) {
        Ok(r) => r,
        Err(err) => {
            return error_response(
                StatusCode::UNPROCESSABLE_ENTITY,
                &trace_id,
                ErrorCode::InvalidRequest,
                format!("the request object is not valid: {err}"),
                None,
            )
        }
    };
    match answer(&app, &headers, &request, &trace_id).await {
        Ok(response) => response,
        Err(err) => from_api_error(err.in_context(&request.root_id), &trace_id),
    }
}

/// `config.wait_ms`: milliseconds, a non-negative integer.
fn wait_budget(request: &Request) -> Result<Duration, String> {
    match request.config.extra.get("wait_ms") {
        None => Ok(DEFAULT_WAIT),
        Some(v) => v.as_u64().map(Duration::from_millis).ok_or_else(|| {
            format!("config.wait_ms must be a whole number of milliseconds, not {v}")
        }),
    }
}

/// What the request sets for its run alone: `config` (temperature, top_p, max_tokens, the
/// function-call switch: `"none"` offers no tool) and the `system` resources, in order.
fn overrides_of(request: &Request) -> tessera_engine::engine::RunOverrides {
    // f64 end to end: a narrower float would reach the provider as 0.20000000298023224.
    let number = |n: &Option<serde_json::Number>| n.as_ref().and_then(|n| n.as_f64());
    let system: Vec<&str> = request
        .resources
        .iter()
        .filter(|r| r.role == Role::System)
        .map(|r| r.content.as_str())
        .filter(|t| !t.trim().is_empty())
        .collect();
    tessera_engine::engine::RunOverrides {
        temperature: number(&request.config.temperature),
        top_p: number(&request.config.top_p),
        max_tokens: request
            .config
            .max_tokens
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
        no_tools: request
            .config
            .function_call
            .as_ref()
            .and_then(|v| v.as_str())
            .is_some_and(|v| v.eq_ignore_ascii_case("none")),
        system: (!system.is_empty()).then(|| system.join("\n\n")),
    }
}

async fn answer(
    app: &App,
    headers: &HeaderMap,
    request: &Request,
    trace_id: &str,
) -> Result<Response, ApiError> {
    let Some(input) = request
        .resources
        .iter()
        .rev()
        .find(|r| r.role == Role::User)
    else {
        return Ok(error_response(
            StatusCode::UNPROCESSABLE_ENTITY,
            trace_id,
            ErrorCode::NoUserInput,
            "resources holds no `user` resource: nothing to answer".into(),
            None,
        ));
    };
    let budget = match wait_budget(request) {
        Ok(b) => b,
        Err(message) => {
            return Ok(error_response(
                StatusCode::UNPROCESSABLE_ENTITY,
                trace_id,
                ErrorCode::InvalidRequest,
                message,
                None,
            ))
        }
    };
    // §1.2: `model` picks the model (any configured provider's, by name without regard to
    // case); `config` and the `system` resources shape this run; the earlier user/assistant
    // resources are the history of a conversation that has none yet.
    let last_user = request
        .resources
        .iter()
        .rposition(|r| r.role == Role::User)
        .unwrap_or(0);
    let history: Vec<(Role, String)> = request.resources[..last_user]
        .iter()
        .filter(|r| matches!(r.role, Role::User | Role::Assistant))
        .map(|r| (r.role.clone(), r.content.clone()))
        .collect();
    let (run, sub) = app
        .start_requested_run(RequestedRun {
            conversation: request.root_id.clone(),
            model: request.model.clone(),
            history,
            text: input.content.clone(),
            overrides: overrides_of(request),
        })
        .await?;
    let engine = app.engine();
    if wants_stream(headers) || request.config.stream == Some(true) {
        return Ok(stream_answer(&run, sub));
    }
    let summary = follow_run(sub, &run.run_id, Some(budget)).await?;
    let mut metadata = JsonObject::new();
    metadata.insert("run_id".into(), json!(run.run_id));
    metadata.insert("conversation_id".into(), json!(run.conversation_id));
    if let Some(model) = engine.model() {
        metadata.insert("model_name".into(), json!(model.model));
    }
    let outputs = if summary.text.is_empty() {
        Vec::new()
    } else {
        vec![json!({"role": "assistant", "content": summary.text})]
    };
    if let Some((code, message)) = summary.failure {
        let mut body = json!({
            "status": "error",
            "outputs": outputs,
            "trace_id": trace_id,
            "error": {"code": failure_code(&code), "message": format!("{code}: {message}"),
                      "detail": {"provider_code": code}},
            "metadata": metadata,
        });
        if summary.text.is_empty() {
            body["outputs"] = json!([]);
        }
        return Ok((failure_status(&code), Json(body)).into_response());
    }
    if summary.still_running {
        metadata.insert(
            "events_url".into(),
            json!(format!("/v1/conversations/{}/events", run.conversation_id)),
        );
        return Ok(Json(json!({
            "status": "in_progress",
            "outputs": outputs,
            "trace_id": trace_id,
            "metadata": metadata,
        }))
        .into_response());
    }
    if summary.suspended {
        let waiting: Vec<Value> = waiting_interactions(engine, &run)?
            .into_iter()
            .map(|i| {
                json!({"type": "interaction_request", "interaction_id": i["interactionId"],
                       "kind": i["kind"], "request": i["request"]})
            })
            .collect();
        return Ok(Json(json!({
            "status": "tool_wait",
            "outputs": outputs,
            "trace_id": trace_id,
            "context_updates": waiting,
            "metadata": metadata,
        }))
        .into_response());
    }
    if summary.cancelled {
        return Ok(error_response(
            StatusCode::CONFLICT,
            trace_id,
            ErrorCode::RunCancelled,
            format!("run {} was cancelled before it answered", run.run_id),
            Some(json!({"partial_output": summary.text})),
        ));
    }
    if let Some(meta) = &summary.usage {
        if let (Some(p), Some(c)) = (meta.prompt_tokens, meta.completion_tokens) {
            metadata.insert(
                "usage".into(),
                json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}),
            );
        }
    }
    Ok(Json(json!({
        "status": "success",
        "outputs": outputs,
        "trace_id": trace_id,
        "context_updates": [{"type": "append_prompt", "role": "assistant", "content": summary.text}],
        "metadata": metadata,
    }))
    .into_response())
}
