//! Agent profiles and specialists, as the settings page edits them: `GET /v1/profiles` and
//! `GET /v1/specialists` show what is in force (the built-ins until the person saves their
//! own); `PUT` takes the whole list, checks it (a 400 names each problem, nothing is written);
//! `DELETE` goes back to the built-ins. A change to the specialists rebuilds the model new runs
//! use, so their `invoke_…` tools change without a restart; profiles are read at each run.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use tessera_app::views::agents::{ProfilesView, SpecialistsView};
use tessera_app::App;

use super::json_body;
use crate::api::ApiError;

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route(
            "/profiles",
            get(show_profiles).put(put_profiles).delete(reset_profiles),
        )
        .route(
            "/specialists",
            get(show_specialists)
                .put(put_specialists)
                .delete(reset_specialists),
        )
}

/// `GET /v1/profiles`.
async fn show_profiles(State(app): State<App>) -> Result<Json<ProfilesView>, ApiError> {
    Ok(Json(app.profiles()?))
}

/// `PUT /v1/profiles` with the whole list.
async fn put_profiles(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<ProfilesView>, ApiError> {
    Ok(Json(app.save_profiles(&json_body(body)?)?))
}

/// `DELETE /v1/profiles`: the built-in profile applies again.
async fn reset_profiles(State(app): State<App>) -> Result<Json<ProfilesView>, ApiError> {
    Ok(Json(app.reset_profiles()?))
}

/// `GET /v1/specialists`: those in force (built-ins with the person's over them).
async fn show_specialists(State(app): State<App>) -> Result<Json<SpecialistsView>, ApiError> {
    Ok(Json(app.specialists()?))
}

/// `PUT /v1/specialists` with the list of the person's own (one named like a built-in
/// replaces it); the model is rebuilt so runs from now on have them.
async fn put_specialists(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SpecialistsView>, ApiError> {
    Ok(Json(app.save_specialists(&json_body(body)?).await?))
}

/// `DELETE /v1/specialists`: the built-in ones again.
async fn reset_specialists(State(app): State<App>) -> Result<Json<SpecialistsView>, ApiError> {
    Ok(Json(app.reset_specialists().await?))
}
