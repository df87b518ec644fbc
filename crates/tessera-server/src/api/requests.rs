//! `POST /v1/requests`: a seed-003 request object, honoured whole (§1.2): the body is read and
//! checked here, the core answers it (`App::answer_request`, whose documentation says what each
//! status means). With `Accept: text/event-stream` (or `config.stream: true`) the answer is the
//! run's event stream, as for a USER_INPUT.

use tessera_protocol::error_codes::ErrorCode;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use tessera_app::requests::{RequestAnswer, RequestReply};
use tessera_app::{App, Problem};
use tessera_protocol::request::Request;
use tessera_protocol::DocumentKind;

use super::messages::user_input::stream_answer;
use super::wants_stream;

/// A seed-003 response with status `error`.
fn error_response(
    trace_id: &str,
    code: ErrorCode,
    message: String,
    detail: Option<Value>,
) -> Response {
    let mut problem = Problem::new(code, message);
    problem.details = detail.and_then(|d| match d {
        Value::Object(map) => Some(map),
        _ => None,
    });
    reply(RequestReply::error(trace_id, problem))
}

fn reply(reply: RequestReply) -> Response {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, Json(reply.response)).into_response()
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
        return error_response(&trace_id, ErrorCode::DuplicateKey, message, None);
    }
    let problems = tessera_protocol::validate(DocumentKind::Request, &value);
    if !problems.is_empty() {
        let listed: Vec<String> = problems.iter().map(ToString::to_string).collect();
        let detail = json!({"problems": problems
            .iter()
            .map(|p| json!({"path": p.path, "message": p.message}))
            .collect::<Vec<_>>()});
        return error_response(
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
                &trace_id,
                ErrorCode::InvalidRequest,
                format!("the request object is not valid: {err}"),
                None,
            )
        }
    };
    match app
        .answer_request(&request, &trace_id, wants_stream(&headers))
        .await
    {
        RequestAnswer::Stream(run, sub) => stream_answer(&run, sub),
        RequestAnswer::Reply(answer) => reply(answer),
    }
}
