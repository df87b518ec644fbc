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
use serde_json::{json, Value};
use tessera_app::App;
use tessera_engine::profiles::ProfilesError;
use tessera_engine::specialists::{self, SpecialistsError};
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::wire::JsonObject;

use super::{json_body, model_value, refresh_model};
use crate::api::ApiError;
use tessera_app::views::agents::{AgentProblem, AgentProblems};

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

/// An error's `details`: `{"problems": [...]}`.
fn problem_details(problems: Vec<AgentProblem>) -> JsonObject {
    match serde_json::to_value(AgentProblems { problems }) {
        Ok(Value::Object(details)) => details,
        _ => JsonObject::new(),
    }
}

fn profiles_error(err: ProfilesError) -> ApiError {
    match err {
        ProfilesError::Invalid(problems) => {
            let listed = problems
                .iter()
                .map(|p| AgentProblem {
                    profile: Some(p.profile.clone()),
                    specialist: None,
                    index: None,
                    field: p.field.clone(),
                    message: p.message.clone(),
                })
                .collect();
            ApiError::new(
                ErrorCode::InvalidProfiles,
                ProfilesError::Invalid(problems).to_string(),
            )
            .with_details(problem_details(listed))
        }
        ProfilesError::Store(err) => err.into(),
    }
}

fn specialists_error(err: SpecialistsError) -> ApiError {
    match err {
        SpecialistsError::Store(err) => err.into(),
        SpecialistsError::Invalid {
            index,
            ref name,
            ref message,
        } => {
            // The engine's message starts with the field(s) it is about (`max_turns: …`,
            // `title and description: …`): one problem per field, as the profiles' are, so the
            // settings page shows each next to its field.
            let (fields, text) = message.split_once(": ").unwrap_or(("", message.as_str()));
            let listed = fields
                .split(" and ")
                .map(|field| AgentProblem {
                    profile: None,
                    specialist: Some(name.clone()),
                    index: Some(index),
                    field: field.trim().to_owned(),
                    message: text.to_owned(),
                })
                .collect();
            ApiError::new(ErrorCode::InvalidSpecialists, err.to_string())
                .with_details(problem_details(listed))
        }
        other => ApiError::new(ErrorCode::InvalidSpecialists, other.to_string()),
    }
}

/// `GET /v1/profiles`: `{"profiles": […], "custom": bool}`.
async fn show_profiles(State(app): State<App>) -> Result<Json<Value>, ApiError> {
    let (profiles, custom) = app.profiles().map_err(profiles_error)?;
    Ok(Json(
        json!({"profiles": profiles.to_value(), "custom": custom}),
    ))
}

/// `PUT /v1/profiles` with the whole list.
async fn put_profiles(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let value = json_body(body)?;
    let profiles = app.save_profiles(&value).map_err(profiles_error)?;
    Ok(Json(
        json!({"profiles": profiles.to_value(), "custom": true}),
    ))
}

/// `DELETE /v1/profiles`: the built-in profile applies again.
async fn reset_profiles(State(app): State<App>) -> Result<Json<Value>, ApiError> {
    let profiles = app.reset_profiles().map_err(profiles_error)?;
    Ok(Json(
        json!({"profiles": profiles.to_value(), "custom": false}),
    ))
}

/// With the names of the built-in specialists: saving a list without one keeps it, so the
/// settings page offers no Delete for them.
fn specialists_view(specs: &[specialists::SpecialistSpec], custom: bool) -> Value {
    let builtin: Vec<String> = specialists::builtin().into_iter().map(|s| s.name).collect();
    json!({
        "specialists": serde_json::to_value(specs).unwrap_or(Value::Null),
        "custom": custom,
        "builtin": builtin,
    })
}

/// `GET /v1/specialists`: those in force (built-ins with the person's over them).
async fn show_specialists(State(app): State<App>) -> Result<Json<Value>, ApiError> {
    let (specs, custom) = app.specialists().map_err(specialists_error)?;
    Ok(Json(specialists_view(&specs, custom)))
}

/// `PUT /v1/specialists` with the list of the person's own (one named like a built-in
/// replaces it); the model is rebuilt so runs from now on have them.
async fn put_specialists(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let value = json_body(body)?;
    let specs = app.save_specialists(&value).map_err(specialists_error)?;
    let mut view = specialists_view(&specs, true);
    view["model"] = model_value(&refresh_model(&app).await);
    Ok(Json(view))
}

/// `DELETE /v1/specialists`: the built-in ones again.
async fn reset_specialists(State(app): State<App>) -> Result<Json<Value>, ApiError> {
    let specs = app.reset_specialists().map_err(specialists_error)?;
    let mut view = specialists_view(&specs, false);
    view["model"] = model_value(&refresh_model(&app).await);
    Ok(Json(view))
}
