//! Models on this machine for the settings page and the first-run offer, by the steps `tessera
//! local` takes: the catalogue and the files, downloads in the background (their progress is
//! in the listing), pause, resume, cancel, delete, the default, and stopping the worker.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post, put};
use axum::{Json, Router};
use serde_json::Value;
use tessera_app::local_models::LocalModelsError;
use tessera_app::views::local_models::{
    DownloadCancelled, DownloadView, LocalContextSet, LocalFileRemoved, LocalModelChosen,
    LocalModelsView, WorkerView,
};
use tessera_app::App;

use super::{bad_request, kind_of, object_body, only_field};
use crate::api::ApiError;

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/local-models", get(overview))
        .route("/local-models/downloads", post(start))
        .route("/local-models/downloads/{file}", delete(cancel))
        .route("/local-models/downloads/{file}/pause", post(pause))
        .route("/local-models/downloads/{file}/resume", post(resume))
        .route("/local-models/files/{file}", delete(remove))
        .route("/local-models/files/{file}/default", post(make_default))
        .route("/local-models/import", post(import))
        .route("/local-models/worker/stop", post(stop_worker))
        .route("/local-models/context", put(set_context))
}

fn local_error(err: LocalModelsError) -> ApiError {
    tessera_app::Problem::from(err).into()
}

/// The non-empty text of `key` in a request body, trimmed; `what` says what it should be.
fn required_text(
    body: &serde_json::Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<String, ApiError> {
    match body.get(key) {
        Some(Value::String(text)) if !text.trim().is_empty() => Ok(text.trim().to_owned()),
        Some(other) => Err(bad_request(format!(
            "`{key}` must be {what}, not {}",
            kind_of(other)
        ))),
        None => Err(bad_request(format!("`{key}` is missing: {what}"))),
    }
}

/// `GET /v1/local-models`: the catalogue (the one for this machine marked), the files on disk,
/// the downloads with their progress, the space used and free, the worker and the default.
async fn overview(State(app): State<App>) -> Result<Json<LocalModelsView>, ApiError> {
    app.local_models()
        .overview()
        .await
        .map(Json)
        .map_err(local_error)
}

/// `POST /v1/local-models/downloads` `{"model": ID or "OWNER/REPO:FILE.gguf", "use_when_done":
/// bool}`: 202 with the download, which goes on in the background.
async fn start(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let body = object_body(body)?;
    let model = required_text(&body, "model", "a catalogue id or OWNER/REPO:FILE.gguf")?;
    let use_when_done = match body.get("use_when_done") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        Some(other) => {
            return Err(bad_request(format!(
                "`use_when_done` must be a boolean, not {}",
                kind_of(other)
            )))
        }
    };
    if let Some(field) = body
        .keys()
        .find(|k| k.as_str() != "model" && k.as_str() != "use_when_done")
    {
        return Err(bad_request(format!(
            "unknown field `{field}` (a download takes `model` and `use_when_done`)"
        )));
    }
    let view: DownloadView = app
        .local_models()
        .download(&model, use_when_done)
        .map_err(local_error)?;
    Ok((StatusCode::ACCEPTED, Json(view)).into_response())
}

/// `POST /v1/local-models/downloads/{file}/pause`: the bytes so far are kept.
async fn pause(
    State(app): State<App>,
    Path(file): Path<String>,
) -> Result<Json<DownloadView>, ApiError> {
    app.local_models()
        .pause(&file)
        .map(Json)
        .map_err(local_error)
}

/// `POST /v1/local-models/downloads/{file}/resume`: a paused or failed download, or one an
/// earlier session left, goes on from where it stopped.
async fn resume(State(app): State<App>, Path(file): Path<String>) -> Result<Response, ApiError> {
    let view = app.local_models().resume(&file).map_err(local_error)?;
    Ok((StatusCode::ACCEPTED, Json(view)).into_response())
}

/// `DELETE /v1/local-models/downloads/{file}`: stops it and deletes what it wrote;
/// `?keep_partial=true` keeps what it wrote, for a later download to go on from.
async fn cancel(
    State(app): State<App>,
    Path(file): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<DownloadCancelled>, ApiError> {
    if let Some(name) = query.keys().find(|k| k.as_str() != "keep_partial") {
        return Err(bad_request(format!(
            "unknown parameter `{name}` (a cancel takes `keep_partial`)"
        )));
    }
    let keep_partial = match query.get("keep_partial").map(String::as_str) {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(bad_request(format!(
                "`keep_partial` must be true or false, not `{other}`"
            )))
        }
    };
    app.local_models()
        .cancel(&file, keep_partial)
        .await
        .map(Json)
        .map_err(local_error)
}

/// `DELETE /v1/local-models/files/{file}`: the model file is deleted.
async fn remove(
    State(app): State<App>,
    Path(file): Path<String>,
) -> Result<Json<LocalFileRemoved>, ApiError> {
    app.local_models()
        .remove(&file)
        .await
        .map(Json)
        .map_err(local_error)
}

/// `POST /v1/local-models/files/{file}/default`: new runs use this model (the on-device
/// provider becomes the default).
async fn make_default(
    State(app): State<App>,
    Path(file): Path<String>,
) -> Result<Json<LocalModelChosen>, ApiError> {
    app.local_models()
        .make_default(&file)
        .await
        .map(Json)
        .map_err(local_error)
}

/// `POST /v1/local-models/import` `{"path": "/full/path/model.gguf"}`: new runs use a GGUF file
/// from elsewhere on this computer, where it is.
async fn import(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<LocalModelChosen>, ApiError> {
    let body = object_body(body)?;
    let path = required_text(&body, "path", "the full path of a .gguf file")?;
    app.local_models()
        .use_file(std::path::Path::new(&path))
        .await
        .map(Json)
        .map_err(local_error)
}

/// `PUT /v1/local-models/context` `{"tokens": N}` (or `null`: the worker chooses from the model
/// and the memory): the context local models are loaded with; a model running with another
/// is loaded again with it at the next message to it.
async fn set_context(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<LocalContextSet>, ApiError> {
    let body = object_body(body)?;
    only_field(&body, "tokens", " (the context takes `tokens`)")?;
    let tokens = match body.get("tokens") {
        Some(Value::Null) => None,
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(Value::Number(n)) => {
            return Err(bad_request(format!(
                "`tokens` must be a whole number of tokens or null, not {n}"
            )))
        }
        Some(other) => {
            return Err(bad_request(format!(
                "`tokens` must be a whole number of tokens or null, not {}",
                kind_of(other)
            )))
        }
        None => {
            return Err(bad_request(
                "`tokens` is missing: a number of tokens, or null for the worker's choice"
                    .to_owned(),
            ))
        }
    };
    app.local_models()
        .set_context(tokens)
        .map(Json)
        .map_err(local_error)
}

/// `POST /v1/local-models/worker/stop`: the model leaves memory now; the next message to a
/// local model loads it again.
async fn stop_worker(State(app): State<App>) -> Json<WorkerView> {
    Json(app.local_models().stop_worker().await)
}
