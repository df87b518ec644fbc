//! Answering forms and consent requests: `POST /v1/interactions/{id}` (`{"action": …,
//! "values": …}` or `{"decision": …}`), the seed 002 section 12 body at `POST /v1/forms`, and
//! `GET /v1/interactions[?conversation_id=…]` for what waits. Field errors answer 422 with one
//! entry per field and leave the run waiting; the same answer again answers the same.

use axum::extract::{Path, Query, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::Value;
use tessera_app::{Answer, Answered};
use tessera_app::{App, Interaction};
use tessera_protocol::easyflow::FormSubmission;
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::DocumentKind;

use super::ApiError;
use tessera_app::views::interactions::{InteractionAnswered, InteractionList, InteractionView};

pub fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/interactions", get(list))
        .route("/interactions/{id}", post(answer).get(one))
        .route("/forms", post(submit_form))
}

/// What a client sees of an interaction; a request the store holds but that cannot be read
/// as its kind's payload is the store's error.
fn view(interaction: &Interaction) -> Result<InteractionView, ApiError> {
    InteractionView::of(interaction)
        .map_err(|unreadable| ApiError::new(ErrorCode::StoreError, unreadable.to_string()))
}

fn answered(result: &Answered) -> Result<Json<InteractionAnswered>, ApiError> {
    Ok(Json(InteractionAnswered {
        interaction: view(&result.interaction)?,
        repeated: result.event.is_none(),
    }))
}

fn json_body(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|err| {
        ApiError::new(
            ErrorCode::InvalidJson,
            format!("the body is not JSON: {err}"),
        )
    })
}

/// Runs a blocking engine call (store writes) off the async workers.
async fn off_thread<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work).await.map_err(|err| {
        ApiError::new(
            ErrorCode::Internal,
            format!("the answer could not be recorded: {err}"),
        )
    })?
}

async fn answer(
    State(app): State<App>,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> Result<Json<InteractionAnswered>, ApiError> {
    let answer = Answer::from_json(&json_body(&body)?).map_err(tessera_app::CoreError::from)?;
    let handle = tokio::runtime::Handle::current();
    off_thread(move || {
        let _guard = handle.enter();
        answered(&app.answer_interaction(&id, &answer)?)
    })
    .await
}

async fn submit_form(
    State(app): State<App>,
    body: axum::body::Bytes,
) -> Result<Json<InteractionAnswered>, ApiError> {
    let value = json_body(&body)?;
    let submission: FormSubmission =
        tessera_protocol::validate::parse(DocumentKind::FormSubmission, &value)
            .map_err(|err| ApiError::new(ErrorCode::InvalidFormSubmission, err.to_string()))?;
    let handle = tokio::runtime::Handle::current();
    off_thread(move || {
        let _guard = handle.enter();
        answered(&app.submit_form(&submission)?)
    })
    .await
}

#[derive(Debug, Deserialize)]
struct ListQuery {
    conversation_id: Option<String>,
}

async fn list(
    State(app): State<App>,
    Query(query): Query<ListQuery>,
) -> Result<Json<InteractionList>, ApiError> {
    Ok(Json(
        app.waiting_interactions(query.conversation_id.as_deref())?,
    ))
}

async fn one(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<InteractionView>, ApiError> {
    match app.interaction(&id)? {
        Some(interaction) => Ok(Json(view(&interaction)?)),
        None => Err(ApiError::new(
            ErrorCode::NotFound,
            format!("no interaction {id}"),
        )),
    }
}
