//! The API over the engine: `POST /v1/messages` takes an MCP-CP message ([`messages`]);
//! `POST /v1/requests` a seed-003 request object ([`requests`]); `GET
//! /v1/conversations/{id}/events` replays from `Last-Event-ID` and goes on live until the run's
//! `done`; `POST /v1/runs/{id}/cancel`. A client that disconnects never cancels a run.

pub mod advice;
mod attachments;
mod errors;
mod interactions;
mod messages;
mod requests;
mod sse;
mod ui;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use tessera_app::App;
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::views::RunCancelled;

pub use errors::ApiError;
pub(crate) use sse::stream_response;

/// The largest message body: room for a 20 MB attachment as a base64 `data:` URL (27 MB),
/// and a few smaller ones beside it.
const MESSAGE_LIMIT: usize = 64 * 1024 * 1024;

/// What every handler reaches: the application core.
#[derive(Clone, Debug)]
pub struct ApiState(pub tessera_app::App);

impl axum::extract::FromRef<ApiState> for tessera_app::App {
    fn from_ref(state: &ApiState) -> Self {
        state.0.clone()
    }
}

/// The `/v1` routes (the caller adds authentication).
pub fn routes(app: tessera_app::App) -> Router {
    Router::new()
        .route(
            "/messages",
            post(messages::post_message).layer(axum::extract::DefaultBodyLimit::max(MESSAGE_LIMIT)),
        )
        .route("/requests", post(requests::post_request))
        .route("/conversations/{id}/events", get(conversation_events))
        .route("/runs/{id}/cancel", post(cancel_run))
        .merge(interactions::routes())
        .merge(attachments::routes())
        .merge(ui::ui_routes())
        .with_state(ApiState(app))
}

pub(crate) fn wants_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"))
}

async fn conversation_events(
    State(app): State<App>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let after = match headers.get("last-event-id").map(|v| v.to_str()) {
        None => None,
        Some(Ok(text)) => Some(text.trim().parse::<u64>().map_err(|_| {
            ApiError::new(
                ErrorCode::BadLastEventId,
                format!("Last-Event-ID must be an event's seq (a number), not `{text}`"),
            )
        })?),
        Some(Err(_)) => {
            return Err(ApiError::new(
                ErrorCode::BadLastEventId,
                "Last-Event-ID must be an event's seq (a number)",
            ))
        }
    };
    let sub = app.subscribe(&id, after)?;
    Ok(stream_response(sub, None))
}

async fn cancel_run(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<RunCancelled>, ApiError> {
    app.cancel_run(&id)?;
    Ok(Json(RunCancelled {
        run_id: id,
        cancelled: true,
    }))
}
