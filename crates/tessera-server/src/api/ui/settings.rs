//! The app settings the UI may change, one key at a time (the core's `App::change_setting`
//! says which and how each is checked).

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::routing::{get, put};
use axum::{Json, Router};
use tessera_app::App;
use tessera_protocol::settings_api::SettingsView;

use super::{bad_request, object_body, only_field};
use crate::api::ApiError;

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/settings", get(show))
        .route("/settings/{key}", put(change))
}

/// `GET /v1/settings`.
async fn show(State(app): State<App>) -> Result<Json<SettingsView>, ApiError> {
    Ok(Json(app.settings()?))
}

/// `PUT /v1/settings/{key}` with `{"value": …}`. Answers with all the settings.
async fn change(
    State(app): State<App>,
    Path(key): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SettingsView>, ApiError> {
    let mut body = object_body(body)?;
    only_field(&body, "value", ": send {\"value\": …}")?;
    let value = body
        .remove("value")
        .ok_or_else(|| bad_request("send {\"value\": …}"))?;
    Ok(Json(app.change_setting(&key, value).await?))
}
