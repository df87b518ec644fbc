//! Memories as the Memory page edits them: `GET /v1/memories?scope=conversation|project|
//! everywhere&q=…`, `PATCH /v1/memories/{id}` `{"content"}`, `DELETE /v1/memories/{id}`. A
//! conversation's memory has the id `CONVERSATION/memory:…` (percent-encode the `/` in a path).

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use tessera_app::memories::{Memory, MemoryScope};
use tessera_app::views::projects::{MemoryEdit, MemoryList};
use tessera_app::App;

use super::{bad_request, json_body};
use crate::api::ApiError;

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/memories", get(list))
        .route("/memories/{id}", axum::routing::patch(edit).delete(forget))
}

#[derive(Deserialize)]
struct ListQuery {
    scope: Option<String>,
    q: Option<String>,
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, tessera_app::CoreError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| {
            ApiError::new(
                tessera_protocol::error_codes::ErrorCode::Internal,
                format!("the work stopped: {e}"),
            )
        })?
        .map_err(ApiError::from)
}

async fn list(
    State(app): State<App>,
    Query(query): Query<ListQuery>,
) -> Result<Json<MemoryList>, ApiError> {
    let scope = match query.scope.as_deref() {
        None | Some("") => None,
        Some(text) => Some(MemoryScope::parse(text).ok_or_else(|| {
            bad_request(format!(
                "scope {text:?} is not one of conversation, project, everywhere"
            ))
        })?),
    };
    let q = query.q.filter(|q| !q.trim().is_empty());
    let memories = blocking(move || app.memories(scope, q.as_deref())).await?;
    Ok(Json(MemoryList { memories }))
}

async fn edit(
    State(app): State<App>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Memory>, ApiError> {
    let body: MemoryEdit = serde_json::from_value(json_body(body)?)
        .map_err(|err| bad_request(format!("the body is not what this route takes: {err}")))?;
    let memory = blocking(move || app.edit_memory(&id, &body.content)).await?;
    Ok(Json(memory))
}

async fn forget(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let memory = blocking(move || app.forget_memory(&id)).await?;
    Ok(Json(serde_json::json!({ "forgotten": memory })))
}
