//! `POST /v1/requests`: a seed-003 request object, honoured whole (§1.2): the body is read and
//! checked here, the core answers it (`App::answer_request`, whose documentation says what each
//! status means). With `Accept: text/event-stream` (or `config.stream: true`) the answer is the
//! run's event stream, as for a USER_INPUT.

use tessera_protocol::error_codes::ErrorCode;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::Value;
use tessera_app::requests::{RequestAnswer, RequestReply};
use tessera_app::{App, Problem};
use tessera_protocol::request::Request;
use tessera_protocol::DocumentKind;

use super::messages::user_input::stream_answer;
use super::wants_stream;

fn reply(reply: RequestReply) -> Response {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, Json(reply.response)).into_response()
}

pub(crate) async fn post_request(
    State(app): State<App>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let (request, trace_id) = match read_request(&body) {
        Ok(read) => read,
        Err(refused) => return reply(*refused),
    };
    match app
        .answer_request(&request, &trace_id, wants_stream(&headers))
        .await
    {
        RequestAnswer::Stream(run, sub) => stream_answer(&run, sub),
        RequestAnswer::Reply(answer) => reply(*answer),
    }
}

/// The request object and its trace id, or the `error` response that says what is wrong with
/// the body. The trace id is the caller's request id whenever one can be read, even from a
/// request that is otherwise wrong.
fn read_request(body: &[u8]) -> Result<(Request, String), Box<RequestReply>> {
    let value: Value = serde_json::from_slice(body).map_err(|err| {
        Box::new(RequestReply::error(
            &uuid::Uuid::now_v7().to_string(),
            Problem::new(
                ErrorCode::InvalidJson,
                format!("the body is not JSON: {err}"),
            ),
        ))
    })?;
    let trace_id = value
        .pointer("/metadata/request_id")
        .and_then(Value::as_str)
        .map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
    let refuse = |problem: Problem| Box::new(RequestReply::error(&trace_id, problem));
    super::messages::refuse_duplicate_keys(body)
        .map_err(|message| refuse(Problem::new(ErrorCode::DuplicateKey, message)))?;
    let problems = tessera_protocol::validate(DocumentKind::Request, &value);
    if !problems.is_empty() {
        let mut problem = Problem::invalid_document("the request object", &problems);
        problem.code = ErrorCode::InvalidRequest;
        return Err(refuse(problem));
    }
    let request = serde_json::from_value(value).map_err(|err| {
        refuse(Problem::new(
            ErrorCode::InvalidRequest,
            format!("the request object is not valid: {err}"),
        ))
    })?;
    Ok((request, trace_id))
}
